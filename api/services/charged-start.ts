// The one way the API starts the workflow of paid work (generations, a design chat job): the work's rows and their
// debits are already committed together (db/generation-inserts.ts insertAndChargeGenerations, db/chat.ts
// insertAndChargeChatJob); then its workflow is started, and from there the workflow refunds on failure and the
// maintenance sweeps fail whatever no workflow will finish.
import {
  WorkflowExecutionAlreadyStartedError,
  type Client,
  type Workflow,
  type WorkflowHandle,
  type WorkflowStartOptions,
} from '@temporalio/client';

/**
 * Starts the workflow of work already charged. A workflow that already exists (a retried request) is returned; any
 * other failure runs `undo` (fail the work and refund it, in one transaction) and is rethrown, so the account is
 * whole and the work's id explains itself.
 */
export async function startCharged<W extends Workflow>(
  temporal: Client,
  workflow: W,
  options: WorkflowStartOptions<W>,
  undo: () => Promise<unknown>,
): Promise<WorkflowHandle<W>> {
  try {
    return await temporal.workflow.start(workflow, options);
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return temporal.workflow.getHandle<W>(options.workflowId);
    await undo();
    throw err;
  }
}
