// Undoing at Stripe what an event for a deleted account started (db/deleted-account-events.ts): its subscription
// cancelled at once, a pack's payment refunded. Each call carries an idempotency key, so a retried activity asks
// nothing twice; what Stripe no longer has counts as done.
import type { Sql } from '../db/client';
import { recordDeletedAccountUndo, type DeletedAccountUndo } from '../db/deleted-account-events';
import type { Logger } from '../lib/log';
import type { Stripe } from '../lib/payments/stripe';

const gone = (err: unknown) => {
  const e = err as { statusCode?: number; code?: string };
  return e.statusCode === 404 || e.code === 'resource_missing' || e.code === 'charge_already_refunded';
};

export async function undoForDeletedAccount(
  deps: { sql: Sql; log: Logger; stripe: () => Stripe },
  eventId: string,
  undo: DeletedAccountUndo,
): Promise<NonNullable<DeletedAccountUndo['done']>> {
  if (undo.done) return undo.done;
  const stripe = deps.stripe();
  let cancelled = false;
  let refundId: string | null = null;
  if (undo.subscriptionId) {
    try {
      await stripe.subscriptions.cancel(
        undo.subscriptionId,
        {},
        { idempotencyKey: `deleted-account-cancel-${eventId}` },
      );
      cancelled = true;
    } catch (err) {
      if (!gone(err)) throw err;
    }
  }
  if (undo.paymentIntent) {
    try {
      const refund = await stripe.refunds.create(
        { payment_intent: undo.paymentIntent, reason: 'requested_by_customer', metadata: { eventId } },
        { idempotencyKey: `deleted-account-refund-${eventId}` },
      );
      refundId = refund.id;
    } catch (err) {
      if (!gone(err)) throw err;
    }
  }
  const done = { cancelled, refundId };
  await recordDeletedAccountUndo(deps.sql, eventId, done);
  deps.log.warn('stripe event for a deleted account: undone at Stripe', { eventId, ...undo, ...done });
  return done;
}
