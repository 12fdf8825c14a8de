-- Accounts, sessions, API keys, the garment catalogue and the token ledger.

create table users (
  id            text primary key,
  email         text not null,
  password_hash text not null,
  plan          text not null default 'free' check (plan in ('free', 'pro', 'business', 'enterprise')),
  created_at    timestamptz not null default now()
);
create unique index users_email_lower_key on users (lower(email));

-- Only a SHA-256 of the session token is stored: a leaked table does not yield usable cookies.
create table sessions (
  token_hash   bytea primary key,
  user_id      text not null references users(id) on delete cascade,
  created_at   timestamptz not null default now(),
  expires_at   timestamptz not null,
  last_seen_at timestamptz not null default now()
);
create index sessions_user_idx on sessions (user_id);
create index sessions_expires_idx on sessions (expires_at);

create table api_keys (
  id           text primary key,
  user_id      text not null references users(id) on delete cascade,
  name         text not null,
  key_hash     bytea not null unique,
  last_four    text not null,
  created_at   timestamptz not null default now(),
  expires_at   timestamptz,
  last_used_at timestamptz,
  revoked_at   timestamptz
);
create index api_keys_user_idx on api_keys (user_id, created_at);

create table garments (
  id          text primary key,
  name        text not null,
  brand       text not null,
  category    text not null,
  base_price  numeric(10, 2) not null,
  sizes       text[] not null,
  silhouette  text not null,
  sort_order  integer not null,
  created_at  timestamptz not null default now()
);
create unique index garments_sort_idx on garments (sort_order);
create index garments_category_idx on garments (category, sort_order);

-- One row per colour; the image keys point into storage (front and back views share geometry per silhouette).
create table garment_colors (
  garment_id  text not null references garments(id) on delete cascade,
  name        text not null,
  hex         text not null,
  available   boolean not null default true,
  sort_order  integer not null,
  front_key   text not null,
  back_key    text not null,
  thumb_key   text not null,
  primary key (garment_id, name)
);

-- maxWidth/maxHeight in inches of the physical print area; rect_* in fractions of the blank image of `view`.
create table print_zones (
  garment_id    text not null references garments(id) on delete cascade,
  zone_id       text not null check (zone_id in ('front', 'back', 'left-chest', 'right-chest')),
  name          text not null,
  view          text not null check (view in ('front', 'back')),
  max_width_in  numeric(6, 2) not null,
  max_height_in numeric(6, 2) not null,
  rect_x        double precision not null,
  rect_y        double precision not null,
  rect_w        double precision not null,
  rect_h        double precision not null,
  sort_order    integer not null,
  primary key (garment_id, zone_id)
);

-- Token ledger: the balance is derived from grants minus allocations, never stored as a counter.
create table token_grants (
  id          bigserial primary key,
  user_id     text not null references users(id) on delete cascade,
  source      text not null check (source in ('free', 'plan', 'payg_purchase', 'refund')),
  amount      integer not null check (amount > 0),
  expires_at  timestamptz,
  reference   text not null unique,
  created_at  timestamptz not null default now()
);
create index token_grants_user_idx on token_grants (user_id, expires_at);

create table token_debits (
  id          bigserial primary key,
  user_id     text not null references users(id) on delete cascade,
  amount      integer not null check (amount > 0),
  reference   text not null unique,
  created_at  timestamptz not null default now()
);
create index token_debits_user_idx on token_debits (user_id);

-- Which grants a debit consumed, so expiring grants can be spent first and expiry only forfeits what is unspent.
create table token_allocations (
  debit_id  bigint not null references token_debits(id) on delete cascade,
  grant_id  bigint not null references token_grants(id) on delete cascade,
  amount    integer not null check (amount > 0),
  primary key (debit_id, grant_id)
);
create index token_allocations_grant_idx on token_allocations (grant_id);
