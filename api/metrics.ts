// The API's Prometheus metrics (prom-client): request durations by route pattern, requests in flight, rate-limit
// refusals, idempotent replays, tokens the API debits, and Node's process metrics. GET /metrics answers loopback
// callers, and others only with `Authorization: Bearer <METRICS_TOKEN>` when METRICS_TOKEN is set; anyone else gets
// the ordinary 404, so the route is invisible (it is not in the OpenAPI document either).
import { createHash, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import type { ErrorRequestHandler, Request, RequestHandler } from 'express';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { TokenDirection } from '../lib/metrics';
import { ApiError } from './errors';

/** Every metric name the API exports itself, besides prom-client's default process and Node.js metrics. */
export const API_METRICS = {
  requestDuration: 'http_request_duration_seconds',
  inFlight: 'http_requests_in_flight',
  rateLimited: 'http_rate_limited_total',
  idempotentReplays: 'http_idempotent_replays_total',
  tokens: 'mockup_tokens_total',
} as const;

/** The label of requests no route answered (404s, static files): never the raw path, which may hold anything. */
export const UNMATCHED_ROUTE = '(unmatched)';

// Node's process metrics are the process's, not an app's: collected once, into their own registry, which every
// app's scrape merges with its own (tests build several apps in one process).
let processRegistry: Registry | undefined;
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

export interface ApiMetrics {
  registry: Registry;
  /** Times every request and counts the ones in flight; labels the route pattern once the answer is sent. */
  observe: RequestHandler;
  /** Counts 429 refusals by the limit that refused (before the error handler answers). */
  observeErrors: ErrorRequestHandler;
  /** GET /metrics, gated as the file header says. */
  endpoint(token: string | undefined): RequestHandler;
  tokens(direction: TokenDirection, amount: number): void;
}

const MATCHED = Symbol('matched route');
type Matched = { [MATCHED]?: string };

/** The route pattern that answered, e.g. `/api/v1/generations/:generationId`. */
export function routePattern(req: Request): string {
  if (typeof req.res?.locals.route === 'string') return req.res.locals.route;
  const matched = (req as Request & Matched)[MATCHED];
  if (matched !== undefined) return matched;
  const route = (req as { route?: { path?: unknown } }).route;
  return route ? patternOf(req.baseUrl, route) : UNMATCHED_ROUTE;
}

function patternOf(baseUrl: string, route: { path?: unknown }): string {
  if (route.path === undefined) return UNMATCHED_ROUTE;
  const path = Array.isArray(route.path) ? route.path.map(String).join('|') : String(route.path);
  return `${baseUrl}${path === '/' && baseUrl ? '' : path}` || '/';
}

/**
 * Keeps the full pattern of the route that matched, taken when the router sets `req.route` (its mount path is then
 * in `req.baseUrl`): an error passed on to the app's error handler leaves the router, which restores `baseUrl`.
 */
function rememberRoute(req: Request): void {
  let route: unknown;
  Object.defineProperty(req, 'route', {
    configurable: true,
    enumerable: true,
    get: () => route,
    set(v: { path?: unknown } | undefined) {
      route = v;
      if (v) (req as Request & Matched)[MATCHED] = patternOf(req.baseUrl, v);
    },
  });
}

export function createApiMetrics(): ApiMetrics {
  const registry = new Registry();
  const duration = new Histogram({
    name: API_METRICS.requestDuration,
    help: 'HTTP request duration by method, route pattern and status code',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [registry],
  });
  const inFlight = new Gauge({
    name: API_METRICS.inFlight,
    help: 'HTTP requests being answered',
    registers: [registry],
  });
  const rateLimited = new Counter({
    name: API_METRICS.rateLimited,
    help: 'Requests refused with 429 rate_limited, by the limit that refused them',
    labelNames: ['limit'] as const,
    registers: [registry],
  });
  const replays = new Counter({
    name: API_METRICS.idempotentReplays,
    help: 'Answers replayed for a repeated Idempotency-Key, by route pattern',
    labelNames: ['route'] as const,
    registers: [registry],
  });
  const tokens = new Counter({
    name: API_METRICS.tokens,
    help: 'Tokens moved by the API (debits taken when a generation or a chat job is requested), by direction',
    labelNames: ['direction'] as const,
    registers: [registry],
  });

  const observe: RequestHandler = (req, res, next) => {
    const end = duration.startTimer();
    rememberRoute(req);
    inFlight.inc();
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      inFlight.dec();
      const route = routePattern(req);
      end({ method: req.method, route, status_code: String(res.statusCode) });
      if (res.getHeader('Idempotent-Replayed') === 'true') replays.inc({ route });
    };
    res.once('finish', finish);
    res.once('close', finish);
    next();
  };

  const observeErrors: ErrorRequestHandler = (err, req, _res, next) => {
    if (err instanceof ApiError && err.status === 429) {
      const scope = err.details?.scope;
      rateLimited.inc({ limit: typeof scope === 'string' ? scope : routePattern(req) });
    }
    next(err);
  };

  return {
    registry,
    observe,
    observeErrors,
    endpoint: (token) => async (req, res, next) => {
      if (req.path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) return next();
      if (!allowed(req, token)) return next(); // on to the 404 handler, as for any unknown path
      res.locals.route = '/metrics';
      const merged = Registry.merge([processMetrics(), registry]);
      res.setHeader('Content-Type', merged.contentType);
      res.setHeader('Cache-Control', 'no-store');
      res.end(await merged.metrics());
    },
    tokens: (direction, amount) => {
      if (amount > 0) tokens.inc({ direction }, amount);
    },
  };
}

/** Headers a proxy adds to say whose request it passes on. */
const FORWARDING_HEADERS = ['x-forwarded-for', 'forwarded', 'x-real-ip', 'x-client-ip', 'true-client-ip'];

/**
 * A loopback caller, or the bearer token compared in constant time. Loopback is the socket's remote address, never
 * what a proxy header says (with TRUST_PROXY a client can write any X-Forwarded-For), and a request that a proxy on
 * this machine passes on (it carries a forwarding header) is not loopback either (docs/operations.md#metrics).
 */
function allowed(req: Request, token: string | undefined): boolean {
  if (isLoopback(req.socket.remoteAddress) && !FORWARDING_HEADERS.some((h) => req.headers[h] !== undefined))
    return true;
  if (!token) return false;
  const m = /^Bearer (.+)$/.exec(req.get('authorization') ?? '');
  if (!m) return false;
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(m[1]!), digest(token));
}

export function isLoopback(ip: string | undefined): boolean {
  if (!ip) return false;
  const v4 = ip.startsWith('::ffff:') ? ip.slice(7) : ip;
  if (isIP(v4) === 4) return v4.startsWith('127.');
  return ip === '::1';
}
