// What a stored Stripe event needs read from Stripe before it can be applied (the subscription of a subscription
// checkout, a paid pack checkout's line items), and the facts kept of what was read.
import type Stripe from 'stripe';
import type { StripeRead, SubscriptionFacts } from './types';
import { idOf, seconds } from './event-values';

/** A checkout the service recorded when it created the session (db: checkout_sessions). */
export interface KnownSession {
  userId: string;
  mode: string;
}

const isCheckout = (event: Stripe.Event) =>
  event.type === 'checkout.session.completed' || event.type === 'checkout.session.async_payment_succeeded';

/** The checkout session an event is about (its recorded row decides whose it is), if it is a checkout event. */
export function checkoutSessionOf(event: Stripe.Event): string | null {
  if (!isCheckout(event)) return null;
  const id = (event.data.object as { id?: unknown }).id;
  return typeof id === 'string' ? id : null;
}

/**
 * What a stored checkout event needs read from Stripe before it can be applied, if anything: the subscription of a
 * subscription checkout, the line items of a paid pack checkout. Nothing for a session this service did not create
 * (it is ignored) or a pack not paid yet.
 */
export function checkoutNeeds(event: Stripe.Event, session: KnownSession | null): StripeRead | null {
  if (!isCheckout(event) || !session) return null;
  const s = event.data.object as Stripe.Checkout.Session;
  if (s.mode !== session.mode) return null;
  if (s.mode === 'subscription') {
    const id = idOf(s.subscription);
    return id ? { subscriptionId: id } : null;
  }
  if (s.mode === 'payment' && s.payment_status === 'paid') return { lineItemsOf: s.id };
  return null;
}

/** The subscription a stored event needs read from Stripe before it can be applied, if any. */
export function subscriptionToRetrieve(event: Stripe.Event, session: KnownSession | null): string | null {
  const need = checkoutNeeds(event, session);
  return need && 'subscriptionId' in need ? need.subscriptionId : null;
}

/** The facts kept of a subscription object (from the API or from a customer.subscription.* event). */
export function subscriptionFacts(sub: Stripe.Subscription, asOf: number): SubscriptionFacts {
  const item = sub.items?.data?.[0];
  const start = seconds(item?.current_period_start, 'current_period_start');
  const end = seconds(item?.current_period_end, 'current_period_end');
  // A period whose end is not after its start is no period (stripe-mock's fixture has one): kept as unknown.
  const usable = start != null && end != null && end > start;
  const latest = sub.latest_invoice;
  return {
    id: sub.id,
    customerId: idOf(sub.customer),
    status: sub.status,
    cancelAtPeriodEnd: Boolean(sub.cancel_at_period_end),
    priceId: item?.price?.id ?? null,
    periodStart: usable ? start : null,
    periodEnd: usable ? end : null,
    // Known from the subscription alone only while its latest invoice (expanded) is the one that created it.
    firstInvoiceId:
      latest && typeof latest === 'object' && latest.billing_reason === 'subscription_create'
        ? (latest.id ?? null)
        : null,
    userId: sub.metadata?.userId ?? null,
    asOf,
  };
}

/**
 * A subscription's first invoice among all of its invoices: the one with billing_reason `subscription_create`, else
 * the oldest (a subscription's first invoice is the one made when it was created).
 */
export function firstInvoiceOf(
  invoices: readonly { id?: string | null; billing_reason?: string | null; created: number }[],
): string | null {
  const create = invoices.find((i) => i.billing_reason === 'subscription_create' && i.id);
  if (create) return create.id!;
  let oldest: { id?: string | null; created: number } | undefined;
  for (const i of invoices) if (i.id && (!oldest || i.created < oldest.created)) oldest = i;
  return oldest?.id ?? null;
}

/** Seconds: the same day and time one calendar month later (UTC), clamped to the month's last day. */
export function oneMonthAfter(seconds: number): number {
  const d = new Date(seconds * 1000);
  const target = new Date(
    Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1, d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds()),
  );
  const lastDay = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(d.getUTCDate(), lastDay));
  return Math.floor(target.getTime() / 1000);
}
