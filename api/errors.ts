// Error shapes. Part A (/api/v1) answers {error: {code, message, details?}}; Part B (/api/...) answers a flat
// {error: string} plus optional fields, as the spec's chat and payment routes do.
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { z } from 'zod';
import { IdempotencyKeyLost } from '../db/idempotency';
import { isBadInput } from '../lib/errors';
import { isUrlFetchError } from '../lib/fetch';
import { isImageError } from '../lib/images';

/** Part A error codes (`error.code`); the OpenAPI document lists the same values. */
export const ERROR_CODES = [
  'invalid_request',
  'unauthorized',
  'forbidden',
  'insufficient_tokens',
  'not_found',
  'conflict',
  'idempotency_conflict',
  'idempotency_key_in_use',
  'rate_limited',
  'payload_too_large',
  'storage_quota_exceeded',
  'unsupported_media_type',
  'internal_error',
  'service_unavailable',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }
}

export const badRequest = (message: string, details?: Record<string, unknown>) =>
  new ApiError(400, 'invalid_request', message, details);
export const unauthorized = (message: string, details?: Record<string, unknown>) =>
  new ApiError(401, 'unauthorized', message, details);
export const notFound = (message: string) => new ApiError(404, 'not_found', message);
export const conflict = (message: string) => new ApiError(409, 'conflict', message);
/** 503: the service cannot do it now; the client is told when to try again (Retry-After and `details.retryAfter`). */
export const serviceUnavailable = (message: string, retryAfterS: number) =>
  new ApiError(
    503,
    'service_unavailable',
    message,
    { retryAfter: retryAfterS },
    { 'Retry-After': String(retryAfterS) },
  );

/** Seconds a client is told to wait before retrying a request whose Idempotency-Key another request holds. */
export const IDEMPOTENCY_IN_USE_RETRY_AFTER_S = 2;
export const idempotencyKeyInUse = () =>
  new ApiError(
    409,
    'idempotency_key_in_use',
    'Another request with this Idempotency-Key is still in progress: retry after it has answered',
    { retryAfter: IDEMPOTENCY_IN_USE_RETRY_AFTER_S },
    { 'Retry-After': String(IDEMPOTENCY_IN_USE_RETRY_AFTER_S) },
  );

/** Turns zod issues into a message a client can act on and details listing each field. */
export function fromZod(err: z.ZodError, what = 'request'): ApiError {
  const issues = err.issues.map((i) => ({ field: i.path.join('.') || '(root)', message: i.message }));
  const first = issues[0];
  const message = first
    ? `Invalid ${what}: ${first.field === '(root)' ? '' : `${first.field}: `}${first.message}`
    : `Invalid ${what}`;
  return badRequest(message, { issues });
}

/** Parses with zod or throws a 400 in the envelope. */
export function parse<T extends z.ZodType>(schema: T, value: unknown, what = 'request body'): z.infer<T> {
  const r = schema.safeParse(value);
  if (!r.success) throw fromZod(r.error, what);
  return r.data;
}

const isPartA = (path: string) => path === '/api/v1' || path.startsWith('/api/v1/');

export const notFoundHandler: RequestHandler = (req, _res, next) => {
  next(new ApiError(404, 'not_found', `No route for ${req.method} ${req.path}`));
};

export const errorHandler: ErrorRequestHandler = (err, req, res, _next) => {
  const apiErr = toApiError(err);
  if (apiErr.status >= 500) req.log?.error('request failed', { err, status: apiErr.status });
  if (res.headersSent) {
    res.end();
    return;
  }
  // A static file's headers may already be set (a 412 or 416 from express.static): the body is JSON, not the file,
  // and an error is not to be kept for the file's cache lifetime.
  for (const h of ['Content-Type', 'ETag', 'Last-Modified']) res.removeHeader(h);
  if (res.getHeader('Cache-Control') !== undefined) res.setHeader('Cache-Control', 'no-store');
  for (const [k, v] of Object.entries(apiErr.headers ?? {})) res.setHeader(k, v);
  res.locals.errorCode = apiErr.code; // for the request log (api/middleware/request-log.ts)
  res.status(apiErr.status);
  if (isPartA(req.path) || !req.path.startsWith('/api/')) {
    res.json({
      error: { code: apiErr.code, message: apiErr.message, ...(apiErr.details ? { details: apiErr.details } : {}) },
    });
  } else {
    res.json({ error: apiErr.message, ...(apiErr.details ?? {}) });
  }
};

