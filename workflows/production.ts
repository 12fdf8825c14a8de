// Production of a paid order (production-<order id>, docs/production.md): each line item's print file for its size
// and colour, then the job sheet PDF and the ZIP of sheet and files. Every step is keyed by the order and its line
// item ids, so a retry or a worker restart makes each file once. A line that cannot be printed (no physical size,
// a design that cannot be read) fails the production with the reason recorded. The lines are printed
// PRODUCTION_LINE_CONCURRENCY at a time (in line order, each next line when one finishes). The one-after-another
// path that was behind patched('production-lines-concurrent') is gone (issue 34): a production runs for minutes (at
// worst its lines' 8 attempts each), so none recorded before that patch (2026-11-27 16:43 UTC) can still be open;
// the patch is deprecated where it was checked, so runs that recorded its marker replay.
import { ActivityFailure, deprecatePatch, proxyActivities } from '@temporalio/workflow';
import type { ProductionActivities } from '../activities/production';
import {
  NON_RETRYABLE_PRODUCTION_ERRORS,
  type ProductionWorkflowInput,
  type ProductionWorkflowResult,
} from '../lib/production/types';
import { durableBookkeeping } from './policies';

// Image work: a minute each, heartbeating every few seconds so a lost worker's step is taken up by another within
// 15 s; transient trouble retried from 1 s to 30 s apart, 8 attempts.
const image = proxyActivities<ProductionActivities>({
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '15 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '30 seconds',
    maximumAttempts: 8,
    nonRetryableErrorTypes: NON_RETRYABLE_PRODUCTION_ERRORS,
  },
});

const db = proxyActivities<ProductionActivities>(durableBookkeeping(NON_RETRYABLE_PRODUCTION_ERRORS));

const reason = (err: unknown) =>
  err instanceof ActivityFailure && err.cause ? err.cause.message : err instanceof Error ? err.message : String(err);

/** Lines printed at once: two image steps side by side (a worker runs 8 activities; the order's five lines in ~3). */
export const PRODUCTION_LINE_CONCURRENCY = 2;

/**
 * Runs `f` over `items` at most `limit` at a time, taking them in order (deterministic: each runner takes the next
 * item when its step's answer is replayed). After a failure no new item is started, the started ones are awaited
 * (no step left running when the workflow records the failure), and the first failure is thrown.
 */
export async function eachBounded<T>(items: T[], limit: number, f: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: { err: unknown } | undefined;
  const runner = async () => {
    while (!failure && next < items.length) {
      const item = items[next++]!;
      try {
        await f(item);
      } catch (err) {
        failure ??= { err };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, runner));
  if (failure) throw failure.err;
}

export async function production(input: ProductionWorkflowInput): Promise<ProductionWorkflowResult> {
  const { lineItemIds } = await db.beginProduction({ orderId: input.orderId });
  try {
    const print = (lineItemId: string) => image.printLineItem({ orderId: input.orderId, lineItemId });
    deprecatePatch('production-lines-concurrent');
    await eachBounded(lineItemIds, PRODUCTION_LINE_CONCURRENCY, print);
    await image.packProduction({ orderId: input.orderId });
  } catch (err) {
    const error = reason(err);
    await db.recordProductionFailed({ orderId: input.orderId, error });
    return { status: 'failed', error };
  }
  return { status: 'ready', files: lineItemIds.length };
}
