-- Shopify webhook replay (issue 21 item 8). Topic, shop and webhook id are headers the HMAC does not cover, so the
-- webhook id alone does not tell a retry from a captured delivery re-sent under a new id:
-- * dedup_key: `event:<X-Shopify-Event-Id>` when the delivery carries one (the same on Shopify's retries and on
--   every subscription the event triggered), else `sha256:<hash of topic, newline, raw body>`. Unique: a second
--   delivery with the same key is stored nowhere and starts nothing.
-- * body_sha256: the hash of topic + raw body of every delivery. Unique for the order topics, whose bodies differ
--   from one event to the next (ids, timestamps, status): a captured order re-sent with a new webhook id and a new
--   event id, or under another shop's header, is still the same bytes and does nothing. Not for the other topics,
--   whose bodies can legitimately repeat (a second shop/redact for the same shop is byte-identical to the first).
-- * triggered_at: X-Shopify-Triggered-At as received (deliveries older than 48 hours are refused before this).
-- Rows stored before this migration have none of them (null never conflicts).
alter table shopify_webhooks
  add column dedup_key    text,
  add column body_sha256  text,
  add column event_id     text,
  add column triggered_at timestamptz;
create unique index shopify_webhooks_dedup_key_idx on shopify_webhooks (dedup_key);
create unique index shopify_webhooks_order_body_idx on shopify_webhooks (body_sha256) where topic like 'orders/%';
