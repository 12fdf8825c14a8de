// Part A limits per API key (spec "Limits", issue 5): a concurrency slot, then the endpoint's own minute window
// (if it has one), the key's minute window and the key's hour window, each an express-rate-limit instance on a
// PostgreSQL store, then one middleware that reports the window closest to running out in X-RateLimit-*.
// admit() takes the slot and counts the request in all its windows in one round trip, before the limiters read
// the results and decide.
//
// Order matters because a refused request has already been counted by the windows checked before the refusing
// one, never by those after it. Short windows come first so that a client hammering a per-minute limit does not
// also burn its hour budget; the concurrency check comes first so that requests refused "at once" cost nothing.
import type { RequestHandler } from 'express';
import { rateLimit, type RateLimitInfo, type RateLimitRequestHandler } from 'express-rate-limit';
import type { Sql } from '../../../db/client';
import type { Config } from '../../../lib/config';
import type { Logger } from '../../../lib/log';
import { admit } from './admit';
import { concurrencyLimiter } from './concurrency';
import type { SlotPool } from './memory';
import { PgSlots } from './pg-slots';
import { Housekeeping, PgWindowStore } from './pg-store';
import { closestToRunningOut, rateLimited, rateLimitHeaders, secondsUntil, type WindowState } from './report';
import { StoreGuard } from './store-guard';

export type LimitedEndpoint = 'generate' | 'analyze' | 'garments' | 'upload' | 'preview' | 'other';

/**
 * Endpoints with a budget of their own only: they are not counted in the key's minute and hour windows. The free
 * placement preview (issue 15) is asked for on every drag of the dashboard's studio; it must not eat the budget of
 * the calls that do work (its own 120 a minute bounds it).
 */
const OWN_BUDGET_ONLY: ReadonlySet<LimitedEndpoint> = new Set(['preview']);

export interface RateLimitDeps {
  config: Pick<Config, 'rateLimit'>;
  sql: Sql;
  log: Logger;
}

interface WindowLimiter {
  name: string;
  limit: number;
  windowMs: number;
  store: PgWindowStore;
  middleware: RateLimitRequestHandler;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** Who a limit counts for: the request's API key, or its signed-in user (`session:<user id>`, the dashboard). */
interface Limited {
  apiKeyId?: string;
  sessionUserId?: string;
}

/** Requests reach the limiters only after Part A's authentication, so every limit is per API key (or session). */
function apiKeyOf(req: Limited): string {
  if (req.apiKeyId) return req.apiKeyId;
  if (req.sessionUserId) return `session:${req.sessionUserId}`;
  throw new Error('rate limiter mounted without Part A authentication in front of it');
}

const slotKey = (req: Limited) => `concurrency:${apiKeyOf(req)}`;
const infoOf = (req: unknown, name: string) => (req as Record<string, RateLimitInfo | undefined>)[propertyName(name)];
const propertyName = (name: string) => `rateLimit:${name}`;

export class RateLimits {
  readonly guard: StoreGuard;
  readonly slots: SlotPool;
  private readonly housekeeping: Housekeeping;
  private readonly minute: WindowLimiter;
  private readonly hour: WindowLimiter;
  private readonly endpoints = new Map<LimitedEndpoint, WindowLimiter>();
  private readonly chains = new Map<LimitedEndpoint, RequestHandler[]>();

  constructor(
    private readonly deps: RateLimitDeps,
    opts: { slots?: SlotPool } = {},
  ) {
    const rl = deps.config.rateLimit;
    this.guard = new StoreGuard({ timeoutMs: rl.storeTimeoutMs, mode: rl.onStoreError, log: deps.log });
    this.housekeeping = new Housekeeping(deps.sql, this.guard);
    this.slots = opts.slots ?? new PgSlots({ sql: deps.sql, guard: this.guard, leaseMs: rl.leaseMs });
    this.minute = this.window('minute', rl.perMinute, MINUTE);
    this.hour = this.window('hour', rl.perHour, HOUR);
  }

  /** The middleware for one endpoint, to mount right after requireApiKey. */
  chain(endpoint: LimitedEndpoint): RequestHandler[] {
    const cached = this.chains.get(endpoint);
    if (cached) return cached;
    const rl = this.deps.config.rateLimit;
    const shared = OWN_BUDGET_ONLY.has(endpoint) ? [] : [this.minute, this.hour];
    const windows = [this.endpointWindow(endpoint), ...shared].filter((w): w is WindowLimiter => w !== undefined);
    const pgSlots = this.slots instanceof PgSlots ? this.slots : undefined;
    const admission = admit({
      sql: this.deps.sql,
      guard: this.guard,
      windows: (req) =>
        windows.map((w) => ({ key: w.store.prefix + apiKeyOf(req), windowMs: w.windowMs, limit: w.limit })),
      slot: pgSlots && {
        key: slotKey,
        limit: rl.concurrency,
        leaseMs: rl.leaseMs,
        giveBack: (k, id) => pgSlots.giveBack(k, id),
      },
    });
    const concurrency = concurrencyLimiter({
      pool: this.slots,
      limit: rl.concurrency,
      key: slotKey,
      refuse: async (req) =>
        rateLimited({
          scope: 'concurrency',
          limit: rl.concurrency,
          // Slots free up as responses end; a second is the shortest wait worth advising.
          retryAfter: 1,
          reported: closestToRunningOut(await Promise.all(windows.map((w) => peek(w, apiKeyOf(req))))),
        }),
    });
    const chain = [admission, concurrency, ...windows.map((w) => w.middleware), reportClosest(windows)];
    this.chains.set(endpoint, chain);
    return chain;
  }

