// The garment catalogue: garments with their colors (blank images) and print zones.
import type { ZoneRect } from '../lib/compositing/composite';
import type { Sql } from './client';

export interface GarmentRow {
  id: string;
  name: string;
  brand: string;
  category: string;
  basePrice: string;
  sizes: string[];
  sortOrder: number;
  /** the catalogue geometry its blanks are rendered from (lib/blanks) */
  silhouette: string;
  colors: { name: string; hex: string; available: boolean; frontKey: string; backKey: string; thumbKey: string }[];
  zones: {
    id: string;
    name: string;
    view: string;
    maxWidthIn: string;
    maxHeightIn: string;
    x: number;
    y: number;
    w: number;
    h: number;
  }[];
}

/** Garment rows with their colors and zones aggregated in one query. */
export function findGarments(sql: Sql, where: { id?: string; category?: string; afterSort?: number; limit: number }) {
  return sql<GarmentRow[]>`
    select g.id, g.name, g.brand, g.category, g.base_price::text as "basePrice", g.sizes, g.sort_order as "sortOrder",
      g.silhouette,
      (select coalesce(json_agg(json_build_object('name', c.name, 'hex', c.hex, 'available', c.available,
              'frontKey', c.front_key, 'backKey', c.back_key, 'thumbKey', c.thumb_key) order by c.sort_order), '[]')
         from garment_colors c where c.garment_id = g.id) as colors,
      (select coalesce(json_agg(json_build_object('id', z.zone_id, 'name', z.name, 'view', z.view,
              'maxWidthIn', z.max_width_in::text, 'maxHeightIn', z.max_height_in::text,
              'x', z.rect_x, 'y', z.rect_y, 'w', z.rect_w, 'h', z.rect_h) order by z.sort_order), '[]')
         from print_zones z where z.garment_id = g.id) as zones
    from garments g
    where true
      ${where.id !== undefined ? sql`and g.id = ${where.id}` : sql``}
      ${where.category !== undefined ? sql`and g.category = ${where.category}` : sql``}
      ${where.afterSort !== undefined ? sql`and g.sort_order > ${where.afterSort}` : sql``}
    order by g.sort_order
    limit ${where.limit}`;
}

/** One garment by id, or undefined. */
export async function getGarment(sql: Sql, id: string): Promise<GarmentRow | undefined> {
  const [row] = await findGarments(sql, { id, limit: 1 });
  return row;
}

/** The garment whose colour has this storage key as its front or back blank image (a catalogue blank), or undefined. */
export async function garmentOfBlankKey(sql: Sql, key: string): Promise<GarmentRow | undefined> {
  const [row] = await sql<{ garmentId: string }[]>`
    select garment_id as "garmentId" from garment_colors where front_key = ${key} or back_key = ${key} limit 1`;
  return row ? getGarment(sql, row.garmentId) : undefined;
}

/**
 * A catalogue blank's storage key with its garment's print zones of that view (the back zones for a back blank),
 * or null when `key` is no catalogue blank or its view has neither a front nor a back zone.
 */
export async function catalogueBlankZones(
  sql: Sql,
  key: string,
): Promise<{ key: string; zones: Record<string, ZoneRect> } | null> {
  const rows = await sql<{ zones: { id: string; x: number; y: number; w: number; h: number }[] | null }[]>`
    select (select json_agg(json_build_object('id', z.zone_id, 'x', z.rect_x, 'y', z.rect_y, 'w', z.rect_w, 'h', z.rect_h))
        from print_zones z
        where z.garment_id = c.garment_id and z.view = case when c.front_key = ${key} then 'front' else 'back' end) as zones
    from garment_colors c where c.front_key = ${key} or c.back_key = ${key} limit 1`;
  const row = rows[0];
  if (!row) return null;
  const zones: Record<string, ZoneRect> = {};
  for (const z of row.zones ?? []) zones[z.id] = { x: z.x, y: z.y, width: z.w, height: z.h };
  if (!zones.front && !zones.back) return null;
  return { key, zones };
}
