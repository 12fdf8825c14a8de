-- Storefront (issue 14): Shopify connections made with OAuth, single-use OAuth states, products published from
-- mockups, orders taken from order webhooks, and every webhook received (stored before it is acknowledged).

-- One connection per (user, shop): connecting the same shop again reuses the row and makes it active again. The
-- access token is stored only encrypted (AES-256-GCM under TOKEN_ENCRYPTION_KEY, lib/token-cipher.ts): iv, tag
-- and ciphertext in one bytea; null once the shop uninstalled the app or was redacted.
create table shopify_connections (
  id               text primary key,
  user_id          text not null references users(id) on delete cascade,
  shop_domain      text not null,
  shop_name        text,
  status           text not null default 'pending' check (status in ('pending', 'active', 'disconnected')),
  access_token_enc bytea,
  scopes           text,
  installed_at     timestamptz,
  created_at       timestamptz not null default now(),
  updated_at       timestamptz not null default now(),
  unique (user_id, shop_domain)
);
create index shopify_connections_shop_idx on shopify_connections (shop_domain);

-- OAuth state: random, bound to the user and the shop, single use (used_at), valid until expires_at.
create table shopify_oauth_states (
  state      text primary key,
  user_id    text not null references users(id) on delete cascade,
  shop       text not null,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  used_at    timestamptz
);
create index shopify_oauth_states_expires_idx on shopify_oauth_states (expires_at);

-- A mockup published as a product (workflow publish-<id>). The Shopify product is created with handle
-- mockup-<id>, so a re-run of the publish step updates the same product instead of making a second one.
create table published_products (
  id                 text primary key,
  user_id            text not null references users(id) on delete cascade,
  generation_id      text not null references generations(id) on delete cascade,
  connection_id      text not null references shopify_connections(id) on delete cascade,
  title              text not null,
  description        text,
  sizes              text[] not null,
  base_price_cents   integer not null check (base_price_cents > 0),
  status             text not null default 'publishing' check (status in ('publishing', 'published', 'failed')),
  shopify_product_id text,
  shopify_handle     text,
  error              text,
  created_at         timestamptz not null default now(),
  published_at       timestamptz
);
create index published_products_user_idx on published_products (user_id, created_at desc);
create index published_products_shopify_idx on published_products (connection_id, shopify_product_id);

-- Orders from orders/create and orders/paid (one row per shop order, whatever the number of deliveries).
create table shopify_orders (
  id               text primary key,
  connection_id    text not null references shopify_connections(id) on delete cascade,
  user_id          text not null references users(id) on delete cascade,
  shop_domain      text not null,
  shopify_order_id text not null,
  name             text not null,
  customer_id      text,
  customer_name    text,
  customer_email   text,
  line_items       jsonb not null default '[]',
  total            text not null,
  currency         text not null,
  status           text not null default 'open' check (status in ('open', 'paid', 'fulfilled')),
  fulfillment_id   text,
  tracking         jsonb,
  created_at       timestamptz not null default now(),
  updated_at       timestamptz not null default now(),
  unique (connection_id, shopify_order_id)
);
create index shopify_orders_user_idx on shopify_orders (user_id, created_at desc);

-- Every webhook received, keyed by X-Shopify-Webhook-Id (deduplication) and stored before the 200 is sent;
-- processed by the workflow shopify-webhook-<id>. `result` holds what a compliance request produced (the export
-- of a customers/data_request, the counts erased by a redact).
create table shopify_webhooks (
  id           text primary key,
  topic        text not null,
  shop_domain  text not null,
  api_version  text,
  body         jsonb not null,
  status       text not null default 'received' check (status in ('received', 'processed', 'ignored', 'failed')),
  result       jsonb,
  received_at  timestamptz not null default now(),
  processed_at timestamptz
);
