// The account-deletion flow's shared contract (workflows import this: plain data only).
import type { InboundWorkflowStart } from '../inbound';

/** Input of the `accountDeletion` workflow (id `account-deletion-<user id>`). */
export interface AccountDeletionInput {
  userId: string;
}

export interface AccountDeletionResult {
  subscriptionsCancelled: number;
  storesDisconnected: number;
  filesDeleted: number;
  rowsErased: Record<string, number>;
}

/** The one workflow that deletes an account: `account-deletion-<user id>`. */
export function accountDeletionStart(userId: string): InboundWorkflowStart {
  const input: AccountDeletionInput = { userId };
  return {
    workflowType: 'accountDeletion',
    workflowId: `account-deletion-${userId}`,
    args: [input],
    accountId: userId,
  };
}
