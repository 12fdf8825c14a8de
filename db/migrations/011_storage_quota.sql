-- Storage per account (issue 11, finding 6): what each upload's files take, a per-account running total checked
-- against STORAGE_QUOTA_BYTES, and when an upload's prepared levels were last used, for their retention.

-- The stored size of each of an upload's files: the original is size_bytes; the prepared levels drop to 0 when the
-- retention sweep deletes them. levels_used_at: the last generation that rendered the upload (null: none yet).
alter table uploads
  add column thumbnail_bytes integer not null default 0 check (thumbnail_bytes >= 0),
  add column levels_bytes integer not null default 0 check (levels_bytes >= 0),
  add column levels_used_at timestamptz;

-- Existing uploads: the prepared levels file's size follows from the dimensions (lib/images/design-levels.ts:
-- levels whose long side is 400-1600 px, a 17-byte header and 9 bytes per level, 4 bytes per pixel). Thumbnails of
-- existing uploads (a few KB each) are not known and count as 0.
update uploads u set levels_bytes = l.bytes
from (
  select x.id, (17 + 9 * count(*) + sum(ceil(x.width / 2.0 ^ k) * ceil(x.height / 2.0 ^ k) * 4))::integer as bytes
  from uploads x cross join generate_series(1, 8) k
  where greatest(ceil(x.width / 2.0 ^ k), ceil(x.height / 2.0 ^ k)) between 400 and 1600
  group by x.id
) l
where u.id = l.id;

-- The retention sweep's scan: uploads still holding prepared levels, by last use.
create index uploads_levels_retention_idx on uploads ((coalesce(levels_used_at, created_at)), id) where levels_bytes > 0;

-- Bytes stored per account: the sum of its uploads' size_bytes + thumbnail_bytes + levels_bytes, plus what uploads
-- in flight have reserved. An upload reserves its bytes with a conditional update of this row before it stores
-- anything, so concurrent uploads cannot overshoot the quota; updated_at lets the maintenance sweep correct a total
-- left wrong by a crash between a reservation and its upload's row, once the account has been quiet for an hour.
create table storage_usage (
  user_id    text primary key references users(id) on delete cascade,
  used_bytes bigint not null default 0 check (used_bytes >= 0),
  updated_at timestamptz not null default now()
);

insert into storage_usage (user_id, used_bytes)
select user_id, sum(size_bytes::bigint + thumbnail_bytes + levels_bytes) from uploads group by user_id;
