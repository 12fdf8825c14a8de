-- Outbound generation webhooks (issue 4): per-account signing secrets, one delivery per generation, and one row
-- per HTTP attempt so an account can see exactly what happened to its callbacks.

-- The secret must be readable (we sign with it and show it to the account), so it is stored as is, like the
-- other credentials the database already guards. After a rotation the previous secret keeps signing until
-- previous_expires_at so receivers can switch without dropping deliveries.
create table webhook_signing_secrets (
  user_id             text primary key references users(id) on delete cascade,
  secret              text not null,
  created_at          timestamptz not null default now(),
  previous_secret     text,
  previous_expires_at timestamptz,
  check ((previous_secret is null) = (previous_expires_at is null))
);

-- One delivery per generation (workflow id webhook-<generation id>): a generation sends either its completed or
-- its failed event, never both. `body` holds the exact bytes sent on every attempt, serialised once.
create table webhook_deliveries (
  id              text primary key,
  generation_id   text not null unique references generations(id) on delete cascade,
  user_id         text not null references users(id) on delete cascade,
  event           text not null check (event in ('generation.completed', 'generation.failed')),
  url             text not null,
  body            text not null,
  status          text not null default 'pending' check (status in ('pending', 'delivered', 'failed')),
  attempts        integer not null default 0,
  created_at      timestamptz not null default now(),
  last_attempt_at timestamptz,
  finished_at     timestamptz
);
create index webhook_deliveries_user_idx on webhook_deliveries (user_id, created_at desc);

-- The attempt number comes from the workflow, so a re-run activity finds its own row instead of adding one.
-- status_code is null when no HTTP answer arrived (timeout, connection error, URL refused by the guard).
create table webhook_attempts (
  delivery_id  text not null references webhook_deliveries(id) on delete cascade,
  attempt      integer not null check (attempt > 0),
  outcome      text not null check (outcome in ('delivered', 'retry', 'refused')),
  status_code  integer,
  duration_ms  integer not null check (duration_ms >= 0),
  error        text,
  attempted_at timestamptz not null,
  primary key (delivery_id, attempt)
);
