// The account-deletion flow's shared contract (workflows import this: plain data only).
import { inboundStart, type InboundWorkflowStart } from '../inbound';

/** Input of the `accountDeletion` workflow (id `account-deletion-<user id>`). */
export interface AccountDeletionInput {
  userId: string;
}

export interface AccountDeletionResult {
  subscriptionsCancelled: number;
  storesDisconnected: number;
  filesDeleted: number;
  rowsErased: Record<string, number>;
  /** checkout sessions expired at Stripe (runs started before this step have none) */
  checkoutsExpired?: number;
  /** Stripe customers deleted */
  stripeCustomersDeleted?: number;
}

/** The `accountDeletion` workflow's signature: what the API and the sweep start it by. */
export type AccountDeletionWorkflow = (input: AccountDeletionInput) => Promise<AccountDeletionResult>;

/** The one workflow that deletes an account: `account-deletion-<user id>`. */
export function accountDeletionStart(workflow: AccountDeletionWorkflow, userId: string): InboundWorkflowStart {
  return inboundStart(workflow, `account-deletion-${userId}`, { userId }, userId);
}

/** The failure of a job (generation, chat, bulk) whose account's deletion was asked for while it ran (docs/accounts.md#deletion). */
export const ACCOUNT_DELETED = 'The account was deleted';
