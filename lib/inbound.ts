// Inbound events (Shopify webhooks, Stripe events) are stored first and answered at once; their workflow is started
// after the answer. One start function serves both the API (right after the answer) and the sweep that starts the
// workflow of any event still waiting (the API died after answering, or Temporal was unreachable at that moment).
// Workflows are started by reference, as every other workflow is: the caller hands in the workflow function (lib/
// knows none), and its input is type-checked against it.
import { WorkflowExecutionAlreadyStartedError, type Client, type WorkflowOptions } from '@temporalio/client';
import { WorkflowIdReusePolicy } from '@temporalio/common';

export interface InboundWorkflowStart {
  /** Derived from the event's own id (e.g. `stripe-event-<event id>`): the same event can only start one workflow. */
  workflowId: string;
  /** Search attribute AccountId; `none` when the event belongs to no account we know. */
  accountId: string | null;
  /** Starts the workflow by reference, with its input, under `options`. */
  start: (client: Client, options: WorkflowOptions) => Promise<unknown>;
}

/** The start of `workflow` (a function of workflows/) with `input`, for the event `workflowId` names. */
export function inboundStart<I>(
  workflow: (input: I) => Promise<unknown>,
  workflowId: string,
  input: I,
  accountId: string | null,
): InboundWorkflowStart {
  return {
    workflowId,
    accountId,
    start: (client, options) => client.workflow.start(workflow, { ...options, args: [input] }),
  };
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
    await s.start(client, {
      workflowId: s.workflowId,
      taskQueue,
      searchAttributes: { AccountId: [s.accountId ?? 'none'] },
      workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY,
    });
    return 'started';
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return 'already';
    throw err;
  }
}
