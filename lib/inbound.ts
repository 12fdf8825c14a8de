// Inbound events (Shopify webhooks, Stripe events) are stored first and answered at once; their workflow is started
// after the answer. One start function serves both the API (right after the answer) and the sweep that starts the
// workflow of any event still waiting (the API died after answering, or Temporal was unreachable at that moment).
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { WorkflowIdReusePolicy } from '@temporalio/common';

export interface InboundWorkflowStart {
  /** The workflow's type name, as exported from workflows/ (e.g. `shopifyWebhook`). */
  workflowType: string;
  /** Derived from the event's own id (e.g. `stripe-event-<event id>`): the same event can only start one workflow. */
  workflowId: string;
  args: unknown[];
  /** Search attribute AccountId; `none` when the event belongs to no account we know. */
  accountId: string | null;
}

/**
 * Starts the workflow of a stored event. A workflow with that id that is running or has completed means the event is
 * in hand: `already`. One that failed, timed out or was terminated may be started again (its processing is
 * idempotent), so an operator's termination does not strand an event.
 */
export async function startInboundWorkflow(
  client: Client,
  taskQueue: string,
  s: InboundWorkflowStart,
): Promise<'started' | 'already'> {
  try {
    await client.workflow.start(s.workflowType, {
      workflowId: s.workflowId,
      taskQueue,
      args: s.args,
      searchAttributes: { AccountId: [s.accountId ?? 'none'] },
      workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY,
    });
    return 'started';
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return 'already';
    throw err;
  }
}
