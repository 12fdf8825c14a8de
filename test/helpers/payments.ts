// The payments tests' set-up and Stripe's side of them: a stack whose Stripe calls go to stripe-mock (started by the
// test bootstrap) through a recording proxy; events built and signed as Stripe sends them, delivered to the webhook;
// Checkout Sessions created through the service's own `POST /api/payments/checkout` (the service grants only for
// sessions it created; the local checkout keeps their line items for the service to read back).
import assert from 'node:assert/strict';
import type { TokenPack } from '../../lib/config';
import {
  checkoutSession,
  paidInvoice,
  signedEvent,
  subscription,
  type Period,
} from '../../scripts/stand-ins/stripe-events';
import { http, type HttpResult } from './http';
import { lateBound, startStack, workflowResultWhenStarted, type Stack, type StackOptions } from './stack';
import { startStripeProxy, type StripeProxy } from './stripe-proxy';

type Account = { cookie: string; userId: string };
type StripeObject = Record<string, unknown>;

/** Signs and posts an event the way Stripe does (to `baseUrl`, default the stack's): the answer and the event id. */
export async function sendStripeEvent(
  stack: Pick<Stack, 'baseUrl' | 'config'>,
  type: string,
  object: StripeObject,
  opts: { id?: string; created?: number; baseUrl?: string; timestamp?: number } = {},
): Promise<HttpResult & { id: string }> {
  const e = signedEvent(stack.config.payments.webhookSecret!, type, object, opts);
  const res = await http(opts.baseUrl ?? stack.baseUrl, 'POST', '/api/payments/webhook', {
    body: e.body,
    headers: { 'content-type': 'application/json', 'stripe-signature': e.signature },
  });
  return { ...res, id: e.id };
}

/** An event's workflow starts right after the answer: waits for it to exist, then for its result. */
export const stripeEventProcessed = (stack: Pick<Stack, 'client'>, eventId: string): Promise<any> =>
  workflowResultWhenStarted(stack.client, `stripe-event-${eventId}`);

/** sendStripeEvent, answered 200 {received: true}; then the event's workflow result. */
export async function deliverStripeEvent(
  stack: Pick<Stack, 'baseUrl' | 'config' | 'client'>,
  type: string,
  object: StripeObject,
  opts: { id?: string; created?: number } = {},
): Promise<any> {
  const r = await sendStripeEvent(stack, type, object, opts);
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(r.body, { received: true });
  return stripeEventProcessed(stack, r.id);
}

/** A Checkout Session created through the service for the price: its id. */
export async function newCheckoutSession(
  baseUrl: string,
  acct: Account,
  mode: 'payment' | 'subscription',
  priceId: string,
): Promise<string> {
  const r = await http(baseUrl, 'POST', '/api/payments/checkout', { cookie: acct.cookie, json: { priceId, mode } });
  assert.equal(r.status, 200, r.text);
  return r.body.sessionId as string;
}

/** A token pack's completed checkout, as Stripe reports it, of a session created through the service. */
export async function packCheckoutSession(
  baseUrl: string,
  acct: Account,
  pack: TokenPack,
  o: { paid?: boolean; paymentIntent?: string } = {},
) {
  return checkoutSession({
    userId: acct.userId,
    mode: 'payment',
    id: await newCheckoutSession(baseUrl, acct, 'payment', pack.priceId),
    tokens: pack.tokens,
    amountTotal: Math.round(pack.priceUsd * 100),
    ...o,
  });
}

export interface PaymentsStack {
  /** the stack, readable once the suite's before hook ran */
  stack: Stack;
  /** the recording proxy in front of stripe-mock */
  stripe: StripeProxy;
  send(
    type: string,
    object: StripeObject,
    opts?: Parameters<typeof sendStripeEvent>[3],
  ): ReturnType<typeof sendStripeEvent>;
  processed(eventId: string): Promise<any>;
  deliver(type: string, object: StripeObject, opts?: { id?: string; created?: number }): Promise<any>;
  /** GET /api/auth/me's user */
  me(cookie: string): Promise<any>;
  proPrice(): string;
  businessPrice(): string;
  packOf(tokens: number): TokenPack;
  newSession(acct: Account, mode: 'payment' | 'subscription', priceId: string): Promise<string>;
  /** a completed pack checkout (by its tokens) of a session created through the service */
  packCheckout(acct: Account, tokens: number, o?: { paid?: boolean; paymentIntent?: string }): Promise<any>;
  /** a completed Pro subscription checkout of a session created through the service */
  subscriptionCheckout(acct: Account, sub: string, invoice: string | null): Promise<any>;
  /** a paid Pro invoice of a subscription */
  invoicePaid(userId: string, sub: string, id: string, period: Period): any;
  subscriptionObject(
    userId: string,
    id: string,
    o: { price: string; status?: string; cancelAtPeriodEnd?: boolean },
  ): any;
}

/**
 * The payments stack for the calling suite (Stripe through a recording proxy), started in its `before` hook and
 * stopped in its `after` hook.
 */
export function usePaymentsStack(name: string, opts: StackOptions = {}): PaymentsStack {
  const stack = lateBound<Stack>(`the stack '${name}'`);
  const stripe = lateBound<StripeProxy>('the Stripe proxy');
  before(async () => {
    stripe.set(await startStripeProxy(process.env.STRIPE_API_URL!));
    stack.set(await startStack(name, { ...opts, env: { STRIPE_API_URL: stripe.ref.url, ...opts.env } }));
  });
  after(async () => {
    await stack.get()?.stop();
    await stripe.get()?.stop();
  });
  const s = stack.ref;
  const proPrice = () => s.config.payments.planPrices.pro;
  const packOf = (tokens: number) => s.config.payments.tokenPacks.find((p) => p.tokens === tokens)!;
  const newSession = (acct: Account, mode: 'payment' | 'subscription', priceId: string) =>
    newCheckoutSession(s.baseUrl, acct, mode, priceId);
  return {
    stack: s,
    stripe: stripe.ref,
    send: (type, object, o) => sendStripeEvent(s, type, object, o),
    processed: (eventId) => stripeEventProcessed(s, eventId),
    deliver: (type, object, o) => deliverStripeEvent(s, type, object, o),
    me: async (cookie) => (await http(s.baseUrl, 'GET', '/api/auth/me', { cookie })).body.user,
    proPrice,
    businessPrice: () => s.config.payments.planPrices.business,
    packOf,
    newSession,
    packCheckout: async (acct, tokens, o = {}) =>
      checkoutSession({
        userId: acct.userId,
        mode: 'payment',
        id: await newSession(acct, 'payment', packOf(tokens).priceId),
        amountTotal: Math.round(packOf(tokens).priceUsd * 100),
        ...o,
      }),
    subscriptionCheckout: async (acct, sub, invoice) =>
      checkoutSession({
        userId: acct.userId,
        mode: 'subscription',
        subscription: sub,
        invoice,
        id: await newSession(acct, 'subscription', proPrice()),
      }),
    invoicePaid: (userId, sub, id, period) => paidInvoice({ userId, subscription: sub, id, period, price: proPrice() }),
    subscriptionObject: (userId, id, o) => subscription({ userId, id, ...o }),
  };
}
