// The generation workflow (id = generation id): charge → mark processing → render (load, composite, store) →
// mark completed → start the completion callback. Any failure after the charge refunds the token, marks the
// generation failed and sends generation.failed. Orchestration only: all I/O is in activities/generation.ts.
import { ActivityFailure, ApplicationFailure, ParentClosePolicy, proxyActivities, proxyLocalActivities, startChild, log } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { NON_RETRYABLE_GENERATION_ERRORS, type GenerationWorkflowInput, type GenerationWorkflowResult } from '../lib/generation/types';
import { webhookDelivery } from './webhook-delivery';

// Bookkeeping in PostgreSQL: a few milliseconds each, so they run as local activities (no task queue round trip
// through the server, recorded as markers in the history); retried patiently, since a database blip must not
// fail a paid generation. Each is idempotent on the generation id.
const db = proxyLocalActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '500 milliseconds', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 20, nonRetryableErrorTypes: NON_RETRYABLE_GENERATION_ERRORS },
});

// Image work: bounded, with a heartbeat so a dead worker is noticed quickly; a few attempts for transient
// failures (the blank's or design's host briefly down), none for bad input.
const images = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '10 seconds', maximumAttempts: 4, nonRetryableErrorTypes: NON_RETRYABLE_GENERATION_ERRORS },
});

function reason(err: unknown): string {
  if (err instanceof ActivityFailure && err.cause instanceof ApplicationFailure) return err.cause.message;
  if (err instanceof ActivityFailure && err.cause) return err.cause.message;
  return err instanceof Error ? err.message : String(err);
}

export async function generation(input: GenerationWorkflowInput): Promise<GenerationWorkflowResult> {
  const { generationId } = input;
  let completed: { completedAt: string; mockupUrl: string };
  try {
    await db.chargeGeneration(generationId);
    await db.markProcessing(generationId);
    const rendered = await images.renderMockup(generationId);
    completed = await db.markCompleted(generationId, rendered);
  } catch (err) {
    const error = reason(err);
    log.warn('generation failed', { generationId, error });
    await db.refundGeneration(generationId);
    const failed = await db.markFailed(generationId, error);
    await notify(input, {
      event: 'generation.failed',
      timestamp: failed.completedAt,
      data: { id: generationId, status: 'failed', error, tokensUsed: 0 },
    });
    return { status: 'failed', error };
  }
  await notify(input, {
    event: 'generation.completed',
    timestamp: completed.completedAt,
    data: { id: generationId, status: 'completed', mockupUrl: completed.mockupUrl, tokensUsed: 1 },
  });
  return { status: 'completed' };
}

/** Starts the callback as its own workflow (webhook-<generation id>) that outlives this one: retries may take a day. */
async function notify(input: GenerationWorkflowInput, payload: { event: 'generation.completed' | 'generation.failed'; timestamp: string; data: Record<string, unknown> }) {
  if (!input.webhookUrl) return;
  await startChild(webhookDelivery, {
    workflowId: `webhook-${input.generationId}`,
    parentClosePolicy: ParentClosePolicy.ABANDON,
    args: [{ generationId: input.generationId, accountId: input.accountId, url: input.webhookUrl, event: payload.event, payload }],
  });
}
