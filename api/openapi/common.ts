// The pieces every part of the OpenAPI document uses (api/openapi/document.ts and its per-resource modules): the JSON
// response, the error envelopes with their texts, the security schemes and the keyed headers.
import type { OpenAPIRegistry, ResponseConfig, RouteConfig } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import * as R from '../http/resources';
import * as A from '../http/schemas';
import { MODE_HEADER, modeHeader } from '../http/mode';

export type Responses = RouteConfig['responses'];
type Security = NonNullable<RouteConfig['security']>;

export const json = (schema: z.ZodType, description: string, headers?: ResponseConfig['headers']): ResponseConfig => ({
  description,
  content: { 'application/json': { schema } },
  ...(headers ? { headers } : {}),
});

export const ref = (name: string) => ({ $ref: `#/components/headers/${name}` });

/** Every keyed Part A answer carries the closest rate window and the balance. */
export const KEYED_HEADERS = {
  'X-RateLimit-Limit': ref('X-RateLimit-Limit'),
  'X-RateLimit-Remaining': ref('X-RateLimit-Remaining'),
  'X-RateLimit-Reset': ref('X-RateLimit-Reset'),
  'X-Tokens-Remaining': ref('X-Tokens-Remaining'),
};

const ERROR_TEXT: Record<number, string> = {
  400: 'invalid_request: the body, query or path is not valid (details.issues lists each field)',
  401: 'unauthorized: key (or session) missing, invalid, revoked or expired (details.reason for the last two)',
  402: 'insufficient_tokens: details.required and details.available',
  403: 'forbidden: "Cross-site request refused" (a session-authenticated call that changes something, from another origin)',
  404: 'not_found',
  409: 'conflict',
  413: 'payload_too_large; on upload also storage_quota_exceeded (details.usedBytes, requiredBytes, limitBytes)',
  429:
    'rate_limited: details.retryAfter and the Retry-After header carry the seconds to wait (details.scope ' +
    '`test-generations-day`: the daily test-mode budget)',
  502: 'service_unavailable: an outside service (the shop) refused or could not be reached',
  503: 'service_unavailable: at capacity or a dependency is down; Retry-After says when to retry',
};

/** Part A errors: the {error: {code, message, details?}} envelope. */
export function partAErrors(...statuses: number[]): Responses {
  const out: Responses = {};
  for (const s of statuses) {
    out[s] = json(
      R.partAError,
      ERROR_TEXT[s] ?? 'error',
      s === 429 || s === 503 ? { 'Retry-After': ref('Retry-After'), ...(s === 429 ? KEYED_HEADERS : {}) } : undefined,
    );
  }
  return out;
}

/** Part B errors: flat {error: string}. */
export function partBErrors(...statuses: number[]): Responses {
  const out: Responses = {};
  for (const s of statuses)
    out[s] = json(R.partBError, s === 401 ? 'Unauthorized: no valid session' : (ERROR_TEXT[s] ?? 'error'));
  return out;
}

export const KEY_OR_SESSION: Security = [{ bearerKey: [] }, { sessionCookie: [] }];
export const SESSION: Security = [{ sessionCookie: [] }];
export const PUBLIC: Security = [];

/** Keyed routes also take the dashboard's X-Mockup-Mode header (test mode, docs/test-mode.md). */
export function withModeHeader(r: RouteConfig): RouteConfig {
  if (r.security !== KEY_OR_SESSION) return r;
  const mode = { [MODE_HEADER]: modeHeader.optional() };
  const headers = r.request?.headers;
  if (Array.isArray(headers)) return r;
  const merged = headers instanceof z.ZodObject ? headers.extend(mode) : z.object(mode);
  return { ...r, request: { ...r.request, headers: merged } };
}

/** How a per-resource module registers a route: keyed ones get the mode header. */
export const routePath = (registry: OpenAPIRegistry) => (r: RouteConfig) => registry.registerPath(withModeHeader(r));

/** The errors every keyed Part A route may answer, plus the route's own. */
export const keyed = (statuses: number[]) => partAErrors(401, 403, 429, ...statuses);

// ---------------------------------------------------------------- Idempotency-Key (upload, generate, batch, chat)
export const idempotencyHeaders = z.object({ 'Idempotency-Key': A.idempotencyKeyHeader.optional() });
export const REPLAYABLE_HEADERS = { ...KEYED_HEADERS, 'Idempotent-Replayed': ref('Idempotent-Replayed') };
export const idempotencyErrors: Responses = {
  409: json(
    R.partAError,
    'idempotency_conflict: the Idempotency-Key was used for a different request within 24 hours; ' +
      'idempotency_key_in_use: a request with this key is still running (Retry-After)',
    { 'Retry-After': ref('Retry-After') },
  ),
};
