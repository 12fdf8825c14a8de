// mail-<outbox id>: delivers one outbox row. The send is retried with backoff for about a day (SMTP down, greylisting);
// a permanent refusal (5xx) or the end of the retries marks the row failed. The row records that it was sent, so the
// mail goes out at most once per row whatever runs twice.
import { ActivityFailure, ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import type { AccountDeletionActivities } from '../activities/account-deletion';
import type { MailActivities } from '../activities/mail';
import { MAIL_REJECTED, type SendMailInput, type SendMailResult } from '../lib/mail/types';

const smtp = proxyActivities<MailActivities>({
  startToCloseTimeout: '1 minute',
  retry: {
    initialInterval: '10 seconds',
    backoffCoefficient: 2,
    maximumInterval: '1 hour',
    // 10 s, 20 s, ... then hourly: about a day in all
    maximumAttempts: 30,
    nonRetryableErrorTypes: [MAIL_REJECTED],
  },
});

const db = proxyActivities<MailActivities & AccountDeletionActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 20 },
});

export async function sendMail(input: SendMailInput): Promise<SendMailResult | { status: 'failed'; error: string }> {
  try {
    return await smtp.sendOutboxMail(input);
  } catch (err) {
    if (!(err instanceof ActivityFailure)) throw err;
    const error = err.cause instanceof ApplicationFailure ? err.cause.message : (err.cause?.message ?? err.message);
    await db.failOutboxMail({ ...input, error });
    return { status: 'failed', error };
  }
}

/**
 * Every minute, started by the `accounts-sweep` schedule: starts the workflow of each unsent outbox row and of each
 * account deletion whose start was lost (the process that wrote them died first, or Temporal was unreachable).
 */
export async function accountsSweep(): Promise<{ mailsStarted: number; deletionsStarted: number }> {
  const mails = await db.startWaitingMails();
  const deletions = await db.startUnfinishedDeletions();
  return { mailsStarted: mails.started, deletionsStarted: deletions.started };
}
