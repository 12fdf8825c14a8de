// Part A garment catalogue (spec "Garment", GET /garments, GET /garments/<id>). Free, but needs a key.
import { Router } from 'express';
import { findGarments, type GarmentRow } from '../../db/garments';
import { presentGarment } from '../http/present';
import type { AppDeps } from '../context';
import { notFound, parse } from '../errors';
import { partA } from '../middleware/part-a';
import { garmentListQuery } from '../http/schemas';
import { cursorPage, DEFAULT_PAGE_LIMIT, type CursorCodec } from '../pagination';

/** Catalogue order: `{s: sort order}`. */
const bySortOrder: CursorCodec<GarmentRow, number> = {
  read: (v) => (typeof v.s === 'number' && Number.isInteger(v.s) ? v.s : undefined),
  of: (g) => ({ s: g.sortOrder }),
};

const invalidHint = ', with the same category';

export function garmentRoutes(deps: AppDeps): Router {
  const r = Router();
  const auth = partA(deps, 'garments');

  r.get('/garments', ...auth, async (req, res) => {
    const q = parse(garmentListQuery, req.query, 'query');
    const { page, pagination } = await cursorPage(
      { secret: deps.config.appSecret, scope: `garments:${q.category ?? ''}`, codec: bySortOrder, invalidHint },
      { cursor: q.cursor, limit: q.limit ?? DEFAULT_PAGE_LIMIT },
      (afterSort, limit) => findGarments(deps.sql, { category: q.category, afterSort, limit }),
    );
    res.json({ garments: page.map((g) => presentGarment(deps, g)), pagination });
  });

  r.get('/garments/:garmentId', ...auth, async (req, res) => {
    const id = req.params.garmentId;
    const [row] = typeof id === 'string' && id.length <= 100 ? await findGarments(deps.sql, { id, limit: 1 }) : [];
    if (!row) throw notFound(`Garment ${JSON.stringify(id)} not found`);
    res.json(presentGarment(deps, row));
  });

  return r;
}
