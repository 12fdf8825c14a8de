// Per-process counterparts of the PostgreSQL windows and slots. They carry the limits while the database is
// unavailable (RATE_LIMIT_ON_STORE_ERROR=local), and the benchmark uses them to price the database round trips.

export interface WindowCount {
  totalHits: number;
  resetTime: Date;
}

/** Fixed windows that start at a key's first hit, the same rule as the SQL upsert. */
export class MemoryWindows {
  private readonly entries = new Map<string, { hits: number; resetAt: number }>();

  constructor(
    private readonly windowMs: number,
    private readonly maxEntries = 100_000,
    private readonly now: () => number = Date.now,
  ) {}

  increment(key: string): WindowCount {
    const now = this.now();
    let e = this.entries.get(key);
    if (!e || e.resetAt <= now) {
      if (!e && this.entries.size >= this.maxEntries) this.sweep(now);
      e = { hits: 0, resetAt: now + this.windowMs };
      this.entries.set(key, e);
    }
    e.hits++;
    return { totalHits: e.hits, resetTime: new Date(e.resetAt) };
  }

  get(key: string): WindowCount | undefined {
    const e = this.entries.get(key);
    if (!e || e.resetAt <= this.now()) return undefined;
    return { totalHits: e.hits, resetTime: new Date(e.resetAt) };
  }

  decrement(key: string): void {
    const e = this.entries.get(key);
    if (e && e.hits > 0) e.hits--;
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }

  // Drops expired entries; if every entry is live the map may exceed maxEntries rather than forget a live count.
  private sweep(now: number): void {
    for (const [k, e] of this.entries) if (e.resetAt <= now) this.entries.delete(k);
  }
}

export interface Lease {
  /** Gives the slot back. Safe to call more than once. */
  release(): void;
}

export interface SlotPool {
  /** A lease when fewer than `limit` slots of `key` are taken, otherwise null. */
  acquire(key: string, limit: number): Promise<Lease | null>;
}

/** Slots counted in this process only. */
export class MemorySlots implements SlotPool {
  private readonly inUse = new Map<string, number>();

  async acquire(key: string, limit: number): Promise<Lease | null> {
    return this.tryAcquire(key, limit);
  }

  tryAcquire(key: string, limit: number): Lease | null {
    const n = this.inUse.get(key) ?? 0;
    if (n >= limit) return null;
    this.inUse.set(key, n + 1);
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        const left = (this.inUse.get(key) ?? 1) - 1;
        if (left <= 0) this.inUse.delete(key);
        else this.inUse.set(key, left);
      },
    };
  }

  count(key: string): number {
    return this.inUse.get(key) ?? 0;
  }
}
