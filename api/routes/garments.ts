// Part A garment catalogue (spec "Garment", GET /garments, GET /garments/<id>). Free, but needs a key.
import { Router } from 'express';
import { decodeCursor, encodeCursor } from '../../lib/cursor';
import { findGarments } from '../../db/garments';
import { presentGarment } from '../http/present';
import type { AppDeps } from '../context';
import { badRequest, notFound, parse } from '../errors';
import { partA } from '../middleware/part-a';
import { garmentListQuery } from '../http/schemas';
import { DEFAULT_PAGE_LIMIT } from '../pagination';

export function garmentRoutes(deps: AppDeps): Router {
  const r = Router();
  const auth = partA(deps, 'garments');

  r.get('/garments', ...auth, async (req, res) => {
    const q = parse(garmentListQuery, req.query, 'query');
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
    const rows = await findGarments(deps.sql, { category: q.category, afterSort, limit: limit + 1 });
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
    const [row] = typeof id === 'string' && id.length <= 100 ? await findGarments(deps.sql, { id, limit: 1 }) : [];
    if (!row) throw notFound(`Garment ${JSON.stringify(id)} not found`);
    res.json(presentGarment(deps, row));
  });

  return r;
}
