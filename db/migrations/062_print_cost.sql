-- Print cost from production (issue 36, docs/production.md "Cost model"): a published product's print cost, in USD
-- cents, from its print file's inked area and underbase (lib/print/cost.ts), fixed when it is published. Null: the
-- spec's flat 30 USD (a mockup whose print has no physical size, or a product published before this column).
alter table published_products add column print_cost_cents integer check (print_cost_cents >= 0);
