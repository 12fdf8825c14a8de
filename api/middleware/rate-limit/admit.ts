// One round trip per request for all of its limits. A keyed request takes its concurrency slots (its key's, its
// account's, and for POST /analyze its account's analysis slot) and passes up to six windows (endpoint minute, key
// minute and key hour, each per key and per account); asking the database once for each cost about three times as
// much under load as asking once for all (bench/rate-limit.ts). So admit() runs before the limiters, takes the
// slots and counts the windows with rate_limit_admit_slots (admitRequest in db/rate-limits.ts), and runs
// the rest of the chain in an AsyncLocalStorage context where PgSlots and PgWindowStore pick up their results. The
// limiters themselves (the concurrency middleware and the express-rate-limit instances) still make every decision.
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import type { IncrementResponse } from 'express-rate-limit';
import type { Sql } from '../../../db/client';
import { admitRequest, hitWindows, type HitRow, type WindowSpec } from '../../../db/rate-limits';
import type { StoreGuard } from './store-guard';

export interface AdmittedSlot {
  leaseId: string;
  taken: boolean;
  /** Taken, then given back by the database because a later slot was full: the request is refused anyway. */
  givenBack: boolean;
  /** Set once PgSlots has turned it into a lease. */
  used: boolean;
}

export interface Admission {
  /** The slots rate_limit_admit_slots tried to take, by key (slots after a full one are not tried). */
  slots?: Map<string, AdmittedSlot>;
  /** Window results by prefixed key; each is taken out once by its store. */
  windows: Map<string, IncrementResponse>;
}

/** 'unavailable': the database failed and the limiters decide from per-process state. */
const current = new AsyncLocalStorage<Admission | 'unavailable'>();

export const currentAdmission = () => current.getStore();

// The remaining time is computed by the database and turned into a Date here, so a clock difference between the
// database and this host cannot skew X-RateLimit-Reset or Retry-After.
export const toIncrement = (r: HitRow): IncrementResponse => ({
  totalHits: r.outHits,
  resetTime: new Date(Date.now() + r.outMsLeft),
});

export interface AdmitOptions {
  sql: Sql;
  guard: StoreGuard;
  /** Window specs for this request, in checking order. */
  windows: (req: Request) => WindowSpec[];
  /**
   * The concurrency slots to take, in order, when slots live in PostgreSQL. Without them (per-process slots: the
   * benchmark's comparison) only windows are counted here, so a request later refused for concurrency has been
   * counted.
   */
  slots?: {
    keys: (req: Request) => { key: string; limit: number }[];
    leaseMs: number;
    /** Hands back a lease taken by a query that answered after the guard stopped waiting. */
    giveBack: (key: string, leaseId: string) => void;
  };
}

export function admit(opts: AdmitOptions): RequestHandler {
  const { sql, guard, slots } = opts;
  return async (req, _res, next) => {
    const windows = opts.windows(req);
    if (!slots) {
      const r = await guard.run('increment', () => hitWindows(sql, windows));
      current.run(
        r.ok ? { windows: new Map(r.value.map((row) => [row.outKey, toIncrement(row)])) } : 'unavailable',
        next,
      );
      return;
    }
    const wanted = slots.keys(req);
    const leaseId = randomUUID();
    const r = await guard.run(
      'admit',
      () => admitRequest(sql, { slots: wanted, leaseId, leaseMs: slots.leaseMs, windows }),
      (rows) => {
        // Slots are given back by the database when one is full; otherwise each taken one is ours to give back.
        const slotRows = rows.slice(0, wanted.length);
        if (slotRows.every((row) => row.outHits === 1)) for (const row of slotRows) slots.giveBack(row.outKey, leaseId);
      },
    );
    if (!r.ok) {
      current.run('unavailable', next);
      return;
    }
    const slotRows = r.value.slice(0, wanted.length);
    const refused = slotRows.some((row) => row.outHits !== 1);
    const admitted = new Map<string, AdmittedSlot>();
    for (const row of slotRows)
      admitted.set(row.outKey, { leaseId, taken: row.outHits === 1, givenBack: refused, used: false });
    // A request refused for a slot has no window rows: the slot rows are then all there is.
    const windowRows = refused ? [] : r.value.slice(wanted.length);
    current.run({ slots: admitted, windows: new Map(windowRows.map((row) => [row.outKey, toIncrement(row)])) }, next);
  };
}
