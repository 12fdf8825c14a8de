import type { RequestHandler } from 'express';
import { requireApiKey } from '../auth/api-keys';
import type { AppDeps } from '../context';
import { rateLimitsFor, type LimitedEndpoint } from './rate-limit';

/** Endpoints with their own per-key budget (spec "Limits"); everything else shares the general budget only. */
export type { LimitedEndpoint };

/**
 * The chain in front of every keyed Part A route: API-key authentication, then the key's concurrency slot and
 * rate windows (issue 5, see ./rate-limit). Routes use this instead of composing the pieces themselves.
 * Both GET /garments and GET /garments/<id> pass 'garments': they share the catalogue's budget, so fetching the
 * catalogue item by item costs the same as paging through it.
 */
export function partA(deps: AppDeps, endpoint: LimitedEndpoint = 'other'): RequestHandler[] {
  return [requireApiKey(deps), ...rateLimitsFor(deps).chain(endpoint)];
}
