// Every limiter query goes through one StoreGuard per process. It bounds how long a query may take, and when
// the database fails it decides what the limiter does instead (per-process limits, or 503) and makes the outage
// visible: one error line when it starts, a reminder every `reportEveryMs` while it lasts, one line when it ends.
// During an outage only one request per `probeEveryMs` tries the database; the others decide at once. Without
// that, every limiter query of every request would wait out the timeout (the `postgres` client backs off
// reconnecting for seconds), and a request makes four of them.
import type { Logger } from '../../../lib/log';
import { orTimeout } from '../../../lib/wait';
import { serviceUnavailable } from '../../errors';

export type StoreFailureMode = 'local' | 'closed';

export type Guarded<T> = { ok: true; value: T } | { ok: false };

export interface StoreGuardOptions {
  timeoutMs: number;
  mode: StoreFailureMode;
  log: Logger;
  reportEveryMs?: number;
  probeEveryMs?: number;
  now?: () => number;
}

export class StoreTimeoutError extends Error {
  constructor(what: string, ms: number) {
    super(`rate limit store: ${what} took longer than ${ms} ms`);
  }
}

export class StoreGuard {
  private downSince: number | undefined;
  private lastReport = 0;
  private nextProbe = 0;
  /** Decisions taken without the database during the current outage (for the log lines). */
  private degraded = 0;
  private readonly now: () => number;

  constructor(private readonly opts: StoreGuardOptions) {
    this.now = opts.now ?? Date.now;
  }

  get mode(): StoreFailureMode {
    return this.opts.mode;
  }

  /** True while the last query failed; exposed for tests and health reporting. */
  get unavailable(): boolean {
    return this.downSince !== undefined;
  }

  /**
   * Runs `op` with the timeout. On failure answers `{ok: false}` in `local` mode (the caller then decides from
   * per-process state) and throws a 503 in `closed` mode. `onLate` receives a result that arrives after the
   * timeout, so an acquired lease the caller gave up on can be handed back.
   */
  async run<T>(what: string, op: () => Promise<T>, onLate?: (value: T) => void): Promise<Guarded<T>> {
    if (this.downSince !== undefined) {
      const now = this.now();
      if (now < this.nextProbe) return this.unavailableResult();
      this.nextProbe = now + (this.opts.probeEveryMs ?? 1000);
    }
    let timedOut = false;
    const pending = op();
    try {
      const value = await orTimeout(this.opts.timeoutMs, pending, () => {
        timedOut = true;
        return new StoreTimeoutError(what, this.opts.timeoutMs);
      });
      this.succeeded();
      return { ok: true, value };
    } catch (err) {
      if (timedOut)
        pending.then(
          (v) => onLate?.(v),
          () => {},
        );
      this.failed(what, err);
      return this.unavailableResult();
    }
  }

  private unavailableResult(): { ok: false } {
    this.degraded++;
    if (this.opts.mode === 'closed') {
      throw serviceUnavailable('Rate limiting is temporarily unavailable; retry shortly', 1);
    }
    return { ok: false };
  }

  /**
   * Background work (releases, renewals, purges): always attempted, even during an outage, since nobody waits for
   * it and a release that gets through frees a slot sooner than its lease would. Failures are only reported.
   */
  background(what: string, op: () => Promise<unknown>): void {
    op().then(
      () => this.succeeded(),
      (err) => this.failed(what, err),
    );
  }

  private succeeded(): void {
    if (this.downSince === undefined) return;
    this.opts.log.warn('rate limit store recovered', {
      downForMs: this.now() - this.downSince,
      decisionsWithoutStore: this.degraded,
    });
    this.downSince = undefined;
    this.degraded = 0;
  }

  private failed(what: string, err: unknown): void {
    const now = this.now();
    this.nextProbe = now + (this.opts.probeEveryMs ?? 1000);
    const fields = {
      operation: what,
      err,
      mode: this.opts.mode,
      effect:
        this.opts.mode === 'local'
          ? 'limits enforced per process until the store answers'
          : 'Part A answers 503 until the store answers',
    };
    if (this.downSince === undefined) {
      this.downSince = now;
      this.lastReport = now;
      this.opts.log.error('rate limit store unavailable', fields);
    } else if (now - this.lastReport >= (this.opts.reportEveryMs ?? 30_000)) {
      this.lastReport = now;
      this.opts.log.error('rate limit store still unavailable', {
        ...fields,
        downForMs: now - this.downSince,
        decisionsWithoutStore: this.degraded,
      });
    }
  }
}
