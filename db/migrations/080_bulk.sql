-- Bulk renders (issue 35): POST /api/v1/generate/bulk expands designs x garments x colours x zones into ordinary
-- generations (batch_id = the bulk's workflow id, bulk-<id>, so the orphan sweep looks for that workflow), charged in
-- the transaction that records this row and its items. The items keep their render job and their archive entry
-- name; the workflow reads them in pages (its input stays small whatever the size of the bulk).
create table bulk_jobs (
  id             text primary key,
  user_id        text not null references users(id) on delete cascade,
  api_key_id     text,
  livemode       boolean not null default true,
  status         text not null default 'running' check (status in ('running', 'completed', 'canceled')),
  total          integer not null check (total > 0),
  tokens_charged integer not null check (tokens_charged >= 0),
  webhook_url    text,
  item_webhooks  boolean not null default false,
  archive_key    text,
  created_at     timestamptz not null default now(),
  canceled_at    timestamptz,
  finished_at    timestamptz
);
create index bulk_jobs_user_idx on bulk_jobs (user_id, created_at desc);

create table bulk_items (
  bulk_id       text not null references bulk_jobs(id) on delete cascade,
  position      integer not null check (position >= 0),
  generation_id text not null,
  entry_name    text not null,
  garment_id    text not null,
  job           jsonb not null,
  primary key (bulk_id, position)
);
create index bulk_items_generation_idx on bulk_items (generation_id);

-- The bulk's one `bulk.completed` callback goes through the signed deliveries of generation callbacks: a delivery
-- is now of a generation or of a bulk (one per bulk).
alter table webhook_deliveries alter column generation_id drop not null;
alter table webhook_deliveries add column bulk_id text references bulk_jobs(id) on delete cascade;
alter table webhook_deliveries drop constraint webhook_deliveries_event_check;
alter table webhook_deliveries add constraint webhook_deliveries_event_check
  check (event in ('generation.completed', 'generation.failed', 'bulk.completed'));
alter table webhook_deliveries add constraint webhook_deliveries_subject_check
  check ((generation_id is null) <> (bulk_id is null));
create unique index webhook_deliveries_bulk_once_idx on webhook_deliveries (bulk_id) where bulk_id is not null;
alter table webhook_deliveries drop constraint webhook_deliveries_trigger_check;
alter table webhook_deliveries add constraint webhook_deliveries_trigger_check
  check (trigger in ('generation', 'resend', 'bulk'));
