import { inboundStart, type InboundWorkflowStart } from '../inbound';
import type { SendMailWorkflow } from './types';

/** The workflow that delivers one outbox row: `mail-<outbox id>` (one per row, so a row is sent at most once). */
export function mailStart(
  workflow: SendMailWorkflow,
  outboxId: string,
  accountId: string | null,
): InboundWorkflowStart {
  return inboundStart(workflow, `mail-${outboxId}`, { outboxId }, accountId);
}
