// Concurrency slots shared by every API instance: one row per key in rate_limit_slots holding the leases of its
// requests in flight (see db/migrations/004_rate_limits.sql). A lease is renewed while its request runs and
// expires otherwise, so slots held by an instance that crashed come back after RATE_LIMIT_LEASE_SECONDS.
// Expiry times are the database's clock in epoch milliseconds, so API hosts' clocks never matter.
// Behind admit() the slot was already taken (or refused) in the request's one round trip; acquire() turns that
// result into a lease. On its own, acquire() makes its own round trip. Releases are queued and sent together
// once per event-loop turn, so under load many requests' releases share one statement.
import { randomUUID } from 'node:crypto';
import type { Sql } from '../../../db/client';
import { acquireSlot, releaseSlots, renewSlot } from '../../../db/rate-limits';
import { currentAdmission } from './admit';
import { MemorySlots, type Lease, type SlotPool } from './memory';
import type { StoreGuard } from './store-guard';

export class PgSlots implements SlotPool {
  /** Used while the database is unavailable in `local` mode. */
  readonly local = new MemorySlots();
  private pending: { key: string; leaseId: string }[] = [];

  constructor(readonly opts: { sql: Sql; guard: StoreGuard; leaseMs: number }) {}

  async acquire(key: string, limit: number): Promise<Lease | null> {
    const admission = currentAdmission();
    if (admission === 'unavailable') return this.local.tryAcquire(key, limit);
    const slot = admission?.slots?.get(key);
    if (slot && !slot.used) {
      slot.used = true;
      if (!slot.taken) return null;
      // Given back already (a later slot of the request was full): nothing to renew or release.
      return slot.givenBack ? { release: () => {} } : this.lease(key, slot.leaseId);
    }
    const { sql, guard, leaseMs } = this.opts;
    const leaseId = randomUUID();
    const r = await guard.run(
      'acquire',
      () => acquireSlot(sql, { key, leaseId, limit, leaseMs }),
      (taken) => {
        if (taken) this.giveBack(key, leaseId);
      },
    );
    if (!r.ok) return this.local.tryAcquire(key, limit);
    return r.value ? this.lease(key, leaseId) : null;
  }

  /** Gives a lease back: queued, and flushed with the others released in the same event-loop turn. */
  giveBack(key: string, leaseId: string): void {
    if (this.pending.length === 0) setImmediate(() => this.flush());
    this.pending.push({ key, leaseId });
  }

  private flush(): void {
    const batch = this.pending;
    this.pending = [];
    // One statement for the whole batch, whatever its keys.
    this.opts.guard.background('release', () => releaseSlots(this.opts.sql, batch));
  }

  private lease(key: string, leaseId: string): Lease {
    const { sql, guard, leaseMs } = this.opts;
    // Renew well before expiry; unref so an open request never keeps a stopping process alive.
    const renew = setInterval(
      () => {
        guard.background('renew', () => renewSlot(sql, { key, leaseId, leaseMs }));
      },
      Math.max(1000, Math.floor(leaseMs / 3)),
    );
    renew.unref();
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        clearInterval(renew);
        // Off the response path: if this fails the lease simply expires.
        this.giveBack(key, leaseId);
      },
    };
  }
}
