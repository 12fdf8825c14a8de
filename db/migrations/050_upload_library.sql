-- The design library (issue 35): an upload has a name, belongs to one mode (live or test, like generations), can be
-- deleted (its files are erased at once; the row stays as a tombstone so that a later generate naming its URL is
-- refused with "design was deleted", and the bytes it counted are given back to the account's storage total), and
-- keeps its latest printability analysis (POST /analyze on its URL, or the one made after the upload) with the inks
-- the contrast checks read.
alter table uploads
  add column name text not null default '' check (length(name) <= 200),
  add column livemode boolean not null default true,
  add column deleted_at timestamptz,
  add column analysis jsonb,
  add column analyzed_at timestamptz;

update uploads set name = id where name = '';

-- The library's listing: an account's uploads of one mode that are not deleted, newest first.
create index uploads_library_idx on uploads (user_id, livemode, created_at desc, id desc) where deleted_at is null;
