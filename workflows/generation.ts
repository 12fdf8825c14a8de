// The generation workflow (id = generation id), charged by the API with the row: one step that renders the job the
// input carries (load, composite, store, mark completed; the statement that marks the generation processing and
// checks its debit runs beside it) → start the completion callback.
// Any failure refunds the token, marks the generation failed and sends generation.failed. Orchestration only: all
// I/O is in activities/generation.ts.
import {
  ActivityFailure,
  ApplicationFailure,
  deprecatePatch,
  ParentClosePolicy,
  proxyLocalActivities,
  startChild,
  log,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import {
  NON_RETRYABLE_GENERATION_ERRORS,
  type GenerationWorkflowInput,
  type GenerationWorkflowResult,
} from '../lib/generation/types';
import { generationCompletedPayload, generationFailedPayload, type WebhookPayload } from '../lib/webhooks/types';
import { imageWork, paidBookkeeping } from './policies';
import { webhookDelivery } from './webhook-delivery';

// Every step runs as a local activity: in the worker, inside the workflow task, recorded as a marker in the
// history. A generation is then one workflow task and no activity task: the fewest round trips through the
// server, which on a 2-core machine cost more than the bookkeeping itself (docs/generation.md; the figures in
// docs/benchmarks.md). If the worker dies
// mid-step, the workflow task times out and another worker re-runs the steps that have no marker yet; each is
// idempotent on the generation id.

// Bookkeeping in PostgreSQL: retried patiently, since a database blip must not fail a paid generation.
const db = proxyLocalActivities<Activities>(paidBookkeeping(NON_RETRYABLE_GENERATION_ERRORS));

// Image work: bounded (a foreign design download has its own 20 s limit); a few attempts for transient failures
// (the design's or blank's host briefly down), none for bad input.
const images = proxyLocalActivities<Activities>(imageWork(NON_RETRYABLE_GENERATION_ERRORS));

/**
 * Runs recorded before this patch began with a beginGeneration step, then renderMockup; runs since take one step,
 * renderGeneration. The old path is gone (issue 34): the patch is deprecated, so the runs that recorded its marker
 * still replay; once none of them can be running (a generation runs for seconds, and the maintenance sweep fails any
 * left pending for 10 minutes), the deprecatePatch call goes too.
 */
export const ONE_STEP_RENDER = 'one-step-render';

function reason(err: unknown): string {
  if (err instanceof ActivityFailure && err.cause instanceof ApplicationFailure) return err.cause.message;
  if (err instanceof ActivityFailure && err.cause) return err.cause.message;
  return err instanceof Error ? err.message : String(err);
}

export async function generation(input: GenerationWorkflowInput): Promise<GenerationWorkflowResult> {
  const { generationId } = input;
  const livemode = input.livemode !== false;
  let completed: { completedAt: string; mockupUrl: string };
  try {
    deprecatePatch(ONE_STEP_RENDER);
    // the job from the input: the render starts without a read first
    completed = await images.renderGeneration(generationId, input.job);
  } catch (err) {
    const error = reason(err);
    log.warn('generation failed', { generationId, error });
    // One transaction fails the row and refunds its token, unless the render committed after all.
    const outcome = await db.failGeneration(generationId, error);
    if (outcome.status === 'failed') {
      await notify(
        input,
        generationFailedPayload({
          id: generationId,
          error: outcome.error,
          tokensUsed: 0,
          failedAt: outcome.completedAt,
          livemode,
        }),
      );
      return { status: 'failed', error: outcome.error };
    }
    completed = outcome;
  }
  await notify(
    input,
    generationCompletedPayload({
      id: generationId,
      mockupUrl: completed.mockupUrl,
      // a test-mode generation spends no token
      tokensUsed: livemode ? 1 : 0,
      completedAt: completed.completedAt,
      livemode,
    }),
  );
  return { status: 'completed' };
}

/** Starts the callback as its own workflow (webhook-<generation id>) that outlives this one: retries may take a day. */
async function notify(input: GenerationWorkflowInput, payload: WebhookPayload) {
  if (!input.webhookUrl) return;
  await startChild(webhookDelivery, {
    workflowId: `webhook-${input.generationId}`,
    parentClosePolicy: ParentClosePolicy.ABANDON,
    args: [
      {
        generationId: input.generationId,
        accountId: input.accountId,
        url: input.webhookUrl,
        event: payload.event,
        payload,
      },
    ],
  });
}
