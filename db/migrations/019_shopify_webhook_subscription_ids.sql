-- Issue 21 item 9: the webhook subscriptions registered at Shopify when a shop is connected, by the id
-- webhookSubscriptionCreate answered, so that a disconnect can delete them (webhookSubscriptionDelete). Kept per
-- shop, not per connection: one app installation has one set of subscriptions, shared by every user's connection
-- to the shop. A row stays until Shopify confirms the deletion (or says the subscription no longer exists), or the
-- shop uninstalls the app / is redacted (Shopify drops an uninstalled app's subscriptions itself).
create table shopify_webhook_subscriptions (
  shop_domain     text not null,
  subscription_id text not null,
  topic           text not null,
  callback_url    text not null,
  created_at      timestamptz not null default now(),
  primary key (shop_domain, subscription_id)
);
