// One round trip per request for all of its limits. A keyed request takes a concurrency slot and passes three
// windows (endpoint minute, key minute, key hour); asking the database once for each cost about three times as
// much under load as asking once for all (bench/rate-limit.ts). So admit() runs before the limiters, takes the
// slot and counts the windows with rate_limit_admit (db/migrations/004_rate_limits.sql), and runs the rest of
// the chain in an AsyncLocalStorage context where PgSlots and PgWindowStore pick up their results. The limiters
// themselves (the concurrency middleware and the express-rate-limit instances) still make every decision.
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import type { IncrementResponse } from 'express-rate-limit';
import type { Sql } from '../../../db/client';
import type { StoreGuard } from './store-guard';

export interface Admission {
  /** The slot rate_limit_admit tried to take; `used` once PgSlots has turned it into a lease. */
  slot?: { key: string; leaseId: string; taken: boolean; used: boolean };
  /** Window results by prefixed key; each is taken out once by its store. */
  windows: Map<string, IncrementResponse>;
}

/** 'unavailable': the database failed and the limiters decide from per-process state. */
const current = new AsyncLocalStorage<Admission | 'unavailable'>();

export const currentAdmission = () => current.getStore();

export interface HitRow {
  outKey: string;
  outHits: number;
  outMsLeft: number;
}

export interface WindowSpec {
  key: string;
  windowMs: number;
  limit: number;
}

// The remaining time is computed by the database and turned into a Date here, so a clock difference between the
// database and this host cannot skew X-RateLimit-Reset or Retry-After.
export const toIncrement = (r: HitRow): IncrementResponse => ({
  totalHits: r.outHits,
  resetTime: new Date(Date.now() + r.outMsLeft),
});

/** Counts one hit in each window, in order, stopping after the first the request exceeds. */
export function hitWindows(sql: Sql, windows: WindowSpec[]) {
  return sql<HitRow[]>`
    select out_key as "outKey", out_hits as "outHits", out_ms_left as "outMsLeft"
    from rate_limit_hit(${windows.map((w) => w.key)}::text[], ${windows.map((w) => w.windowMs)}::int[], ${windows.map((w) => w.limit)}::int[])`;
}

export interface AdmitOptions {
  sql: Sql;
  guard: StoreGuard;
  /** Window specs for this request, in checking order. */
  windows: (req: Request) => WindowSpec[];
  /**
   * The concurrency slot to take, when slots live in PostgreSQL. Without it (per-process slots: the benchmark's
   * comparison) only windows are counted here, so a request later refused for concurrency has been counted.
   */
  slot?: {
    key: (req: Request) => string;
    limit: number;
    leaseMs: number;
    /** Hands back a lease taken by a query that answered after the guard stopped waiting. */
    giveBack: (key: string, leaseId: string) => void;
  };
}

export function admit(opts: AdmitOptions): RequestHandler {
  const { sql, guard, slot } = opts;
  return async (req, _res, next) => {
    const windows = opts.windows(req);
    if (!slot) {
      const r = await guard.run('increment', () => hitWindows(sql, windows));
      current.run(
        r.ok ? { windows: new Map(r.value.map((row) => [row.outKey, toIncrement(row)])) } : 'unavailable',
        next,
      );
      return;
    }
    const slotKey = slot.key(req);
    const leaseId = randomUUID();
    const r = await guard.run(
      'admit',
      () => sql<HitRow[]>`
        select out_key as "outKey", out_hits as "outHits", out_ms_left as "outMsLeft"
        from rate_limit_admit(${slotKey}, ${leaseId}, ${slot.limit}::int, ${slot.leaseMs}::int,
          ${windows.map((w) => w.key)}::text[], ${windows.map((w) => w.windowMs)}::int[], ${windows.map((w) => w.limit)}::int[])`,
      (rows) => {
        if (rows[0]?.outHits === 1) slot.giveBack(slotKey, leaseId);
      },
    );
    if (!r.ok) {
      current.run('unavailable', next);
      return;
    }
    const [first, ...rest] = r.value;
    current.run(
      {
        slot: { key: slotKey, leaseId, taken: first?.outHits === 1, used: false },
        windows: new Map(rest.map((row) => [row.outKey, toIncrement(row)])),
      },
      next,
    );
  };
}
