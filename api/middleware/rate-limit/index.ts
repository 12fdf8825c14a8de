// Part A limits per API key (spec "Limits"), with account-wide ceilings on top: concurrency slots
// (the key's, the account's, and for POST /analyze the account's analysis slot), then the minute and hour windows,
// each an express-rate-limit instance on a PostgreSQL store, then one middleware that reports the window closest to
// running out in X-RateLimit-*. admit() takes the slots and counts the request in all its windows in one round
// trip, before the limiters read the results and decide.
//
// Order matters because a refused request has already been counted by the windows checked before the refusing
// one, never by those after it. Short windows come first so that a client hammering a per-minute limit does not
// also burn its hour budget, and a key's window comes before its account's, so a key over its own limit does not
// eat into the budget its account's other keys share. The concurrency checks come first so that requests refused
// "at once" cost nothing.
import type { RequestHandler } from 'express';
import { rateLimit, type RateLimitInfo, type RateLimitRequestHandler } from 'express-rate-limit';
import type { Sql } from '../../../db/client';
import { weighWindows } from '../../../db/rate-limits';
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
 * placement preview is asked for on every drag of the dashboard's studio; it must not eat the budget of
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
  counted: Counted;
  limit: number;
  windowMs: number;
  store: PgWindowStore;
  middleware: RateLimitRequestHandler;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/**
 * Who a limit counts for: the request's API key, or its signed-in user (`session:<user id>`, the dashboard); and
 * the account both belong to (the user), for the account-wide ceilings.
 */
interface Limited {
  apiKeyId?: string;
  sessionUserId?: string;
  user?: { id: string };
  /** false for a test key or a session call in test mode: counted in windows of their own */
  livemode?: boolean;
}

/**
 * Test mode counts in windows of its own (docs/rate-limits.md#test-mode): the account's test traffic (its test keys,
 * the dashboard's test-mode calls) has the same limits as its live traffic, in separate counters, so a leaked or
 * runaway test key cannot use up what live clients need.
 */
const modeSuffix = (req: Limited) => (req.livemode === false ? ':test' : '');

type Counted = 'key' | 'account';

/** Requests reach the limiters only after Part A's authentication, so every limit is per API key (or session). */
function apiKeyOf(req: Limited): string {
  if (req.apiKeyId) return req.apiKeyId;
  if (req.sessionUserId) return `session:${req.sessionUserId}${modeSuffix(req)}`;
  throw new Error('rate limiter mounted without Part A authentication in front of it');
}

function accountOf(req: Limited): string {
  if (req.user?.id) return req.user.id + modeSuffix(req);
  throw new Error('rate limiter mounted without Part A authentication in front of it');
}

const whoOf = (req: Limited, counted: Counted) => (counted === 'key' ? apiKeyOf(req) : accountOf(req));

/** A concurrency slot: `scope` names it in a refusal. */
interface SlotLimit {
  scope: 'concurrency' | 'account-concurrency' | 'account-analyze-concurrency';
  limit: number;
  key: (req: Limited) => string;
}
const infoOf = (req: unknown, name: string) => (req as Record<string, RateLimitInfo | undefined>)[propertyName(name)];
const propertyName = (name: string) => `rateLimit:${name}`;

export class RateLimits {
  readonly guard: StoreGuard;
  readonly slots: SlotPool;
  private readonly housekeeping: Housekeeping;
  private readonly minute: WindowLimiter;
  private readonly hour: WindowLimiter;
  private readonly accountMinute: WindowLimiter;
  private readonly accountHour: WindowLimiter;
  private readonly endpoints = new Map<string, WindowLimiter>();
  private readonly chains = new Map<LimitedEndpoint, RequestHandler[]>();

  constructor(
    private readonly deps: RateLimitDeps,
    opts: { slots?: SlotPool } = {},
  ) {
    const rl = deps.config.rateLimit;
    this.guard = new StoreGuard({ timeoutMs: rl.storeTimeoutMs, mode: rl.onStoreError, log: deps.log });
    this.housekeeping = new Housekeeping(deps.sql, this.guard);
    this.slots = opts.slots ?? new PgSlots({ sql: deps.sql, guard: this.guard, leaseMs: rl.leaseMs });
    this.minute = this.window('minute', 'key', rl.perMinute, MINUTE);
    this.hour = this.window('hour', 'key', rl.perHour, HOUR);
    this.accountMinute = this.window('account-minute', 'account', rl.account.perMinute, MINUTE);
    this.accountHour = this.window('account-hour', 'account', rl.account.perHour, HOUR);
  }

