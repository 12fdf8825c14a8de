// FIFO counting semaphore: at most `limit` tasks run at once, the rest wait in order. With `maxWaiting`, a task
// that would wait behind that many others is refused with GateFullError instead of queueing without bound.
//
// Background tasks (a bulk render's items, issue 35) wait in a lane of their own: a waiting foreground task always
// goes first, and while foreground tasks have been seen in the last FOREGROUND_RECENT_MS, background tasks hold at
// most `backgroundShare` of the slots (at least one) and the lane rests after each task as long as the task ran, so
// an account's single mockup is not queued, nor starved of CPU, behind another account's 500 items. With no
// foreground work about, background tasks use every slot without rest.

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
  /** while foreground work is about, no background task starts before this time (the lane's rest) */
  private backgroundRestUntil = -Infinity;
  private restTimer: ReturnType<typeof setTimeout> | undefined;
  constructor(
    public limit: number,
    private readonly maxWaiting = Infinity,
    /** the share of `limit` background tasks may hold while foreground tasks are about (at least one slot) */
    public backgroundShare = 0.25,
    private readonly now: () => number = () => performance.now(),
  ) {}

  private foregroundRecent(): boolean {
    return this.now() - this.lastForeground <= FOREGROUND_RECENT_MS;
  }

  private backgroundLimit(): number {
    if (!this.foregroundRecent()) return this.limit;
    return Math.max(1, Math.floor(this.limit * this.backgroundShare));
  }

  private mayStartBackground(): boolean {
    if (this.active >= this.limit || this.waiting.length > 0 || this.activeBackground >= this.backgroundLimit())
      return false;
    return !this.foregroundRecent() || this.now() >= this.backgroundRestUntil;
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
    const started = this.now();
    try {
      return await fn();
    } finally {
      if (background) {
        this.activeBackground--;
        // while foreground work is about, the lane rests as long as its task ran: background work takes at most
        // about half of the time of the process (the composite's pixel loops share the one JavaScript thread)
        if (this.foregroundRecent()) {
          const end = this.now();
          this.backgroundRestUntil = Math.max(this.backgroundRestUntil, end + (end - started));
        }
      }
      this.release();
    }
  }

  /** A slot is free: hands it to the next foreground waiter, else to a background one if its share allows. */
  private release(): void {
    const next = this.waiting.shift();
    if (next) return next();
    this.active--;
    this.admitBackground();
  }

  /** Starts the background waiters the lane allows now; if only its rest holds them, looks again when it ends. */
  private admitBackground(): void {
    while (this.waitingBackground.length > 0 && this.mayStartBackground()) {
      this.active++;
      this.activeBackground++;
      this.waitingBackground.shift()!();
    }
    const rest = this.backgroundRestUntil - this.now();
    if (this.waitingBackground.length > 0 && rest > 0 && !this.restTimer) {
      this.restTimer = setTimeout(() => {
        this.restTimer = undefined;
        this.admitBackground();
      }, Math.ceil(rest));
      this.restTimer.unref?.();
    }
  }

  get inFlight(): number {
    return this.active;
  }

  get queued(): number {
    return this.waiting.length + this.waitingBackground.length;
  }
}
