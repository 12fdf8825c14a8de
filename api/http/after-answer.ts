import type { Logger } from '../../lib/log';

/**
 * Runs a step after the answer has been sent (a route calls it right after `res.json`). Its failure is logged, never
 * surfaced: the routes that use it have stored what the step needs, and a sweep repeats the step if it never ran.
 */
export function afterAnswer(log: Logger, what: string, step: (() => Promise<void>) | undefined, fields = {}): void {
  if (!step) return;
  step().catch((err: unknown) => {
    log.warn(`${what} failed after the answer; the inbound sweep will retry it`, {
      ...fields,
      error: err instanceof Error ? err.message : String(err),
    });
  });
}
