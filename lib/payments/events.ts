// What a Stripe event means for the service, as a pure function: which user, which subscription state, which grant.
// The activity (activities/payments.ts) reads the stored event, asks this, and applies the answer in one transaction.
import type Stripe from 'stripe';
import { planForPrice, type PlanRow, type PriceCatalog } from './catalog';
import type { SubscriptionFacts } from './types';

export interface UserRef {
  userId: string | null;
  customerId: string | null;
  /** Stripe subscription id. */
  subscriptionId: string | null;
}

/** A change to the stored subscription; fields left out keep their stored value. */
export interface SubscriptionChange {
  externalId: string;
  customerId: string | null;
  planId?: string;
  status?: string;
  cancelAtPeriodEnd?: boolean;
  periodStart?: number | null;
  periodEnd?: number | null;
  /** Seconds: Stripe's time of this state. Older than the stored state: only a grant can still apply. */
  asOf: number;
}

export interface GrantIntent {
  amount: number;
  source: 'plan' | 'payg_purchase';
  /** Seconds since the epoch; null: never expires. */
  expiresAt: number | null;
  /** Unique in the ledger: `stripe-invoice:<invoice id>` for plan tokens, `stripe-checkout:<session id>` for packs. */
  reference: string;
}

export type EventOutcome =
  | { kind: 'ignore'; reason: string }
  | { kind: 'apply'; user: UserRef; subscription?: SubscriptionChange; grant?: GrantIntent };

export interface EventContext {
  catalog: PriceCatalog;
  plans: ReadonlyMap<string, PlanRow>;
  /** The subscription read from Stripe, for a subscription checkout (planEvent says when it is needed). */
  subscription?: SubscriptionFacts;
}

/** Statuses in which the subscription's plan is the user's plan. */
export const PLAN_HOLDING_STATUSES = ['active', 'trialing', 'past_due'];

const idOf = (v: string | { id: string } | null | undefined): string | null =>
  v == null ? null : typeof v === 'string' ? v : v.id;

/**
 * An event that can never be applied as it is (a subscription checkout without a subscription, a time out of range).
 * The activity turns this, and anything else this engine throws on an event, into a non-retryable failure and marks
 * the stored event `failed`.
 */
export class MalformedStripeEventError extends Error {
  override name = 'MalformedStripeEventError';
}

/** Latest second PostgreSQL and JavaScript dates both hold comfortably: 9999-12-31T23:59:59Z. */
export const MAX_STRIPE_SECONDS = 253_402_300_799;

/** A Stripe time in seconds, or null when absent; anything else is malformed. */
function seconds(v: unknown, what: string): number | null {
  if (v == null) return null;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > MAX_STRIPE_SECONDS)
    throw new MalformedStripeEventError(`${what} is not a time in seconds: ${JSON.stringify(v)}`);
  return v;
}

