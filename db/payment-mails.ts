// The mails a paying customer expects (docs/accounts.md#payment-mails): payment failed, subscription cancelled or
// ending, tokens running low, tokens taken back by a refund or dispute. Each is written to the outbox in the
// transaction of the ledger or payment change that causes it; tokens running low by the debit itself, in SQL
// (ledger_mail_if_low, db/migrations/032_one_round_trip_charge.sql: under 10 % of the plan's month, once per period,
// the link BILLING's), as its message, rendered when sent (db/mail-outbox.ts). The database knows no public address:
// links are written with PUBLIC_BASE_URL_PLACEHOLDER, which the send activity replaces with PUBLIC_BASE_URL.
import type { Tx } from './client';
import { enqueueMail } from './mail-outbox';

export const PUBLIC_BASE_URL_PLACEHOLDER = '{{PUBLIC_BASE_URL}}';
const BILLING = `${PUBLIC_BASE_URL_PLACEHOLDER}/billing`;

async function liveEmail(tx: Tx, userId: string): Promise<string | null> {
  const [u] = await tx<{ email: string }[]>`select email from users where id = ${userId} and deleted_at is null`;
  return u?.email ?? null;
}

/** invoice.payment_failed: the customer is sent to Billing, whose Manage billing opens Stripe's portal. */
export async function mailPaymentFailed(tx: Tx, userId: string, amountDue: string | null): Promise<void> {
  const to = await liveEmail(tx, userId);
  if (to) await enqueueMail(tx, { userId, to, message: { kind: 'payment_failed', portalLink: BILLING, amountDue } });
}

/** A subscription was cancelled (ended now) or set to end at its period's end. */
export async function mailSubscriptionEnding(tx: Tx, userId: string, endsAt: Date | null): Promise<void> {
  const to = await liveEmail(tx, userId);
  if (to)
    await enqueueMail(tx, {
      userId,
      to,
      message: {
        kind: 'subscription_ending',
        endsAt: endsAt ? endsAt.toISOString().slice(0, 10) : null,
        billingLink: BILLING,
      },
    });
}

/** A refund or dispute took tokens back (`owed`: what the balance did not cover). */
export async function mailTokensTakenBack(
  tx: Tx,
  userId: string,
  t: { tokens: number; owed: number; why: 'refund' | 'dispute' },
): Promise<void> {
  if (t.tokens <= 0) return;
  const to = await liveEmail(tx, userId);
  if (to) await enqueueMail(tx, { userId, to, message: { kind: 'tokens_taken_back', ...t, billingLink: BILLING } });
}
