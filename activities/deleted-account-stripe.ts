// Undoing at Stripe what an event for a deleted account started (db/deleted-account-events.ts): its subscription
// cancelled at once, a pack's payment refunded, and the paid invoices of a subscription that appeared after the
// deletion refunded (its first invoice: what the checkout charged). Each call carries an idempotency key, so a retried
// activity asks nothing twice, and a refund's key is its invoice payment's, so the three events of one paid checkout
// (session completed, subscription created, invoice paid) refund it once; what Stripe no longer has counts as done.
import type { Sql } from '../db/client';
import { recordDeletedAccountUndo, type DeletedAccountUndo } from '../db/deleted-account-events';
import type { Logger } from '../lib/log';
import type { StripeGateway } from '../lib/payments/gateway';

const gone = (err: unknown) => {
  const e = err as { statusCode?: number; code?: string };
  return e.statusCode === 404 || e.code === 'resource_missing' || e.code === 'charge_already_refunded';
};

export async function undoForDeletedAccount(
  deps: { sql: Sql; log: Logger; stripe: StripeGateway },
  eventId: string,
  undo: DeletedAccountUndo,
): Promise<NonNullable<DeletedAccountUndo['done']>> {
  if (undo.done) return undo.done;
  const { stripe } = deps;
  let cancelled = false;
  let refundId: string | null = null;
  if (undo.subscriptionId) {
    try {
      await stripe.cancelSubscription(undo.subscriptionId, { idempotencyKey: `deleted-account-cancel-${eventId}` });
      cancelled = true;
    } catch (err) {
      if (!gone(err)) throw err;
    }
  }
  if (undo.paymentIntent) {
    try {
      const refund = await stripe.createRefund(
        { payment_intent: undo.paymentIntent, reason: 'requested_by_customer', metadata: { eventId } },
        { idempotencyKey: `deleted-account-refund-${eventId}` },
      );
      refundId = refund.id;
    } catch (err) {
      if (!gone(err)) throw err;
    }
  }
  const invoiceRefunds =
    undo.refundInvoices && undo.subscriptionId ? await refundPaidInvoices(stripe, undo.subscriptionId) : undefined;
  const done = { cancelled, refundId, ...(invoiceRefunds ? { invoiceRefunds } : {}) };
  await recordDeletedAccountUndo(deps.sql, eventId, done);
  deps.log.warn('stripe event for a deleted account: undone at Stripe', { eventId, ...undo, ...done });
  return done;
}

/** Most invoices a subscription that appeared after its account's deletion is looked at for (it lived minutes). */
const INVOICES_LOOKED_AT = 20;

/** Refunds every paid invoice of the subscription (each of its payments), once per payment; the refunds' ids. */
async function refundPaidInvoices(stripe: StripeGateway, subscriptionId: string): Promise<string[]> {
  const ids: string[] = [];
  const invoices = await stripe.paidInvoices(subscriptionId, INVOICES_LOOKED_AT);
  for (const invoice of invoices) {
    if (!invoice.id || invoice.status !== 'paid' || !invoice.amount_paid) continue;
    const payments = await stripe.paidInvoicePayments(invoice.id);
    for (const p of payments) {
      const idOf = (x: string | { id: string } | null | undefined) => (typeof x === 'string' ? x : (x?.id ?? null));
      const paymentIntent = idOf(p.payment.payment_intent);
      const charge = idOf(p.payment.charge);
      if (!paymentIntent && !charge) continue;
      try {
        const refund = await stripe.createRefund(
          {
            ...(paymentIntent ? { payment_intent: paymentIntent } : { charge: charge! }),
            reason: 'requested_by_customer',
            metadata: { invoiceId: invoice.id, subscriptionId, why: 'account deleted' },
          },
          { idempotencyKey: `deleted-account-refund-${p.id}` },
        );
        ids.push(refund.id);
      } catch (err) {
        if (!gone(err)) throw err;
      }
    }
  }
  return ids;
}
