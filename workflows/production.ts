// Production of a paid order (production-<order id>, docs/production.md): each line item's print file for its size
// and colour, then the job sheet PDF and the ZIP of sheet and files. Every step is keyed by the order and its line
// item ids, so a retry or a worker restart makes each file once. A line that cannot be printed (no physical size,
// a design that cannot be read) fails the production with the reason recorded.
import { ActivityFailure, proxyActivities } from '@temporalio/workflow';
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

export async function production(input: ProductionWorkflowInput): Promise<ProductionWorkflowResult> {
  const { lineItemIds } = await db.beginProduction({ orderId: input.orderId });
  try {
    for (const lineItemId of lineItemIds) await image.printLineItem({ orderId: input.orderId, lineItemId });
    await image.packProduction({ orderId: input.orderId });
  } catch (err) {
    const error = reason(err);
    await db.recordProductionFailed({ orderId: input.orderId, error });
    return { status: 'failed', error };
  }
  return { status: 'ready', files: lineItemIds.length };
}
