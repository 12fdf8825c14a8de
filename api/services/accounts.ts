// Use cases of the account lifecycle (docs/accounts.md): signup's verification mail, verification, password reset
// and change, change of email. Each change and its mails are committed together (db/account-lifecycle.ts); the
// mails' workflows are started right after, and the mail sweep starts any whose start was lost.
import type { Queued, TokenPurpose } from '../../db/account-tokens';
import { startInboundWorkflow } from '../../lib/inbound';
import type { Logger } from '../../lib/log';
import { mailStart } from '../../lib/mail/start';
import { sendMail } from '../../workflows';
import type { AppDeps } from '../context';

/** The dashboard page each kind of link opens (a server path that redirects to its hash route, api/routes/dashboard). */
const LINK_PAGE: Record<TokenPurpose, string> = {
  verify_email: 'verify-email',
  change_email: 'verify-email',
  reset_password: 'reset-password',
  undo_email_change: 'email-not-me',
};

export const linkFor =
  (deps: Pick<AppDeps, 'config'>) =>
  (purpose: TokenPurpose, token: string): string =>
    `${deps.config.publicBaseUrl}/${LINK_PAGE[purpose]}?token=${token}`;

export const forgotLink = (deps: Pick<AppDeps, 'config'>) => `${deps.config.publicBaseUrl}/forgot-password`;

/**
 * Starts the mail-<id> workflow of each queued mail, after the commit that wrote them. A failure is logged, never
 * surfaced: the rows are in the outbox and the mail sweep (every minute) starts them.
 */
export function startQueuedMails(deps: Pick<AppDeps, 'config' | 'temporal'>, log: Logger, q: Queued): void {
  if (q.mailIds.length === 0) return;
  void (async () => {
    for (const m of q.mailIds)
      await startInboundWorkflow(deps.temporal, deps.config.temporal.taskQueue, mailStart(sendMail, m.id, m.userId));
  })().catch((err: unknown) => {
    log.warn('starting a mail workflow failed; the mail sweep will start it', {
      error: err instanceof Error ? err.message : String(err),
    });
  });
}
