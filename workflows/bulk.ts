// A bulk render (POST /api/v1/generate/bulk, issue 35), id `bulk-<bulk id>`. The API has recorded and charged every
// item (one transaction) before this starts; each item is an ordinary generation, run by the `generation` workflow's
// own orchestration as a function inside this one workflow (as a batch's items are: workflows/generation-batch.ts
// says why not a child each), at most `concurrency` at once. Its render waits in the compositing gate's background
// lane (the job's `background`), so other accounts' single mockups go first (docs/generation.md#bulk-renders).
//
// The items are read from the database in pages of BULK_PAGE (a local activity each, recorded in the history), so the
// input stays small whatever the size of the bulk. A cancel (the signal POST .../cancel sends after it has failed and
// refunded the items not yet begun) stops the dispatch; the items in flight finish. Then one step fails and refunds
// whatever is still pending, streams the ZIP of every completed mockup into storage and closes the row, and the
// bulk.completed callback starts as its own workflow (`webhook-bulk-<bulk id>`, once: the delivery is unique per
// bulk). A worker that dies mid-bulk loses nothing: the next one replays the history and re-runs only the steps
// that have no marker yet, each idempotent on its generation or bulk id.
import {
  defineSignal,
  log,
  ParentClosePolicy,
  proxyLocalActivities,
  setHandler,
  startChild,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import {
  BULK_CANCEL_SIGNAL,
  BULK_PAGE,
  NON_RETRYABLE_BULK_ERRORS,
  type BulkItem,
  type BulkWorkflowInput,
  type BulkWorkflowResult,
} from '../lib/bulk/types';
import { generation } from './generation';
import { imageRetry, paidBookkeeping } from './policies';
import { webhookDelivery } from './webhook-delivery';

export const cancelBulkSignal = defineSignal(BULK_CANCEL_SIGNAL);

const db = proxyLocalActivities<Activities>(paidBookkeeping(NON_RETRYABLE_BULK_ERRORS));

// The archive of up to BULK_MAX_ITEMS mockups streamed into storage: minutes at most; retried as a whole (the same
// bytes under the same key).
const archive = proxyLocalActivities<Activities>({
  startToCloseTimeout: '10 minutes',
  localRetryThreshold: '2 seconds',
  retry: imageRetry(10, NON_RETRYABLE_BULK_ERRORS),
});

export async function bulkRender(input: BulkWorkflowInput): Promise<BulkWorkflowResult> {
  let canceled = false;
  setHandler(cancelBulkSignal, () => {
    canceled = true;
  });

  const inFlight = new Set<Promise<void>>();
  let after = -1;
  dispatch: for (;;) {
    if (canceled) break;
    const page = await db.bulkItems(input.bulkId, after, BULK_PAGE);
    for (const item of page) {
      while (inFlight.size >= input.concurrency) await Promise.race(inFlight);
      if (canceled) break dispatch;
      const run: Promise<void> = renderItem(input, item).finally(() => inFlight.delete(run));
      inFlight.add(run);
      after = item.position;
    }
    if (page.length < BULK_PAGE) break;
  }
  await Promise.all(inFlight);

  const finished = await archive.finishBulk(input.bulkId);
  if (finished.webhookUrl) {
    await startChild(webhookDelivery, {
      workflowId: `webhook-bulk-${input.bulkId}`,
      parentClosePolicy: ParentClosePolicy.ABANDON,
      args: [
        {
          bulkId: input.bulkId,
          accountId: input.accountId,
          url: finished.webhookUrl,
          event: 'bulk.completed',
          payload: {
            event: 'bulk.completed',
            timestamp: finished.finishedAt,
            livemode: input.livemode !== false,
            data: {
              id: input.bulkId,
              status: finished.status,
              total: finished.total,
              completed: finished.completed,
              failed: finished.failed,
              archiveUrl: finished.archiveUrl,
              tokensCharged: finished.tokensCharged,
              tokensRefunded: finished.tokensRefunded,
            },
          },
        },
      ],
    });
  }
  return { bulkId: input.bulkId, status: finished.status, completed: finished.completed, failed: finished.failed };
}

/** One item, exactly as a single generation runs (render, or refund and fail; its callback only if asked). */
async function renderItem(input: BulkWorkflowInput, item: BulkItem): Promise<void> {
  try {
    await generation({
      generationId: item.generationId,
      accountId: input.accountId,
      garmentId: item.garmentId,
      ...(item.job.kind === 'template' ? { templateId: item.job.templateId } : {}),
      webhookUrl: input.itemWebhookUrl,
      ...(input.livemode === false ? { livemode: false } : {}),
      job: item.job,
    });
  } catch (err) {
    // generation() turns every activity failure into a failed, refunded generation itself; only something
    // unexpected gets here (its callback could not start). The item's row tells the truth.
    log.error('bulk item did not finish', {
      bulkId: input.bulkId,
      generationId: item.generationId,
      error: err instanceof Error ? err.message : String(err),
    });
  }
}
