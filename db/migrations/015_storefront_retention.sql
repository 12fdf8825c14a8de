-- Storefront data minimisation (issue 14 audit): the raw body of a Shopify webhook may be erased (null) once it has
-- been processed: on customers/redact and shop/redact for the data they name, and by the hourly maintenance sweep
-- after SHOPIFY_WEBHOOK_BODY_RETENTION; a customers/data_request export (`result`) after
-- SHOPIFY_DATA_REQUEST_RETENTION.
alter table shopify_webhooks alter column body drop not null;

-- The redactions look through one shop's webhooks; the sweep through processed ones that still hold data.
create index shopify_webhooks_shop_idx on shopify_webhooks (shop_domain);
create index shopify_webhooks_retention_idx on shopify_webhooks (processed_at)
  where body is not null or result is not null;
