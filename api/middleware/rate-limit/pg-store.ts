// express-rate-limit Store on PostgreSQL: fixed windows counted with an atomic upsert (rate_limit_hit in
// db/migrations/004_rate_limits.sql), so every API instance on the database draws from the same budget. One
// store instance per limiter (the library insists); `prefix` names the window so keys never collide.
// Behind admit() the count was already made for all of the request's windows in one round trip and increment()
// only picks up its result; on its own, increment() makes its own round trip.
import type { ClientRateLimitInfo, IncrementResponse, Options, Store } from 'express-rate-limit';
import type { Sql } from '../../../db/client';
import { hitWindows, purgeRateLimits, resetWindow, takeBackHit, windowHits } from '../../../db/rate-limits';
import { currentAdmission, toIncrement } from './admit';
import { MemoryWindows } from './memory';
import type { StoreGuard } from './store-guard';

/** Shared by the stores of one process: purges idle rows every `everyMs`, piggybacking on traffic (no timers). */
export class Housekeeping {
  private last: number;

  constructor(
    private readonly sql: Sql,
    private readonly guard: StoreGuard,
    private readonly everyMs = 5 * 60_000,
    private readonly now: () => number = Date.now,
  ) {
    // Start the clock at creation so short-lived processes (tests, scripts) never purge at start-up.
    this.last = this.now();
  }

  tick(): void {
    const now = this.now();
    if (now - this.last < this.everyMs) return;
    this.last = now;
    this.guard.background('purge', () => this.purge());
  }

  async purge(): Promise<void> {
    // A row whose window ended is dead weight: the next hit of its key recreates it.
    await purgeRateLimits(this.sql);
  }
}

export class PgWindowStore implements Store {
  readonly localKeys = false;
  readonly prefix: string;
  windowMs: number;
  private local: MemoryWindows;

  constructor(
    private readonly opts: {
      sql: Sql;
      guard: StoreGuard;
      prefix: string;
      windowMs: number;
      housekeeping?: Housekeeping;
    },
  ) {
    this.prefix = opts.prefix;
    this.windowMs = opts.windowMs;
    this.local = new MemoryWindows(opts.windowMs);
  }

  init(options: Options): void {
    if (options.windowMs !== this.windowMs) {
      this.windowMs = options.windowMs;
      this.local = new MemoryWindows(options.windowMs);
    }
  }

  async increment(key: string): Promise<IncrementResponse> {
    const k = this.prefix + key;
    this.opts.housekeeping?.tick();
    const admission = currentAdmission();
    if (admission === 'unavailable') return this.local.increment(k);
    const counted = admission?.windows.get(k);
    if (counted) {
      admission!.windows.delete(k); // one result serves one increment, as a request counts once per window
      return counted;
    }
    // A single window never stops early, so its limit does not matter to the query (an int there: the largest).
    const r = await this.opts.guard.run('increment', () =>
      hitWindows(this.opts.sql, [{ key: k, windowMs: this.windowMs, limit: 2_147_483_647 }]),
    );
    if (!r.ok) return this.local.increment(k);
    return toIncrement(r.value[0]!);
  }

  async get(key: string): Promise<ClientRateLimitInfo | undefined> {
    const k = this.prefix + key;
    const r = await this.opts.guard.run('get', () => windowHits(this.opts.sql, k));
    if (!r.ok) return this.local.get(k);
    const row = r.value;
    return row ? { totalHits: row.hits, resetTime: new Date(Date.now() + row.msLeft) } : undefined;
  }

  async decrement(key: string): Promise<void> {
    const k = this.prefix + key;
    this.local.decrement(k);
    await this.opts.guard.run('decrement', () => takeBackHit(this.opts.sql, k));
  }

  async resetKey(key: string): Promise<void> {
    const k = this.prefix + key;
    this.local.delete(k);
    await this.opts.guard.run('reset', () => resetWindow(this.opts.sql, k));
  }
}
