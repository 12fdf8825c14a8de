// FIFO counting semaphore: at most `limit` tasks run at once, the rest wait in order. With `maxWaiting`, a task
// that would wait behind that many others is refused with GateFullError instead of queueing without bound.

export class GateFullError extends Error {
  override readonly name = 'GateFullError';
}

export class Gate {
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  constructor(
    public limit: number,
    private readonly maxWaiting = Infinity,
  ) {}

  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit) {
      if (this.waiting.length >= this.maxWaiting) throw new GateFullError(`${this.waiting.length} tasks already wait`);
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else this.active++;
    try {
      return await fn();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    }
  }

  get inFlight(): number {
    return this.active;
  }

  get queued(): number {
    return this.waiting.length;
  }
}
