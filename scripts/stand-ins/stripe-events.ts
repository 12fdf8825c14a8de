// Stripe events as Stripe sends them (API version 2026-10-28), signed with the endpoint secret: for
// `npm run stripe:event`, the benchmark and the tests. Development tooling: the service itself only receives them.
import { randomBytes } from 'node:crypto';
import { signStripePayload } from '../../lib/payments/stripe';

const rid = (prefix: string) => `${prefix}_${randomBytes(9).toString('hex')}`;
const now = () => Math.floor(Date.now() / 1000);
export const DAY_S = 86_400;

export interface Period {
  start: number;
  end: number;
}

export function checkoutSession(o: {
  userId: string;
  mode: 'payment' | 'subscription';
  paid?: boolean;
  tokens?: number;
  /** null: none (a malformed subscription session) */
  subscription?: string | null;
  /** null: the session names no invoice */
  invoice?: string | null;
  customer?: string;
  /**
   * The session's id. The service grants only for sessions it created (recorded at checkout): a test creates one
   * through `POST /api/payments/checkout` and passes its id here.
   */
  id?: string;
  /** a pack's payment (payment mode; a new one unless told) */
  paymentIntent?: string;
  /** cents paid (payment mode) */
  amountTotal?: number;
}) {
  return {
    id: o.id ?? rid('cs_test'),
    object: 'checkout.session',
    mode: o.mode,
    status: 'complete',
    payment_status: o.paid === false ? 'unpaid' : 'paid',
    client_reference_id: o.userId,
    customer: o.customer ?? rid('cus'),
    subscription: o.mode === 'subscription' ? (o.subscription === undefined ? rid('sub_test') : o.subscription) : null,
    invoice: o.mode === 'subscription' ? (o.invoice === undefined ? rid('in_test') : o.invoice) : null,
    payment_intent: o.mode === 'payment' ? (o.paymentIntent ?? rid('pi_test')) : null,
    amount_total: o.mode === 'payment' ? (o.amountTotal ?? 900) : null,
    currency: 'usd',
    metadata: { userId: o.userId, ...(o.tokens ? { tokens: String(o.tokens) } : {}) },
  };
}

/**
 * A proration invoice (billing_reason `subscription_update`), as Stripe bills a plan change at once: a credit line for
 * the unused time on the old price and a charged line for the remaining time on the new one, to the period end.
 */
export function prorationInvoice(o: {
  userId: string;
  subscription: string;
  from: string;
  to: string;
  periodEnd: number;
  id?: string;
  customer?: string;
}) {
  const start = now();
  const line = (price: string, amount: number, description: string) => ({
    id: rid('il'),
    object: 'line_item',
    amount,
    description,
    period: { start, end: o.periodEnd },
    parent: {
      type: 'subscription_item_details',
      subscription_item_details: { subscription: o.subscription, proration: true, subscription_item: rid('si') },
    },
    pricing: { type: 'price_details', price_details: { price, product: 'prod_test' } },
  });
  return {
    ...paidInvoice({ ...o, price: o.to, billingReason: 'subscription_update', period: { start, end: o.periodEnd } }),
    lines: {
      object: 'list',
      data: [line(o.from, -1500, `Unused time on ${o.from}`), line(o.to, 4500, `Remaining time on ${o.to}`)],
    },
  };
}

/** A charge refunded (in part or in full): `amount_refunded` is the cumulative amount refunded so far. */
export function refundedCharge(o: { paymentIntent: string; amount: number; amountRefunded: number; id?: string }) {
  return {
    id: o.id ?? rid('ch_test'),
    object: 'charge',
    amount: o.amount,
    amount_refunded: o.amountRefunded,
    refunded: o.amountRefunded >= o.amount,
    currency: 'usd',
    payment_intent: o.paymentIntent,
    status: 'succeeded',
  };
}

/** A refund of a payment (refund.created / refund.updated). */
export function refund(o: { paymentIntent: string; amount: number; id?: string; status?: string }) {
  return {
    id: o.id ?? rid('re_test'),
    object: 'refund',
    amount: o.amount,
    currency: 'usd',
    charge: rid('ch_test'),
    payment_intent: o.paymentIntent,
    status: o.status ?? 'succeeded',
  };
}

/** A dispute of a payment (charge.dispute.created / charge.dispute.closed). */
export function dispute(o: { paymentIntent: string; amount: number; id: string; status: string }) {
  return {
    id: o.id,
    object: 'dispute',
    amount: o.amount,
    currency: 'usd',
    charge: rid('ch_test'),
    payment_intent: o.paymentIntent,
    reason: 'fraudulent',
    status: o.status,
  };
}

export function paidInvoice(o: {
  userId: string;
  subscription: string;
  price: string;
  id?: string;
  period?: Period;
  /** `subscription_cycle` (a renewal) unless told: `subscription_create` is a subscription's first invoice. */
  billingReason?: string;
  customer?: string;
}) {
  const period = o.period ?? { start: now(), end: now() + 30 * DAY_S };
  return {
    id: o.id ?? rid('in_test'),
    object: 'invoice',
    customer: o.customer ?? rid('cus'),
    status: 'paid',
    billing_reason: o.billingReason ?? 'subscription_cycle',
    parent: {
      type: 'subscription_details',
      subscription_details: { subscription: o.subscription, metadata: { userId: o.userId } },
    },
    lines: {
      object: 'list',
      data: [
        {
          id: rid('il'),
          object: 'line_item',
          period,
          pricing: { type: 'price_details', price_details: { price: o.price, product: 'prod_test' } },
        },
      ],
    },
  };
}

export function subscription(o: {
  userId: string;
  id: string;
  price: string;
  status?: string;
  cancelAtPeriodEnd?: boolean;
  period?: Period;
  customer?: string;
}) {
  const period = o.period ?? { start: now(), end: now() + 30 * DAY_S };
  return {
    id: o.id,
    object: 'subscription',
    customer: o.customer ?? rid('cus'),
    status: o.status ?? 'active',
    cancel_at_period_end: o.cancelAtPeriodEnd ?? false,
    metadata: { userId: o.userId },
    items: {
      object: 'list',
      data: [
        {
          id: rid('si'),
          object: 'subscription_item',
          price: { id: o.price, object: 'price' },
          current_period_start: period.start,
          current_period_end: period.end,
        },
      ],
    },
  };
}

/** An event envelope around an object, as JSON, and its `Stripe-Signature` header. */
export function signedEvent(
  secret: string,
  type: string,
  object: unknown,
  opts: { id?: string; created?: number; timestamp?: number } = {},
): { id: string; body: string; signature: string } {
  const id = opts.id ?? rid('evt_test');
  const body = JSON.stringify({
    id,
    object: 'event',
    api_version: '2026-10-28.endive',
    type,
    created: opts.created ?? now(),
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    data: { object },
  });
  return { id, body, signature: signStripePayload(body, secret, opts.timestamp) };
}

/** Posts a signed event to the service's webhook route. */
export async function postEvent(url: string, e: { body: string; signature: string }): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'stripe-signature': e.signature },
    body: e.body,
  });
}