  /** The middleware for one endpoint, to mount right after requireApiKey. */
  chain(endpoint: LimitedEndpoint): RequestHandler[] {
    const cached = this.chains.get(endpoint);
    if (cached) return cached;
    const rl = this.deps.config.rateLimit;
    const [keyEndpoint, accountEndpoint] = this.endpointWindows(endpoint);
    const windows = (
      OWN_BUDGET_ONLY.has(endpoint)
        ? [keyEndpoint, accountEndpoint]
        : [keyEndpoint, this.minute, accountEndpoint, this.accountMinute, this.hour, this.accountHour]
    ).filter((w): w is WindowLimiter => w !== undefined);
    const slotLimits: SlotLimit[] = [
      { scope: 'concurrency', limit: rl.concurrency, key: (req) => `concurrency:${apiKeyOf(req)}` },
      {
        scope: 'account-concurrency',
        limit: rl.account.concurrency,
        key: (req) => `account-concurrency:${accountOf(req)}`,
      },
    ];
    // POST /analyze holds a place on the analysis worker pool (shared by every account) while it runs.
    if (endpoint === 'analyze')
      slotLimits.push({
        scope: 'account-analyze-concurrency',
        limit: rl.account.analyzeConcurrency,
        key: (req) => `account-analyze-concurrency:${accountOf(req)}`,
      });
    const pgSlots = this.slots instanceof PgSlots ? this.slots : undefined;
    const admission = admit({
      sql: this.deps.sql,
      guard: this.guard,
      windows: (req) =>
        windows.map((w) => ({ key: w.store.prefix + whoOf(req, w.counted), windowMs: w.windowMs, limit: w.limit })),
      slots: pgSlots && {
        keys: (req) => slotLimits.map((s) => ({ key: s.key(req), limit: s.limit })),
        leaseMs: rl.leaseMs,
        giveBack: (k, id) => pgSlots.giveBack(k, id),
      },
    });
    const concurrency = slotLimits.map((s) =>
      concurrencyLimiter({
        pool: this.slots,
        limit: s.limit,
        key: s.key,
        refuse: async (req) =>
          rateLimited({
            scope: s.scope,
            limit: s.limit,
            // Slots free up as responses end; a second is the shortest wait worth advising.
            retryAfter: 1,
            reported: closestToRunningOut(await Promise.all(windows.map((w) => peek(w, whoOf(req, w.counted))))),
          }),
      }),
    );
    const chain = [admission, ...concurrency, ...windows.map((w) => w.middleware), reportClosest(windows)];
    this.chains.set(endpoint, chain);
    return chain;
  }

  /**
   * Counts `extra` more hits of the endpoint's per-minute windows (the key's and the account's) for this request, so
   * a request doing the work of N (a batch of N items) costs N against them. When they do not fit in both, nothing
   * more is counted and the request is refused with 429 rate_limited naming the window. Returns the state of the
   * one closer to running out after the weighing (undefined when there is nothing to weigh, or the windows live only
   * in this process because the database was unavailable).
   */
  async weigh(req: Limited, endpoint: LimitedEndpoint, extra: number): Promise<WindowState | undefined> {
    const ws = this.endpointWindows(endpoint).filter((w): w is WindowLimiter => w !== undefined);
    if (ws.length === 0 || extra <= 0) return undefined;
    const keys = ws.map((w) => w.store.prefix + whoOf(req, w.counted));
    const rows = await weighWindows(
      this.deps.sql,
      keys,
      ws.map((w) => w.limit),
      extra,
    );
    const states: WindowState[] = [];
    for (const row of rows) {
      const w = ws[keys.indexOf(row.key)]!;
      const resetTime = new Date(Date.now() + row.msLeft);
      if (!row.fits && row.hits + extra > w.limit) {
        throw rateLimited({
          scope: w.name,
          limit: w.limit,
          retryAfter: secondsUntil(resetTime),
          reported: { name: w.name, limit: w.limit, remaining: Math.max(0, w.limit - row.hits), resetTime },
        });
      }
      states.push({ name: w.name, limit: w.limit, remaining: Math.max(0, w.limit - row.hits), resetTime });
    }
    return closestToRunningOut(states);
  }

  /** The endpoint's per-minute windows: the key's, then the account's (none for `other`). */
  private endpointWindows(endpoint: LimitedEndpoint): [WindowLimiter | undefined, WindowLimiter | undefined] {
    if (endpoint === 'other') return [undefined, undefined];
    const rl = this.deps.config.rateLimit;
    return [
      this.endpointWindow(`${endpoint}-minute`, 'key', rl.endpointPerMinute[endpoint]),
      this.endpointWindow(`account-${endpoint}-minute`, 'account', rl.account.endpointPerMinute[endpoint]),
    ];
  }

  private endpointWindow(name: string, counted: Counted, limit: number): WindowLimiter {
    let w = this.endpoints.get(name);
    if (!w) {
      w = this.window(name, counted, limit, MINUTE);
      this.endpoints.set(name, w);
    }
    return w;
  }

  private window(name: string, counted: Counted, limit: number, windowMs: number): WindowLimiter {
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
      keyGenerator: (req) => whoOf(req, counted),
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
    return { name, counted, limit, windowMs, store, middleware };
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