/** The subscription a stored event needs read from Stripe before it can be applied, if any. */
export function subscriptionToRetrieve(event: Stripe.Event): string | null {
  if (event.type !== 'checkout.session.completed' && event.type !== 'checkout.session.async_payment_succeeded')
    return null;
  const s = event.data.object;
  return s.mode === 'subscription' ? idOf(s.subscription) : null;
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

function planGrant(plan: PlanRow | undefined, reference: string, periodEnd: number | null): GrantIntent | undefined {
  if (!plan?.tokensPerMonth) return undefined;
  return {
    amount: plan.tokensPerMonth,
    source: 'plan',
    expiresAt: plan.rollover ? null : periodEnd,
    reference,
  };
}

function fromCheckout(event: Stripe.Event, s: Stripe.Checkout.Session, ctx: EventContext): EventOutcome {
  const user: UserRef = {
    userId: s.client_reference_id ?? s.metadata?.userId ?? null,
    customerId: idOf(s.customer),
    subscriptionId: idOf(s.subscription),
  };
  if (s.mode === 'payment') {
    if (s.payment_status !== 'paid') return { kind: 'ignore', reason: `payment is ${s.payment_status}: no tokens yet` };
    const tokens = Number(s.metadata?.tokens);
    if (!Number.isInteger(tokens) || tokens < 1 || tokens > 10_000_000)
      return { kind: 'ignore', reason: 'the session carries no valid metadata.tokens' };
    return {
      kind: 'apply',
      user,
      grant: { amount: tokens, source: 'payg_purchase', expiresAt: null, reference: `stripe-checkout:${s.id}` },
    };
  }
  if (s.mode !== 'subscription') return { kind: 'ignore', reason: `checkout mode ${s.mode} is not used` };
  if (!user.subscriptionId) throw new MalformedStripeEventError(`subscription checkout ${s.id} names no subscription`);
  const sub = ctx.subscription;
  if (!sub) throw new Error(`subscription ${user.subscriptionId} was not read before applying ${event.id}`);
  const planId = planForPrice(ctx.catalog, sub.priceId);
  if (!planId) return { kind: 'ignore', reason: `price ${sub.priceId} is not a plan` };
  user.userId ??= sub.userId;
  user.customerId ??= sub.customerId;
  // The first period's grant is referenced by the first invoice, as its invoice.paid is. A session naming no invoice
  // uses the subscription's first invoice, never its latest: applied after a renewal, the latest is the renewal's.
  const invoice = idOf(s.invoice) ?? sub.firstInvoiceId;
  const granting = ['active', 'trialing'].includes(sub.status) && invoice;
  return {
    kind: 'apply',
    user,
    subscription: change(sub, planId),
    grant: granting
      ? planGrant(ctx.plans.get(planId), `stripe-invoice:${invoice}`, sub.periodEnd ?? oneMonthAfter(sub.asOf))
      : undefined,
  };
}

const change = (sub: SubscriptionFacts, planId: string | undefined): SubscriptionChange => ({
  externalId: sub.id,
  customerId: sub.customerId,
  ...(planId ? { planId } : {}),
  status: sub.status,
  cancelAtPeriodEnd: sub.cancelAtPeriodEnd,
  periodStart: sub.periodStart,
  periodEnd: sub.periodEnd,
  asOf: sub.asOf,
});

function fromInvoice(event: Stripe.Event, inv: Stripe.Invoice, ctx: EventContext): EventOutcome {
  const details = inv.parent?.subscription_details;
  const subscriptionId = idOf(details?.subscription);
  if (!subscriptionId) return { kind: 'ignore', reason: 'not a subscription invoice' };
  const line = inv.lines?.data?.find((l) => l.pricing?.price_details?.price) ?? inv.lines?.data?.[0];
  const priceId = idOf(line?.pricing?.price_details?.price);
  const planId = planForPrice(ctx.catalog, priceId);
  if (!planId) return { kind: 'ignore', reason: `price ${priceId} is not a plan` };
  const periodStart = seconds(line?.period?.start, 'the line period start');
  const periodEnd = seconds(line?.period?.end, 'the line period end');
  return {
    kind: 'apply',
    user: { userId: details?.metadata?.userId ?? null, customerId: idOf(inv.customer), subscriptionId },
    subscription: {
      externalId: subscriptionId,
      customerId: idOf(inv.customer),
      planId,
      status: 'active',
      periodStart,
      periodEnd,
      asOf: event.created,
    },
    grant: planGrant(ctx.plans.get(planId), `stripe-invoice:${inv.id}`, periodEnd),
  };
}

export function interpretEvent(event: Stripe.Event, ctx: EventContext): EventOutcome {
  switch (event.type) {
    case 'checkout.session.completed':
    case 'checkout.session.async_payment_succeeded':
      return fromCheckout(event, event.data.object, ctx);
    case 'invoice.paid':
      return fromInvoice(event, event.data.object, ctx);
    case 'customer.subscription.updated':
    case 'customer.subscription.deleted': {
      const facts = subscriptionFacts(event.data.object, event.created);
      if (event.type === 'customer.subscription.deleted') facts.status = 'canceled';
      return {
        kind: 'apply',
        user: { userId: facts.userId, customerId: facts.customerId, subscriptionId: facts.id },
        subscription: change(facts, planForPrice(ctx.catalog, facts.priceId)),
      };
    }
    default:
      return { kind: 'ignore', reason: `event type ${event.type} is not used` };
  }
}
