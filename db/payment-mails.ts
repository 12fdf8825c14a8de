// The mails a paying customer expects (docs/accounts.md#payment-mails): payment failed, subscription cancelled or
// ending, tokens running low, tokens taken back by a refund or dispute. Each is written to the outbox in the
// transaction of the ledger or payment change that causes it. The database knows no public address: links are written
// with PUBLIC_BASE_URL_PLACEHOLDER, which the send activity replaces with PUBLIC_BASE_URL.
import { allowancePeriod } from '../lib/accounts/allowance';
import type { Tx } from './client';
import { enqueueMail } from './mail-outbox';

export const PUBLIC_BASE_URL_PLACEHOLDER = '{{PUBLIC_BASE_URL}}';
const BILLING = `${PUBLIC_BASE_URL_PLACEHOLDER}/billing`;

/** Share of the plan's monthly tokens under which the balance counts as running low. */
export const LOW_BALANCE_SHARE = 0.1;

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

/**
 * A debit took the balance from at least 10 % of the plan's monthly tokens to under it: mailed once per period (the
 * current subscription's, else the Free allowance's), recorded in users.low_balance_mailed_for.
 */
export async function mailIfTokensLow(
  tx: Tx,
  u: { id: string; email: string; createdAt: Date; monthly: number | null },
  before: number,
  after: number,
): Promise<void> {
  if (!u.monthly) return;
  const threshold = u.monthly * LOW_BALANCE_SHARE;
  if (!(before >= threshold && after < threshold)) return;
  const [sub] = await tx<{ start: Date | null }[]>`
    select current_period_start as start from subscriptions
    where user_id = ${u.id} and status in ('active', 'trialing', 'past_due') and current_period_start <= now()
    order by current_period_start desc limit 1`;
  const period = sub?.start ?? allowancePeriod(u.createdAt, new Date()).start;
  const marked = await tx`
    update users set low_balance_mailed_for = ${period}
    where id = ${u.id} and deleted_at is null and low_balance_mailed_for is distinct from ${period}`;
  if (marked.count === 0) return;
  await enqueueMail(tx, {
    userId: u.id,
    to: u.email,
    message: { kind: 'tokens_low', balance: after, monthly: u.monthly, billingLink: BILLING },
  });
}
