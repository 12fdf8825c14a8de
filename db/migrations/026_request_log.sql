-- The request log (GET /api/v1/requests): one row per keyed Part A request, written after the answer in batches.
-- No bodies, no headers, no query strings: the route pattern, never the path with its ids filled in. `api_key_id`
-- is null for the dashboard's session calls. Kept 30 days and at most the 1,000 newest per key (and per account for
-- session calls), trimmed by the hourly maintenance sweep; reads never return more than that either.
create table api_request_log (
  id          bigint generated always as identity primary key,
  user_id     text not null references users(id) on delete cascade,
  api_key_id  text,
  livemode    boolean not null,
  method      text not null,
  route       text not null,
  status      integer not null,
  duration_ms real not null check (duration_ms >= 0),
  request_id  text not null,
  error_code  text,
  created_at  timestamptz not null
);
create index api_request_log_user_idx on api_request_log (user_id, livemode, created_at desc, id desc);
create index api_request_log_key_idx on api_request_log (api_key_id, created_at desc, id desc) where api_key_id is not null;
create index api_request_log_created_idx on api_request_log (created_at);