/**
 * Error codes meaning PostgreSQL could not be reached or dropped the connection (connection refused or cut, the
 * server shutting down or starting up: 57P01-57P03, class 08), as the postgres driver reports them.
 */
const DATABASE_UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  'CONNECT_TIMEOUT',
  '57P01',
  '57P02',
  '57P03',
]);
/** gRPC UNAVAILABLE: the Temporal server could not be reached. */
const GRPC_UNAVAILABLE = 14;

/**
 * True when an error (or one of its causes) says a service the request needs, PostgreSQL or Temporal, is unreachable
 * for the moment: a restart, a failover. Such a request may be retried.
 */
export function isDependencyUnavailable(err: unknown): boolean {
  let e = err as { code?: unknown; cause?: unknown } | undefined;
  for (let depth = 0; e && typeof e === 'object' && depth < 5; depth++, e = e.cause as typeof e) {
    if (e.code === GRPC_UNAVAILABLE) return true;
    if (typeof e.code === 'string' && (DATABASE_UNREACHABLE.has(e.code) || /^08[0-9A-Z]{3}$/.test(e.code))) return true;
  }
  return false;
}

/**
 * Maps anything thrown to an ApiError: a dependency that is unreachable for the moment becomes a 503 with
 * Retry-After (clients and load balancers retry it); other unknown errors a 500 whose message reveals nothing internal.
 */
export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof IdempotencyKeyLost) return idempotencyKeyInUse();
  if (err instanceof z.ZodError) return fromZod(err);
  if (isDependencyUnavailable(err))
    return new ApiError(503, 'service_unavailable', 'Service temporarily unavailable; try again shortly', undefined, {
      'Retry-After': '1',
    });
  const e = err as { type?: string; status?: number; statusCode?: number; expose?: boolean; message?: string };
  // body-parser errors carry a status and a type
  if (e?.type === 'entity.parse.failed') return badRequest('Malformed JSON body');
  if (e?.type === 'entity.too.large') return new ApiError(413, 'payload_too_large', 'Request body too large');
  // the router's decodeURIComponent of a path parameter (status 400, but not marked `expose`)
  if (err instanceof URIError) return badRequest('Malformed percent-encoding in the URL path');
  if (e?.type === 'encoding.unsupported' || e?.type === 'charset.unsupported')
    return badRequest('Unsupported body encoding');
  const status = e?.status ?? e?.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500 && e?.expose)
    return new ApiError(status, 'invalid_request', e.message ?? 'Bad request');
  return new ApiError(500, 'internal_error', 'Internal server error');
}

/**
 * The one mapping of what a client sent that cannot be used to a 400 with its reason and details: an image that does
 * not decode or breaks a limit (ImageError: "<what>: <problem>", or the problem alone without `what`), a URL that
 * cannot be fetched (UrlFetchError: "<what, default url> could not be fetched: <problem>"). Anything else is
 * returned unchanged. (A URL that fails while a request renders with it is not the client's fault once accepted:
 * imageReadError answers that 503, try again.)
 */
export function badInputFrom(err: unknown, what?: string): unknown {
  if (isUrlFetchError(err))
    return badRequest(`${what ?? 'url'} could not be fetched: ${err.message}`, { reason: err.reason, ...err.details });
  if (!isImageError(err)) return err;
  // Lower-case the first letter after `what`, but not an acronym ("SVG images ...").
  const lowered = /^[A-Z][a-z]/.test(err.message)
    ? `${err.message[0]!.toLowerCase()}${err.message.slice(1)}`
    : err.message;
  return badRequest(what ? `${what}: ${lowered}` : err.message, { reason: err.reason, ...err.details });
}

/**
 * An image read while a request renders (preview, print file): input the client can fix (a refused URL, not an
 * image, a limit broken) is 400 "<what>: <problem>"; a URL that cannot be fetched now is the remote side's trouble,
 * 503 with Retry-After 2. Anything else is returned unchanged.
 */
export function imageReadError(err: unknown, what: string): unknown {
  if (isBadInput(err)) return badRequest(`${what}: ${err.message}`);
  if (isUrlFetchError(err) || isUrlFetchError((err as Error | undefined)?.cause))
    return serviceUnavailable(`${what}: ${(err as Error).message}; try again`, 2);
  return err;
}
