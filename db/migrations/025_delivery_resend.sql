-- Delivery resend (POST /api/v1/generations/<id>/deliveries): a generation may now have more than one delivery. The
-- first, started by the generation workflow, stays unique per generation (`trigger = 'generation'`, the arbiter of
-- its idempotent insert); each resend is a delivery of its own with its own id, body, attempts and workflow
-- (`webhook-<delivery id>`).
alter table webhook_deliveries add column trigger text not null default 'generation'
  check (trigger in ('generation', 'resend'));
alter table webhook_deliveries drop constraint webhook_deliveries_generation_id_key;
create unique index webhook_deliveries_generation_once_idx on webhook_deliveries (generation_id)
  where trigger = 'generation';
create index webhook_deliveries_generation_idx on webhook_deliveries (generation_id, created_at);
-- The resend budget counts an account's resends of the last hour.
create index webhook_deliveries_resend_idx on webhook_deliveries (user_id, created_at) where trigger = 'resend';
