// The generation workflow (id = generation id): begin (charge, mark processing, read the job) → render (load,
// composite, store, mark completed) → start the completion callback. Any failure after the charge refunds the
// token, marks the generation failed and sends generation.failed. Orchestration only: all I/O is in activities/generation.ts.
import {
  ActivityFailure,
  ApplicationFailure,
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
import { webhookDelivery } from './webhook-delivery';

// Every step runs as a local activity: in the worker, inside the workflow task, recorded as a marker in the
// history. A generation is then one workflow task and no activity task: the fewest round trips through the
// server, which on a 2-core machine cost more than the bookkeeping itself (README, "Benchmark"). If the worker dies
// mid-step, the workflow task times out and another worker re-runs the steps that have no marker yet; each is
// idempotent on the generation id.

// Bookkeeping in PostgreSQL: retried patiently, since a database blip must not fail a paid generation.
// Backoffs above localRetryThreshold wait on a server timer instead of inside the workflow task, so a long retry
// does not hold one workflow task open.
const db = proxyLocalActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  localRetryThreshold: '2 seconds',
  retry: {
    initialInterval: '500 milliseconds',
    backoffCoefficient: 2,
    maximumInterval: '30 seconds',
    maximumAttempts: 20,
    nonRetryableErrorTypes: NON_RETRYABLE_GENERATION_ERRORS,
  },
});

// Image work: bounded (a foreign design download has its own 20 s limit); a few attempts for transient failures
// (the design's or blank's host briefly down), none for bad input.
const images = proxyLocalActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  localRetryThreshold: '2 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '10 seconds',
    maximumAttempts: 4,
    nonRetryableErrorTypes: NON_RETRYABLE_GENERATION_ERRORS,
  },
});

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
    const job = await db.beginGeneration(generationId);
    completed = await images.renderMockup(job);
  } catch (err) {
    const error = reason(err);
    log.warn('generation failed', { generationId, error });
    // One transaction fails the row and refunds its token, unless the render committed after all.
    const outcome = await db.failGeneration(generationId, error);
    if (outcome.status === 'failed') {
      await notify(input, {
        event: 'generation.failed',
        timestamp: outcome.completedAt,
        livemode,
        data: { id: generationId, status: 'failed', error: outcome.error, tokensUsed: 0 },
      });
      return { status: 'failed', error: outcome.error };
    }
    completed = outcome;
  }
  await notify(input, {
    event: 'generation.completed',
    timestamp: completed.completedAt,
    livemode,
    // a test-mode generation spends no token
    data: { id: generationId, status: 'completed', mockupUrl: completed.mockupUrl, tokensUsed: livemode ? 1 : 0 },
  });
  return { status: 'completed' };
}

/** Starts the callback as its own workflow (webhook-<generation id>) that outlives this one: retries may take a day. */
async function notify(
  input: GenerationWorkflowInput,
  payload: {
    event: 'generation.completed' | 'generation.failed';
    timestamp: string;
    livemode: boolean;
    data: Record<string, unknown>;
  },
) {
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
