-- Mockups on clients' own blank photos: the print area a client may give (percent of the photo, overriding the
-- zone found on the garment), and where the mockup's print zone and design landed, in the blank's pixels, with what
-- the zone was placed relative to ('garment': fitted to the garment found in the photo, or our own blank; 'image':
-- the client's print area, or the catalogue zone's fractions of the image when no garment was found).
alter table generations
  add column print_area jsonb,
  add column print_area_px jsonb,
  add column design_box jsonb,
  add column placement_basis text check (placement_basis in ('image', 'garment'));