  /**
   * Counts `extra` more hits of the endpoint's per-minute window for this request's key, so a request doing the
   * work of N (a batch of N items) costs N against it. When they do not fit, nothing more is counted and the request
   * is refused with 429 rate_limited naming the window. Returns the window's state after the weighing (undefined
   * when there is nothing to weigh, or the window lives only in this process because the database was unavailable).
   */
  async weigh(req: Limited, endpoint: LimitedEndpoint, extra: number): Promise<WindowState | undefined> {
    const w = this.endpointWindow(endpoint);
    if (!w || extra <= 0) return undefined;
    const key = w.store.prefix + apiKeyOf(req);
    const [row] = await this.deps.sql<{ hits: number; msLeft: number; fits: boolean }[]>`
      with added as (
        update rate_limit_hits set hits = hits + ${extra}
        where key = ${key} and reset_at > now() and hits + ${extra} <= ${w.limit}
        returning hits, (extract(epoch from reset_at - now()) * 1000)::float8 as ms_left
      )
      select hits, ms_left as "msLeft", true as fits from added
      union all
      select hits, (extract(epoch from reset_at - now()) * 1000)::float8, false from rate_limit_hits
      where key = ${key} and reset_at > now() and not exists (select 1 from added)`;
    if (!row) return undefined;
    const resetTime = new Date(Date.now() + row.msLeft);
    if (!row.fits) {
      throw rateLimited({
        scope: w.name,
        limit: w.limit,
        retryAfter: secondsUntil(resetTime),
        reported: { name: w.name, limit: w.limit, remaining: Math.max(0, w.limit - row.hits), resetTime },
      });
    }
    return { name: w.name, limit: w.limit, remaining: Math.max(0, w.limit - row.hits), resetTime };
  }

  private endpointWindow(endpoint: LimitedEndpoint): WindowLimiter | undefined {
    if (endpoint === 'other') return undefined;
    let w = this.endpoints.get(endpoint);
    if (!w) {
      w = this.window(`${endpoint}-minute`, this.deps.config.rateLimit.endpointPerMinute[endpoint], MINUTE);
      this.endpoints.set(endpoint, w);
    }
    return w;
  }

  private window(name: string, limit: number, windowMs: number): WindowLimiter {
    const { sql, log } = this.deps;
    const store = new PgWindowStore({
      sql,
      guard: this.guard,
      prefix: `${name}:`,
      windowMs,
      housekeeping: this.housekeeping,
    });
    const middleware = rateLimit({
      windowMs,
      limit,
      store,
      // Each limiter would report only its own window; reportClosest() writes the headers once for all of them.
      legacyHeaders: false,
      standardHeaders: false,
      requestPropertyName: propertyName(name),
      keyGenerator: apiKeyOf,
      // The store never fails in `local` mode and throws a 503 in `closed` mode; nothing is let through silently.
      passOnStoreError: false,
      handler: (req, _res, next) => {
        const resetTime = infoOf(req, name)?.resetTime ?? new Date(Date.now() + windowMs);
        next(
          rateLimited({
            scope: name,
            limit,
            retryAfter: secondsUntil(resetTime),
            reported: { name, limit, remaining: 0, resetTime },
          }),
        );
      },
      logger: {
        error: (err, msg) => log.error(msg ?? 'express-rate-limit error', { err }),
        warn: (err, msg) => log.warn(msg ?? 'express-rate-limit warning', { err }),
      },
    });
    return { name, limit, windowMs, store, middleware };
  }
}

/** The state of a window after this request was counted. */
function counted(req: unknown, w: WindowLimiter): WindowState | undefined {
  const info = infoOf(req, w.name);
  if (!info) return undefined;
  return {
    name: w.name,
    limit: w.limit,
    remaining: info.remaining,
    resetTime: info.resetTime ?? new Date(Date.now() + w.windowMs),
  };
}

/** The state of a window without counting a request (a key with no live window has its whole budget). */
async function peek(w: WindowLimiter, key: string): Promise<WindowState> {
  const info = await w.middleware.getKey(key);
  if (!info) return { name: w.name, limit: w.limit, remaining: w.limit, resetTime: new Date(Date.now() + w.windowMs) };
  return {
    name: w.name,
    limit: w.limit,
    remaining: Math.max(0, w.limit - info.totalHits),
    resetTime: info.resetTime ?? new Date(Date.now() + w.windowMs),
  };
}

function reportClosest(windows: WindowLimiter[]): RequestHandler {
  return (req, res, next) => {
    const w = closestToRunningOut(windows.map((x) => counted(req, x)).filter((x): x is WindowState => x !== undefined));
    if (w) for (const [k, v] of Object.entries(rateLimitHeaders(w))) res.setHeader(k, v);
    next();
  };
}

// One set of limiters per app (per deps object): every route shares its key's budgets and the per-process
// fallback counters, however many routers call partA().
const perDeps = new WeakMap<object, RateLimits>();

export function rateLimitsFor(deps: RateLimitDeps): RateLimits {
  let limits = perDeps.get(deps);
  if (!limits) {
    limits = new RateLimits(deps);
    perDeps.set(deps, limits);
  }
  return limits;
}
