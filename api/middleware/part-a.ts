import type { RequestHandler } from 'express';
import { requireApiKey } from '../auth/api-keys';
import type { AppDeps } from '../context';

/** Endpoints with their own per-key budget (spec "Limits"); everything else shares the general budget only. */
export type LimitedEndpoint = 'generate' | 'analyze' | 'garments' | 'upload' | 'other';

/**
 * The chain in front of every keyed Part A route: API-key authentication, then (issue 5) rate and concurrency
 * limits for the key and the endpoint. Routes use this instead of composing the pieces themselves.
 */
export function partA(deps: AppDeps, _endpoint: LimitedEndpoint = 'other'): RequestHandler[] {
  return [requireApiKey(deps)];
}
