// What a Stripe event means for the service, as a pure function: which user, which subscription state, which grant.
// The activity (activities/payments.ts) reads the stored event, asks this, and applies the answer in one transaction.
import type Stripe from 'stripe';
import { packForPrice, planForPrice, type PlanRow, type PriceCatalog } from './catalog';
import type { LineItemFacts, SubscriptionFacts } from './types';
import { idOf, MalformedStripeEventError, seconds, cents } from './event-values';
import { subscriptionFacts, oneMonthAfter, type KnownSession } from './event-reads';

export type { LineItemFacts };

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
  /**
   * A plan change's top-up: the grant is cut so that the plan tokens of this subscription expiring at `periodEnd`
   * never exceed `planTokens` (an upgrade, a downgrade and an upgrade again grant the difference once).
   */
  topUpTo?: { planTokens: number; periodEnd: number };
}

/** A pack purchase as this service recorded it (db: checkout_sessions). */
export interface Purchase {
  sessionId: string;
  userId: string;
  amountTotal: number | null;
  tokensGranted: number;
  refundedAmount: number;
  refunds: Record<string, number>;
  tokensRefunded: number;
}

/** What a charge.refunded / refund.* / charge.dispute.* event says about the payment of a purchase. */
export type MoneyBack =
  | {
      kind: 'refund';
      paymentIntent: string;
      /** cumulative cents refunded on the charge (charge.refunded), when the event says */
      amountRefunded: number | null;
      /** the charge's amount in cents, when the event says */
      amount: number | null;
      /** refunds named one by one (refund.created / refund.updated): id -> cents, 0 when failed or canceled */
      refunds: Record<string, number>;
    }
  | { kind: 'dispute'; paymentIntent: string; disputeId: string; amount: number; status: string; closed: boolean };

export type EventOutcome =
  | { kind: 'ignore'; reason: string }
  | {
      kind: 'apply';
      user: UserRef;
      subscription?: SubscriptionChange;
      grant?: GrantIntent;
      /** a pack's grant: the payment it was paid with, kept with the recorded session for refunds and disputes */
      purchase?: { sessionId: string; paymentIntent: string | null; amountTotal: number | null };
      /** a subscription invoice's payment failed: the owner is mailed (amount due as text, e.g. "29.00 USD") */
      paymentFailed?: { amountDue: string | null };
    }
  /** a refund or dispute of a purchase's payment: the purchase is found by its payment_intent when applying */
  | { kind: 'money_back'; moneyBack: MoneyBack };

export interface EventContext {
  catalog: PriceCatalog;
  plans: ReadonlyMap<string, PlanRow>;
  /** The subscription read from Stripe, for a subscription checkout (planEvent says when it is needed). */
  subscription?: SubscriptionFacts;
  /** The checkout session as this service recorded it at checkout; null: a session it did not create. */
  session?: KnownSession | null;
  /** The session's line items read from Stripe, for a pack checkout (checkoutNeeds says when they are needed). */
  lineItems?: LineItemFacts[];
}

/** Statuses in which the subscription's plan is the user's plan. */
export const PLAN_HOLDING_STATUSES = ['active', 'trialing', 'past_due'];

function planGrant(plan: PlanRow | undefined, reference: string, periodEnd: number | null): GrantIntent | undefined {
  if (!plan?.tokensPerMonth) return undefined;
  return {
    amount: plan.tokensPerMonth,
    source: 'plan',
    expiresAt: plan.rollover ? null : periodEnd,
    reference,
  };
}

/** The tokens of the packs on a session's line items (price × quantity); 0 when none is a pack of the catalogue. */
export function packTokens(catalog: PriceCatalog, items: readonly LineItemFacts[]): number {
  let tokens = 0;
  for (const i of items) {
    const pack = i.priceId ? packForPrice(catalog, i.priceId) : undefined;
    if (pack && Number.isInteger(i.quantity) && i.quantity > 0) tokens += pack.tokens * i.quantity;
  }
  return tokens;
}

