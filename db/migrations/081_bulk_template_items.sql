-- Bulk renders on templates (issue 35): a bulk's item may render on one of the account's templates instead of a
-- garment (its job is a template render job, kind 'template'); such an item has no garment.
alter table bulk_items alter column garment_id drop not null;
