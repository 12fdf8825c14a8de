// FIFO counting semaphore: at most `limit` tasks run at once, the rest wait in order. With `maxWaiting`, a task
// that would wait behind that many others is refused with GateFullError instead of queueing without bound.
//
// Background tasks (a bulk render's items, issue 35) wait in a lane of their own: a waiting foreground task always
// goes first, and while foreground tasks have been seen in the last `recentMs`, background tasks hold at most
// `backgroundShare` of the slots, so an account's single mockup is not queued, nor starved of CPU, behind another
// account's 500 items. With no foreground work about, background tasks use every slot.

export class GateFullError extends Error {
  override readonly name = 'GateFullError';
}

export interface GateTask {
  /** waits in the background lane (docs/generation.md#bulk-renders) */
  background?: boolean;
}

/** How long after the last foreground task the background lane stays held to its share. */
export const FOREGROUND_RECENT_MS = 2000;

export class Gate {
  private active = 0;
  private activeBackground = 0;
  private readonly waiting: (() => void)[] = [];
  private readonly waitingBackground: (() => void)[] = [];
  private lastForeground = -Infinity;
  constructor(
    public limit: number,
    private readonly maxWaiting = Infinity,
    /** the share of `limit` background tasks may hold while foreground tasks are about (at least one slot) */
    public backgroundShare = 0.5,
    private readonly now: () => number = () => performance.now(),
  ) {}

  private backgroundLimit(): number {
    if (this.now() - this.lastForeground > FOREGROUND_RECENT_MS) return this.limit;
    return Math.max(1, Math.floor(this.limit * this.backgroundShare));
  }

  private mayStartBackground(): boolean {
    return this.active < this.limit && this.waiting.length === 0 && this.activeBackground < this.backgroundLimit();
  }

  async run<T>(fn: () => Promise<T>, task: GateTask = {}): Promise<T> {
    const background = task.background === true;
    if (!background) this.lastForeground = this.now();
    if (background ? !this.mayStartBackground() : this.active >= this.limit) {
      if (this.waiting.length + this.waitingBackground.length >= this.maxWaiting)
        throw new GateFullError(`${this.waiting.length + this.waitingBackground.length} tasks already wait`);
      // release() counts the slot (and the background one) before it wakes the waiter
      await new Promise<void>((resolve) => (background ? this.waitingBackground : this.waiting).push(resolve));
    } else {
      this.active++;
      if (background) this.activeBackground++;
    }
    try {
      return await fn();
    } finally {
      if (background) this.activeBackground--;
      this.release();
    }
  }

  /** A slot is free: hands it to the next foreground waiter, else to a background one if its share allows. */
  private release(): void {
    const next = this.waiting.shift();
    if (next) return next();
    this.active--;
    while (this.waitingBackground.length > 0 && this.mayStartBackground()) {
      this.active++;
      this.activeBackground++;
      this.waitingBackground.shift()!();
    }
  }

  get inFlight(): number {
    return this.active;
  }

  get queued(): number {
    return this.waiting.length + this.waitingBackground.length;
  }
}
