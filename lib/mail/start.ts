import type { InboundWorkflowStart } from '../inbound';
import type { SendMailInput } from './types';

/** The workflow that delivers one outbox row: `mail-<outbox id>` (one per row, so a row is sent at most once). */
export function mailStart(outboxId: string, accountId: string | null): InboundWorkflowStart {
  const input: SendMailInput = { outboxId };
  return { workflowType: 'sendMail', workflowId: `mail-${outboxId}`, args: [input], accountId };
}
