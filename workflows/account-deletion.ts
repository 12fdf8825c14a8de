// account-deletion-<user id>: deletes an account whose owner asked for it (DELETE /api/auth/account), which can no
// longer sign in. Each step can run again with the same result, so a crash anywhere (worker, API, Temporal) ends with
// the workflow resuming where its history stops; the accounts sweep starts it if its start was lost.
import { patched, proxyActivities } from '@temporalio/workflow';
import type { AccountDeletionActivities } from '../activities/account-deletion';
import type { AccountDeletionInput, AccountDeletionResult } from '../lib/accounts/types';

// Outside services (Stripe, Shopify) and storage: retried with backoff for about a day.
const outside = proxyActivities<AccountDeletionActivities>({
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '1 minute',
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '30 minutes', maximumAttempts: 60 },
});

const db = proxyActivities<AccountDeletionActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '5 minutes', maximumAttempts: 30 },
});

export async function accountDeletion(input: AccountDeletionInput): Promise<AccountDeletionResult> {
  // Steps added later sit behind patched(): runs recorded before them replay without them.
  const stripeCleanup = patched('deletion-stripe-cleanup');
  // nothing opened before the deletion can still be paid
  const checkoutsExpired = stripeCleanup ? (await outside.expireAccountCheckouts(input)).expired : undefined;
  const { cancelled } = await outside.cancelAccountSubscriptions(input);
  const stripeCustomersDeleted = stripeCleanup ? (await outside.deleteStripeCustomers(input)).deleted : undefined;
  const { disconnected } = await outside.disconnectAccountStores(input);
  const { deleted } = await outside.deleteAccountFiles(input);
  const rowsErased = await db.eraseAccount(input);
  return {
    subscriptionsCancelled: cancelled,
    storesDisconnected: disconnected,
    filesDeleted: deleted,
    rowsErased,
    ...(checkoutsExpired !== undefined ? { checkoutsExpired } : {}),
    ...(stripeCustomersDeleted !== undefined ? { stripeCustomersDeleted } : {}),
  };
}
