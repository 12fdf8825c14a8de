-- Generations on a template (issue 32, docs/templates.md): one generation row and one debit as for a garment, with
-- the template and the designs of its smart objects instead of a garment, a colour, a zone and a blank.
-- template_id has no foreign key: a generation (and its mockup) outlives the template it was rendered on.
alter table generations
  alter column garment_id drop not null,
  alter column color drop not null,
  alter column zone drop not null,
  alter column garment_image_url drop not null,
  alter column blank_key drop not null,
  add column template_id text,
  -- [{smartObjectId, designUrl, placement}] as rendered (placements with their defaults applied)
  add column designs jsonb,
  add constraint generations_garment_or_template check (
    (template_id is null and garment_id is not null and color is not null and zone is not null
      and garment_image_url is not null and blank_key is not null)
    or (template_id is not null and garment_id is null and designs is not null));
