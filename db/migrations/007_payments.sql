-- Payments (issue 12): plans, Stripe customers, subscriptions, and every verified Stripe event stored before it is
-- answered. Tokens bought or granted by a plan are ordinary ledger grants (token_grants) with unique references.

create table plans (
  id               text primary key check (id in ('free', 'pro', 'business', 'enterprise')),
  name             text not null,
  -- null: custom (Enterprise, by arrangement)
  tokens_per_month integer check (tokens_per_month > 0),
  price_usd        numeric(10, 2),
  -- true: a plan grant never expires; false: it expires at the end of the period it was granted for
  rollover         boolean not null default false,
  sort_order       integer not null
);
insert into plans (id, name, tokens_per_month, price_usd, rollover, sort_order) values
  ('free', 'Free', 50, 0, false, 1),
  ('pro', 'Pro', 500, 29, false, 2),
  ('business', 'Business', 2000, 99, false, 3),
  ('enterprise', 'Enterprise', null, null, false, 4);

alter table users add constraint users_plan_fk foreign key (plan) references plans(id);

create table stripe_customers (
  user_id      text primary key references users(id) on delete cascade,
  customer_id  text not null unique,
  created_at   timestamptz not null default now()
);

create table subscriptions (
  id                     text primary key,
  user_id                text not null references users(id) on delete cascade,
  plan_id                text not null references plans(id),
  status                 text not null,
  stripe_subscription_id text not null unique,
  stripe_customer_id     text,
  current_period_start   timestamptz,
  current_period_end     timestamptz,
  cancel_at_period_end   boolean not null default false,
  -- Stripe's time of the newest state applied (event `created`, or when the subscription was read from the API):
  -- an older event arriving late changes nothing
  state_as_of            timestamptz not null,
  created_at             timestamptz not null default now(),
  updated_at             timestamptz not null default now()
);
create index subscriptions_user_idx on subscriptions (user_id, current_period_end desc);

alter table token_grants add column subscription_id text references subscriptions(id) on delete set null;

create table stripe_events (
  id            text primary key,
  type          text not null,
  created       timestamptz not null,
  livemode      boolean not null,
  payload       jsonb not null,
  status        text not null default 'received' check (status in ('received', 'processed', 'ignored', 'failed')),
  result        jsonb,
  received_at   timestamptz not null default now(),
  processed_at  timestamptz
);
create index stripe_events_waiting_idx on stripe_events (received_at) where status = 'received';
