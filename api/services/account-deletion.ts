// DELETE /api/auth/account: the account is locked out at once (db/account-deletion.ts), then the workflow
// account-deletion-<user> is started to do the rest; a lost start is made by the accounts sweep a minute later.
import { beginAccountDeletion } from '../../db/account-deletion';
import { accountDeletionStart } from '../../lib/accounts/types';
import { startInboundWorkflow } from '../../lib/inbound';
import type { Logger } from '../../lib/log';
import { accountDeletion } from '../../workflows';
import type { AppDeps } from '../context';

export async function requestAccountDeletion(deps: AppDeps, userId: string, log: Logger): Promise<string> {
  await beginAccountDeletion(deps.sql, userId);
  const start = accountDeletionStart(accountDeletion, userId);
  try {
    await startInboundWorkflow(deps.temporal, deps.config.temporal.taskQueue, start);
  } catch (err) {
    log.warn('starting the account deletion failed; the accounts sweep will start it', {
      userId,
      error: err instanceof Error ? err.message : String(err),
    });
  }
  log.info('account deletion requested', { userId, workflowId: start.workflowId });
  return start.workflowId;
}
