-- Production (issue 36): every paid order with items of published products gets print files and a job sheet
-- (workflow production-<order id>). The ship-to name for the job sheet (erased with the customer's other data by
-- customers/redact); one production job per order; one file per line item, keyed by Shopify's line item id, so a
-- retried or restarted production makes each line's file once.
alter table shopify_orders add column ship_to_name text;

create table production_jobs (
  order_id      text primary key references shopify_orders(id) on delete cascade,
  user_id       text not null references users(id) on delete cascade,
  status        text not null default 'queued' check (status in ('queued', 'ready', 'failed')),
  job_sheet_key text,
  archive_key   text,
  error         text,
  created_at    timestamptz not null default now(),
  updated_at    timestamptz not null default now(),
  ready_at      timestamptz
);
create index production_jobs_user_idx on production_jobs (user_id, created_at);

create table production_files (
  order_id      text not null references production_jobs(order_id) on delete cascade,
  line_item_id  text not null,
  position      integer not null,
  print_file_id text not null references print_files(id) on delete cascade,
  quantity      integer not null,
  created_at    timestamptz not null default now(),
  primary key (order_id, line_item_id)
);
