-- Storefront (issue 20): a product may be published from a design-chat mockup (render job + mockup position)
-- instead of a generation, exactly one of the two; and every product records the catalogue garment its mockup is
-- on (null for a chat mockup on a client's own blank photo), whose base price is the blank in its unit costs.
alter table published_products alter column generation_id drop not null;
alter table published_products
  add column chat_job_id  text references render_jobs(id) on delete cascade,
  add column mockup_index integer check (mockup_index >= 0),
  add column garment_id   text references garments(id) on delete set null;
alter table published_products add constraint published_products_one_source check (
  (generation_id is not null and chat_job_id is null and mockup_index is null)
  or (generation_id is null and chat_job_id is not null and mockup_index is not null));

update published_products p set garment_id = g.garment_id from generations g where g.id = p.generation_id;
