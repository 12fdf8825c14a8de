// Garment catalogue use cases (GET /garments, GET /garments/<id>, and the MCP tools list_garments and get_garment):
// a page of the catalogue in its sort order, and one garment, presented as the Part A resource.
import type { z } from 'zod';
import { findGarments, type GarmentRow } from '../../db/garments';
import type { AppDeps } from '../context';
import { notFound } from '../errors';
import type { garmentListQuery } from '../http/schemas';
import { presentGarment } from '../http/present';
import { cursorPage, DEFAULT_PAGE_LIMIT, type CursorCodec } from '../pagination';

/** Catalogue order: `{s: sort order}`. */
const bySortOrder: CursorCodec<GarmentRow, number> = {
  read: (v) => (typeof v.s === 'number' && Number.isInteger(v.s) ? v.s : undefined),
  of: (g) => ({ s: g.sortOrder }),
};

const invalidHint = ', with the same category';

/** One page of the catalogue, optionally of one category; the cursor is bound to the category. */
export async function garmentPage(deps: AppDeps, q: z.infer<typeof garmentListQuery>) {
  const { page, pagination } = await cursorPage(
    { secret: deps.config.appSecret, scope: `garments:${q.category ?? ''}`, codec: bySortOrder, invalidHint },
    { cursor: q.cursor, limit: q.limit ?? DEFAULT_PAGE_LIMIT },
    (afterSort, limit) => findGarments(deps.sql, { category: q.category, afterSort, limit }),
  );
  return { garments: page.map((g) => presentGarment(deps, g)), pagination };
}

/** One garment by id, or 404 not_found. */
export async function garmentById(deps: AppDeps, id: unknown) {
  const [row] = typeof id === 'string' && id.length <= 100 ? await findGarments(deps.sql, { id, limit: 1 }) : [];
  if (!row) throw notFound(`Garment ${JSON.stringify(id)} not found`);
  return presentGarment(deps, row);
}
