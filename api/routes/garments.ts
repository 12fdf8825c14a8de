// Part A garment catalogue (spec "Garment", GET /garments, GET /garments/<id>). Free, but needs a key.
import { Router } from 'express';
import { z } from 'zod';
import { decodeCursor, encodeCursor } from '../../lib/cursor';
import { fileUrl } from '../../lib/storage';
import type { AppDeps } from '../context';
import { badRequest, notFound, parse } from '../errors';
import { partA } from '../middleware/part-a';
import { cursorParam, DEFAULT_PAGE_LIMIT, pageLimitParam } from '../pagination';

const listQuery = z.strictObject({
  category: z
    .string()
    .trim()
    .min(1)
    .max(50)
    .regex(/^[a-z0-9-]+$/, 'must be a category slug such as t-shirts')
    .optional(),
  limit: pageLimitParam,
  cursor: cursorParam,
});

interface GarmentRow {
  id: string;
  name: string;
  brand: string;
  category: string;
  basePrice: string;
  sizes: string[];
  sortOrder: number;
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

const pct = (f: number) => Math.round(f * 10000) / 100;

export function presentGarment(deps: Pick<AppDeps, 'config'>, g: GarmentRow) {
  const first = g.colors[0];
  return {
    id: g.id,
    name: g.name,
    brand: g.brand,
    category: g.category,
    basePrice: Number(g.basePrice),
    currency: 'USD',
    colors: g.colors.map((c) => ({
      name: c.name,
      hex: c.hex,
      imageUrl: fileUrl(deps.config, c.frontKey),
      backImageUrl: fileUrl(deps.config, c.backKey),
      thumbnailUrl: fileUrl(deps.config, c.thumbKey),
      available: c.available,
    })),
    sizes: g.sizes,
    // maxWidth/maxHeight: inches of printable area. position: the zone's top-left corner in percent of the blank
    // image (x from the left, y from the top). region adds width and height in percent, so the zone maps to pixels
    // on any colour's blank of the zone's view.
    printZones: g.zones.map((z) => ({
      id: z.id,
      name: z.name,
      maxWidth: Number(z.maxWidthIn),
      maxHeight: Number(z.maxHeightIn),
      position: { x: pct(z.x), y: pct(z.y) },
      region: { x: pct(z.x), y: pct(z.y), width: pct(z.w), height: pct(z.h) },
      view: z.view,
    })),
    images: first
      ? { thumbnail: fileUrl(deps.config, first.thumbKey), full: fileUrl(deps.config, first.frontKey) }
      : { thumbnail: null, full: null },
  };
}

/** Garment rows with their colours and zones aggregated in one query. */
export function garmentQuery(
  deps: Pick<AppDeps, 'sql'>,
  where: { id?: string; category?: string; afterSort?: number; limit: number },
) {
  const { sql } = deps;
  return sql<GarmentRow[]>`
    select g.id, g.name, g.brand, g.category, g.base_price::text as "basePrice", g.sizes, g.sort_order as "sortOrder",
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

export function garmentRoutes(deps: AppDeps): Router {
  const r = Router();
  const auth = partA(deps, 'garments');

  r.get('/garments', ...auth, async (req, res) => {
    const q = parse(listQuery, req.query, 'query');
    const limit = q.limit ?? DEFAULT_PAGE_LIMIT;
    const scope = `garments:${q.category ?? ''}`;
    let afterSort: number | undefined;
    if (q.cursor !== undefined) {
      const c = decodeCursor<{ s: unknown }>(q.cursor, deps.config.appSecret, scope);
      if (!c || typeof c.s !== 'number' || !Number.isInteger(c.s)) {
        throw badRequest('Invalid cursor: pass nextCursor from the previous page unchanged, with the same category');
      }
      afterSort = c.s;
    }
    const rows = await garmentQuery(deps, { category: q.category, afterSort, limit: limit + 1 });
    const hasMore = rows.length > limit;
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    res.json({
      garments: page.map((g) => presentGarment(deps, g)),
      pagination: {
        hasMore,
        nextCursor: hasMore && last ? encodeCursor({ s: last.sortOrder }, deps.config.appSecret, scope) : null,
      },
    });
  });

  r.get('/garments/:garmentId', ...auth, async (req, res) => {
    const id = req.params.garmentId;
    const [row] = typeof id === 'string' && id.length <= 100 ? await garmentQuery(deps, { id, limit: 1 }) : [];
    if (!row) throw notFound(`Garment ${JSON.stringify(id)} not found`);
    res.json(presentGarment(deps, row));
  });

  return r;
}
