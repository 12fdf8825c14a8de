// The garments a generation names, kept in this API process for a short while: the catalogue is written when the
// stack is seeded (db/seed), not by requests, so reading it from PostgreSQL on every POST /generate (a query with
// two aggregates) bought nothing but a round trip. A garment that is not found is not kept, and a kept one is read
// again after GARMENT_CACHE_MS, so a re-seeded catalogue is seen within that time.
import { getGarment, type GarmentRow } from '../../db/garments';
import type { AppDeps } from '../context';

export const GARMENT_CACHE_MS = 30_000;

const perDeps = new WeakMap<object, Map<string, { row: GarmentRow; at: number }>>();

export async function cachedGarment(deps: Pick<AppDeps, 'sql'>, id: string): Promise<GarmentRow | undefined> {
  let cache = perDeps.get(deps);
  if (!cache) perDeps.set(deps, (cache = new Map()));
  const hit = cache.get(id);
  const now = Date.now();
  if (hit && now - hit.at < GARMENT_CACHE_MS) return hit.row;
  const row = await getGarment(deps.sql, id);
  if (row) {
    // the catalogue holds a few dozen garments; anything else asked for is not found and not kept
    cache.set(id, { row, at: now });
  } else cache.delete(id);
  return row;
}
