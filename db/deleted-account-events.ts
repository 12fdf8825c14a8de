// A Stripe event for an account whose deletion was asked for (docs/accounts.md#deletion): it never grants tokens
// nor creates or changes a plan. It is recorded ignored, its payload erased at once, and what it started at Stripe
// (a subscription, a paid pack) is named in the result for the event's activity to undo: the subscription cancelled,
// the pack's payment refunded, and the paid invoices of a subscription that appeared after the deletion (one this
// service never recorded: a checkout opened before and paid anyway) refunded (activities/deleted-account-stripe.ts,
// each call with an idempotency key). A subscription recorded before the deletion is cancelled by the deletion and
// keeps the invoices paid while the account lived.
import type { EventOutcome } from '../lib/payments/events';
import type { Tx } from './client';

/** What an event for a deleted account asks to undo at Stripe, and what was done (set after the Stripe calls). */
export interface DeletedAccountUndo {
  subscriptionId: string | null;
  paymentIntent: string | null;
  /** the subscription appeared after the deletion (never recorded here): its paid invoices are refunded too */
  refundInvoices?: boolean;
  /**
   * set once Stripe answered: the subscription cancelled, the pack's payment refunded (the refund's id), the
   * subscription's paid invoices refunded (their refunds' ids)
   */
  done?: { cancelled: boolean; refundId: string | null; invoiceRefunds?: string[] };
}

/** The payload an erased event keeps: its object's id and type, nothing of the customer. */
export const ERASED_PAYLOAD = (tx: Tx) => tx`jsonb_build_object('erased', true, 'data',
  jsonb_build_object('object', jsonb_build_object('id', payload #> '{data,object,id}',
                                                  'object', payload #> '{data,object,object}')))`;

/** The recorded result of an event for the deleted account `userId` (locked, and found deleted, by the caller). */
export async function deletedAccountEvent(
  tx: Tx,
  userId: string,
  eventId: string,
  outcome: Extract<EventOutcome, { kind: 'apply' }>,
): Promise<{ status: 'ignored'; granted: 0; userId: string; reason: string; undo?: DeletedAccountUndo }> {
  await tx`update stripe_events set payload = ${ERASED_PAYLOAD(tx)} where id = ${eventId}`;
  const subscriptionId = outcome.subscription?.externalId ?? outcome.user.subscriptionId ?? null;
  // only a pack's payment is refunded here (its grant is what was paid for); a subscription's is its invoice's
  const paymentIntent = outcome.grant && outcome.purchase ? outcome.purchase.paymentIntent : null;
  const [known] = subscriptionId
    ? await tx`select 1 from subscriptions where stripe_subscription_id = ${subscriptionId}`
    : [];
  const refundInvoices = subscriptionId !== null && !known;
  const undo =
    subscriptionId || paymentIntent
      ? { subscriptionId, paymentIntent, ...(refundInvoices ? { refundInvoices } : {}) }
      : undefined;
  return { status: 'ignored', granted: 0, userId, reason: 'account deleted', ...(undo ? { undo } : {}) };
}

/** Records what was undone at Stripe for an event of a deleted account. */
export async function recordDeletedAccountUndo(
  sql: Tx,
  eventId: string,
  done: NonNullable<DeletedAccountUndo['done']>,
): Promise<void> {
  await sql`update stripe_events set result = jsonb_set(result, '{undo,done}', ${sql.json(done)})
            where id = ${eventId} and result ? 'undo'`;
}
