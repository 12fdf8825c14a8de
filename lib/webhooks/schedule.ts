// The retry schedule of webhook deliveries. No imports: the delivery workflow uses it inside the Temporal sandbox.

export interface RetrySchedule {
  /** Delay before the first retry. */
  initialMs: number;
  /** Cap on any single delay. */
  maxIntervalMs: number;
  /** Attempts continue until this long after the delivery was created. */
  windowMs: number;
}

export const BACKOFF_COEFFICIENT = 2;
/** Jitter takes up to this fraction off each delay, so receivers that fail together are not retried in lockstep. */
export const JITTER = 0.2;
/**
 * Hard stop on attempts whatever the configuration: keeps the workflow history far below Temporal's limits even
 * with a tiny initial delay and a long window. The defaults (2 s, 1 h cap, 24 h) make about 35 attempts.
 */
export const MAX_ATTEMPTS = 200;

/**
 * Delay before retry number `retry` (1 = the retry after the first failed attempt): initial * 2^(retry-1), capped,
 * minus up to 20 % jitter. `random` in [0, 1) comes from the workflow's deterministic Math.random.
 */
export function retryDelayMs(retry: number, s: Pick<RetrySchedule, 'initialMs' | 'maxIntervalMs'>, random = 0): number {
  const exp = Math.min(retry - 1, 52);
  const base = Math.min(s.maxIntervalMs, s.initialMs * BACKOFF_COEFFICIENT ** exp);
  return Math.max(1, Math.round(base * (1 - JITTER * random)));
}
