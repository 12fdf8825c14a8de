import type { Request, RequestHandler, Response } from 'express';
import { requireKeyOrSession } from '../auth/api-keys';
import type { AppDeps } from '../context';
import { rateLimitsFor, type LimitedEndpoint } from './rate-limit';
import { recordRequest } from './request-log';
import { rateLimitHeaders } from './rate-limit/report';

/** Endpoints with their own per-key budget (spec "Limits"); everything else shares the general budget only. */
export type { LimitedEndpoint };

/**
 * The chain in front of every keyed Part A route: the request log's recorder (./request-log), API-key authentication (or the dashboard's session cookie, see
 * requireKeyOrSession), then the key's concurrency slot and rate windows (see ./rate-limit). Routes use this instead of composing the pieces themselves.
 * Both GET /garments and GET /garments/<id> pass 'garments': they share the catalogue's budget, so fetching the
 * catalogue item by item costs the same as paging through it.
 */
export function partA(deps: AppDeps, endpoint: LimitedEndpoint = 'other'): RequestHandler[] {
  return [recordRequest(deps), requireKeyOrSession(deps), ...rateLimitsFor(deps).chain(endpoint)];
}

/**
 * A request that does the work of `units` (a batch of N generations) counts `units` against the endpoint's
 * per-minute window, not one: the chain counted one, this counts the rest, or refuses 429 without counting them.
 * The X-RateLimit-* headers then report that window when it is now the closest to running out.
 */
export async function weighRequest(
  deps: AppDeps,
  req: Request,
  res: Response,
  endpoint: LimitedEndpoint,
  units: number,
): Promise<void> {
  const w = await rateLimitsFor(deps).weigh(req, endpoint, units - 1);
  const reported = Number(res.getHeader('X-RateLimit-Remaining'));
  if (w && !(reported <= w.remaining)) for (const [k, v] of Object.entries(rateLimitHeaders(w))) res.setHeader(k, v);
}