function fromCheckout(event: Stripe.Event, s: Stripe.Checkout.Session, ctx: EventContext): EventOutcome {
  // Only a session this service created, for the account that created it: client_reference_id and metadata are
  // whatever the session's creator put there (a Payment Link's buyer sets client_reference_id).
  const known = ctx.session;
  if (!known) return { kind: 'ignore', reason: `checkout session ${s.id} was not created by this service` };
  if (known.mode !== s.mode) return { kind: 'ignore', reason: `checkout session ${s.id} is not in ${known.mode} mode` };
  const user: UserRef = {
    userId: known.userId,
    customerId: idOf(s.customer),
    subscriptionId: idOf(s.subscription),
  };
  if (s.mode === 'payment') {
    if (s.payment_status !== 'paid') return { kind: 'ignore', reason: `payment is ${s.payment_status}: no tokens yet` };
    if (!ctx.lineItems) throw new Error(`the line items of ${s.id} were not read before applying ${event.id}`);
    // What was paid decides: the packs whose prices are on the session's line items, never metadata.
    const tokens = packTokens(ctx.catalog, ctx.lineItems);
    if (tokens < 1) return { kind: 'ignore', reason: `no token pack on the line items of ${s.id}` };
    return {
      kind: 'apply',
      user,
      grant: { amount: tokens, source: 'payg_purchase', expiresAt: null, reference: `stripe-checkout:${s.id}` },
      purchase: {
        sessionId: s.id,
        paymentIntent: idOf(s.payment_intent),
        amountTotal: cents(s.amount_total, 'amount_total'),
      },
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

type InvoiceLine = Stripe.InvoiceLineItem;

/** A proration line (unused time on the old price, remaining time on the new one). */
const isProration = (l: InvoiceLine) =>
  Boolean(
    l.parent?.subscription_item_details?.proration ??
    l.parent?.invoice_item_details?.proration ??
    (l as { proration?: boolean }).proration,
  );
const priceOf = (l: InvoiceLine | undefined) => idOf(l?.pricing?.price_details?.price);

/**
 * A proration invoice (billing_reason `subscription_update`, paid at once when the plan changes mid-period): an
 * upgrade grants the difference of the two plans' monthly tokens, expiring with the period, once; a downgrade grants
 * nothing (the renewal grants the new plan's month). The old plan is the price of the credit line (negative amount),
 * the new one the price of the charged line.
 */
function fromProration(
  event: Stripe.Event,
  inv: Stripe.Invoice,
  ctx: EventContext,
  user: UserRef,
  subscriptionId: string,
): EventOutcome {
  const lines = (inv.lines?.data ?? []).filter((l) => planForPrice(ctx.catalog, priceOf(l)));
  const charged = lines.filter((l) => (l.amount ?? 0) > 0).at(-1) ?? lines.find((l) => !isProration(l));
  const credited = lines.find((l) => (l.amount ?? 0) < 0);
  const newPlan = planForPrice(ctx.catalog, priceOf(charged));
  if (!newPlan) return { kind: 'ignore', reason: 'no plan price on the proration invoice' };
  const oldPlan = planForPrice(ctx.catalog, priceOf(credited));
  const periodEnd = seconds(charged?.period?.end, 'the line period end');
  const newTokens = ctx.plans.get(newPlan)?.tokensPerMonth ?? 0;
  const oldTokens = oldPlan ? (ctx.plans.get(oldPlan)?.tokensPerMonth ?? 0) : null;
  const difference = oldTokens == null ? 0 : newTokens - oldTokens;
  return {
    kind: 'apply',
    user,
    subscription: {
      externalId: subscriptionId,
      customerId: idOf(inv.customer),
      planId: newPlan,
      asOf: event.created,
    },
    grant:
      difference > 0
        ? {
            amount: difference,
            source: 'plan',
            expiresAt: ctx.plans.get(newPlan)?.rollover ? null : periodEnd,
            reference: `stripe-invoice:${inv.id}`,
            ...(periodEnd != null ? { topUpTo: { planTokens: newTokens, periodEnd } } : {}),
          }
        : undefined,
  };
}

function fromInvoice(event: Stripe.Event, inv: Stripe.Invoice, ctx: EventContext): EventOutcome {
  const details = inv.parent?.subscription_details;
  const subscriptionId = idOf(details?.subscription);
  if (!subscriptionId) return { kind: 'ignore', reason: 'not a subscription invoice' };
  const user: UserRef = { userId: details?.metadata?.userId ?? null, customerId: idOf(inv.customer), subscriptionId };
  if (inv.billing_reason === 'subscription_update') return fromProration(event, inv, ctx, user, subscriptionId);
  // A renewal (or the first invoice) grants the month of the plan it bills: its line that is not a proration (a
  // renewal may also carry the prorations of a change made during the last period), the latest period first.
  const all = inv.lines?.data ?? [];
  const priced = all.filter((l) => l.pricing?.price_details?.price);
  const line =
    [...priced].reverse().find((l) => !isProration(l) && planForPrice(ctx.catalog, priceOf(l))) ?? priced[0] ?? all[0];
  const priceId = priceOf(line);
  const planId = planForPrice(ctx.catalog, priceId);
  if (!planId) return { kind: 'ignore', reason: `price ${priceId} is not a plan` };
  const periodStart = seconds(line?.period?.start, 'the line period start');
  const periodEnd = seconds(line?.period?.end, 'the line period end');
  return {
    kind: 'apply',
    user,
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
    case 'invoice.payment_failed': {
      const inv = event.data.object;
      const due = typeof inv.amount_due === 'number' ? inv.amount_due : null;
      return {
        kind: 'apply',
        user: { userId: null, customerId: idOf(inv.customer), subscriptionId: null },
        paymentFailed: {
          amountDue: due === null ? null : `${(due / 100).toFixed(2)} ${(inv.currency ?? '').toUpperCase()}`.trim(),
        },
      };
    }
    case 'charge.refunded': {
      const c = event.data.object;
      const pi = idOf(c.payment_intent);
      if (!pi) return { kind: 'ignore', reason: 'the charge names no payment_intent' };
      const refunds: Record<string, number> = {};
      for (const r of c.refunds?.data ?? []) if (r.id) refunds[r.id] = refundCents(r);
      return {
        kind: 'money_back',
        moneyBack: {
          kind: 'refund',
          paymentIntent: pi,
          amountRefunded: cents(c.amount_refunded, 'amount_refunded'),
          amount: cents(c.amount, 'amount'),
          refunds,
        },
      };
    }
    case 'refund.created':
    case 'refund.updated': {
      const r = event.data.object;
      const pi = idOf(r.payment_intent);
      if (!pi) return { kind: 'ignore', reason: 'the refund names no payment_intent' };
      return {
        kind: 'money_back',
        moneyBack: {
          kind: 'refund',
          paymentIntent: pi,
          amountRefunded: null,
          amount: null,
          refunds: { [r.id]: refundCents(r) },
        },
      };
    }
    case 'charge.dispute.created':
    case 'charge.dispute.closed': {
      const d = event.data.object;
      const pi = idOf(d.payment_intent);
      if (!pi) return { kind: 'ignore', reason: 'the dispute names no payment_intent' };
      return {
        kind: 'money_back',
        moneyBack: {
          kind: 'dispute',
          paymentIntent: pi,
          disputeId: d.id,
          amount: cents(d.amount, 'amount') ?? 0,
          status: d.status,
          closed: event.type === 'charge.dispute.closed',
        },
      };
    }
    default:
      return { kind: 'ignore', reason: `event type ${event.type} is not used` };
  }
}

/** A refund's cents, 0 when it failed or was canceled (it returned nothing). */
function refundCents(r: Stripe.Refund): number {
  if (r.status === 'failed' || r.status === 'canceled') return 0;
  return cents(r.amount, 'refund amount') ?? 0;
}

/** A purchase's refunded cents: the larger of the charge's cumulative amount and the refunds seen one by one. */
export function refundedCents(p: Pick<Purchase, 'refundedAmount' | 'refunds'>): number {
  return Math.max(
    p.refundedAmount,
    Object.values(p.refunds).reduce((a, b) => a + b, 0),
  );
}

/** Tokens a refunded share takes back of a purchase: ceil(refunded / amount × tokens), at most what it granted. */
export function refundShare(tokensGranted: number, refunded: number, amount: number | null): number {
  if (tokensGranted <= 0 || refunded <= 0) return 0;
  if (!amount || amount <= 0 || refunded >= amount) return tokensGranted;
  return Math.min(tokensGranted, Math.ceil((refunded * tokensGranted) / amount));
}

/** Dispute statuses after which the money stays with the merchant, so the tokens come back. */
export const DISPUTE_RETURNING_STATUSES = ['won', 'warning_closed'];
