-- Design uploads (POST /api/v1/upload). The bytes live in storage under storage_key (original, unchanged) and
-- thumbnail_key; this row records who uploaded what, so uploads belong to the account that made them.

create table uploads (
  id             text primary key,                       -- upl_<ms>_<suffix>, also the storage file name
  user_id        text not null references users(id) on delete cascade,
  storage_key    text not null unique,
  thumbnail_key  text not null unique,
  mime_type      text not null check (mime_type in ('image/png', 'image/jpeg', 'image/webp', 'image/gif')),
  size_bytes     integer not null check (size_bytes > 0),
  width          integer not null check (width > 0),
  height         integer not null check (height > 0),
  sha256         bytea not null check (length(sha256) = 32),
  created_at     timestamptz not null default now()
);
create index uploads_user_idx on uploads (user_id, created_at desc);
-- Finding an account's earlier upload of the same bytes (deduplication, abuse review).
create index uploads_user_sha_idx on uploads (user_id, sha256);
