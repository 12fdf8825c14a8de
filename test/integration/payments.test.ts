// Payments through HTTP against the real stack: outbound calls to stripe-mock (started by the test
// bootstrap) through a recording proxy, inbound events built and signed here with the library's test header helper.
// Plans; checkout and portal, and what they send to Stripe; missing and bad signatures; the same event twice;
// checkout and the first invoice.paid in either order (one grant); a renewal (a second grant); a checkout naming no
// invoice applied after a renewal; a pack paid late (async_payment_succeeded); plan change; cancel; poison events;
// an event arriving while the API cannot reach Temporal; the worker stopping after the grant committed;
// `npm run stripe:event`. Temporal killed and the worker SIGKILLed: payments-temporal-restart and payments-crash.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { ActivityFailure, ApplicationFailure, WorkflowFailedError, WorkflowNotFoundError } from '@temporalio/client';
import { createPaymentActivities } from '../../activities/payments';
import { createApp } from '../../api/app';
import { debitTokens } from '../../db/ledger';
import { randomSuffix } from '../../lib/ids';
import { createLogger } from '../../lib/log';
import { signStripePayload } from '../../lib/payments/stripe';
import {
  checkoutSession,
  dispute,
  paidInvoice,
  prorationInvoice,
  refund,
  refundedCharge,
  signedEvent,
  subscription,
  type Period,
} from '../../scripts/stand-ins/stripe-events';
import { inboundEventsSweep } from '../../workflows';
import { account, http } from '../helpers/http';
import { startStack, unreachableTemporal, workflowResultWhenStarted, type Stack } from '../helpers/stack';
import { startStripeProxy, type StripeProxy, type StripeRequest } from '../helpers/stripe-proxy';

const now = () => Math.floor(Date.now() / 1000);
const DAY = 86_400;

describe('payments: Stripe checkout, portal and events', function () {
  this.timeout(120_000);
  let stack: Stack;
  let stripe: StripeProxy;
  let proPrice: string;
  let businessPrice: string;

  before(async () => {
    stripe = await startStripeProxy(process.env.STRIPE_API_URL!);
    // Grace 0: the inbound sweep started by a test considers every waiting event at once.
    stack = await startStack('payments', {
      env: { STRIPE_API_URL: stripe.url, INBOUND_SWEEP_GRACE_SECONDS: '0' },
    });
    proPrice = stack.config.payments.planPrices.pro;
    businessPrice = stack.config.payments.planPrices.business;
  });
  after(async () => {
    await stack?.stop();
    await stripe?.stop();
  });

  /** Signs and posts an event the way Stripe does; returns the answer and the event id. */
  async function send(
    type: string,
    object: Record<string, unknown>,
    opts: { id?: string; created?: number; baseUrl?: string; timestamp?: number } = {},
  ) {
    const e = signedEvent(stack.config.payments.webhookSecret!, type, object, opts);
    const res = await http(opts.baseUrl ?? stack.baseUrl, 'POST', '/api/payments/webhook', {
      body: e.body,
      headers: { 'content-type': 'application/json', 'stripe-signature': e.signature },
    });
    const id = e.id;
    return { ...res, id };
  }

  /** The event's workflow starts right after the answer: wait for it to exist, then for its result. */
  const processed = (eventId: string): Promise<any> =>
    workflowResultWhenStarted(stack.client, `stripe-event-${eventId}`);

  async function deliver(type: string, object: Record<string, unknown>, opts: { id?: string; created?: number } = {}) {
    const r = await send(type, object, opts);
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body, { received: true });
    return processed(r.id);
  }

  const me = async (cookie: string) => (await http(stack.baseUrl, 'GET', '/api/auth/me', { cookie })).body.user;
  const grants = (userId: string) =>
    stack.sql<{ source: string; amount: number; reference: string; expiresAt: Date | null }[]>`
      select source, amount, reference, expires_at as "expiresAt" from token_grants
      where user_id = ${userId} and source <> 'free' order by id`;

  type Account = { cookie: string; userId: string };
  /**
   * A Checkout Session created through the service (it records the session; events about sessions it did not create
   * grant nothing); the local checkout keeps its price, so its line items are read back from Stripe's API.
   */
  async function newSession(acct: Account, mode: 'payment' | 'subscription', priceId: string): Promise<string> {
    const r = await http(stack.baseUrl, 'POST', '/api/payments/checkout', {
      cookie: acct.cookie,
      json: { priceId, mode },
    });
    assert.equal(r.status, 200, r.text);
    return r.body.sessionId as string;
  }
  const packOf = (tokens: number) => stack.config.payments.tokenPacks.find((p) => p.tokens === tokens)!;
  /** A completed pack checkout of a session created through the service. */
  const packCheckout = async (acct: Account, tokens: number, o: { paid?: boolean; paymentIntent?: string } = {}) =>
    checkoutSession({
      userId: acct.userId,
      mode: 'payment',
      id: await newSession(acct, 'payment', packOf(tokens).priceId),
      amountTotal: Math.round(packOf(tokens).priceUsd * 100),
      ...o,
    });
  const subscriptionCheckout = async (acct: Account, sub: string, invoice: string | null) =>
    checkoutSession({
      userId: acct.userId,
      mode: 'subscription',
      subscription: sub,
      invoice,
      id: await newSession(acct, 'subscription', proPrice),
    });
  const invoicePaid = (userId: string, sub: string, id: string, period: Period) =>
    paidInvoice({ userId, subscription: sub, id, period, price: proPrice });
  const subscriptionObject = (
    userId: string,
    id: string,
    o: { price: string; status?: string; cancelAtPeriodEnd?: boolean },
  ) => subscription({ userId, id, ...o });

  it('lists the plans from the database with their prices, and the token packs', async () => {
    const r = await http(stack.baseUrl, 'GET', '/api/payments/plans');
    assert.equal(r.status, 200);
    assert.deepEqual(
      r.body.plans.map((p: any) => [p.id, p.name, p.tokensPerMonth, p.priceUsd, p.priceId, p.rollover]),
      [
        ['free', 'Free', 50, 0, null, false],
        ['pro', 'Pro', 500, 29, proPrice, false],
        ['business', 'Business', 2000, 99, businessPrice, false],
        ['enterprise', 'Enterprise', null, null, null, false],
      ],
    );
    assert.deepEqual(r.body.tokenPacks, stack.config.payments.tokenPacks);
    assert.ok(r.body.tokenPacks.length > 0);
  });

  it('creates checkout sessions at Stripe for a plan and a pack, and refuses bad input', async () => {
    const acct = await account(stack.baseUrl);
    const pack = stack.config.payments.tokenPacks[0]!;
    const checkout = (json: unknown) =>
      http(stack.baseUrl, 'POST', '/api/payments/checkout', { json, cookie: acct.cookie });

    let r = await http(stack.baseUrl, 'POST', '/api/payments/checkout', {
      json: { priceId: proPrice, mode: 'subscription' },
    });
    assert.equal(r.status, 401);
    assert.deepEqual(r.body, { error: 'Unauthorized' });

    for (const bad of [
      { priceId: pack.priceId, mode: 'subscription' },
      { priceId: proPrice, mode: 'payment' },
      { priceId: 'price_unknown', mode: 'payment' },
      { priceId: proPrice, mode: 'setup' },
      { mode: 'payment' },
      { priceId: proPrice, mode: 'subscription', successUrl: 'https://evil.example/steal' },
      { priceId: proPrice, mode: 'subscription', cancelUrl: 'javascript:alert(1)' },
    ]) {
      r = await checkout(bad);
      assert.equal(r.status, 400, JSON.stringify(bad));
      assert.equal(typeof r.body.error, 'string');
    }

    r = await checkout({ priceId: proPrice, mode: 'subscription', successUrl: `${stack.baseUrl}/billing?ok=1` });
    assert.equal(r.status, 200, r.text);
    assert.match(r.body.url, /^https?:\/\//);
    assert.match(r.body.sessionId, /^cs_/);
    r = await checkout({ priceId: pack.priceId, mode: 'payment' });
    assert.equal(r.status, 200, r.text);
    assert.match(r.body.sessionId, /^cs_/);

    // One Stripe customer per user, stored and reused.
    const customers = await stack.sql`select customer_id from stripe_customers where user_id = ${acct.userId}`;
    assert.equal(customers.length, 1);
    r = await http(stack.baseUrl, 'POST', '/api/payments/portal', { cookie: acct.cookie });
    assert.equal(r.status, 200, r.text);
    assert.match(r.body.url, /^https?:\/\//);
    assert.equal((await stack.sql`select 1 from stripe_customers where user_id = ${acct.userId}`).length, 1);
    r = await http(stack.baseUrl, 'POST', '/api/payments/portal');
    assert.equal(r.status, 401);
  });

  it('sends Stripe the user, metadata, redirect URLs and an idempotency key on each create call', async () => {
    const acct = await account(stack.baseUrl);
    const pack = stack.config.payments.tokenPacks[0]!;
    const key = (r: StripeRequest | undefined) => r?.headers['idempotency-key'];

    // The library retries a 5xx: the retry must carry the same key, so Stripe cannot create a second session.
    stripe.failNext(
      (r) => r.path === '/v1/checkout/sessions' && r.form.get('client_reference_id') === acct.userId,
      500,
      {
        'stripe-should-retry': 'true',
      },
    );
    const sub = await http(stack.baseUrl, 'POST', '/api/payments/checkout', {
      cookie: acct.cookie,
      json: { priceId: proPrice, mode: 'subscription' },
    });
    assert.equal(sub.status, 200, sub.text);
    const packRes = await http(stack.baseUrl, 'POST', '/api/payments/checkout', {
      cookie: acct.cookie,
      json: { priceId: pack.priceId, mode: 'payment', cancelUrl: `${stack.baseUrl}/pricing` },
    });
    assert.equal(packRes.status, 200, packRes.text);
    const portal = await http(stack.baseUrl, 'POST', '/api/payments/portal', { cookie: acct.cookie });
    assert.equal(portal.status, 200, portal.text);
    const customerId = (
      await stack.sql<{ customerId: string }[]>`
        select customer_id as "customerId" from stripe_customers where user_id = ${acct.userId}`
    )[0]?.customerId;
    assert.ok(customerId);
    // This user's successful calls: by the user id in the metadata, or by the customer (the portal).
    const mine = (method: string, p: string) =>
      stripe.requests.filter(
        (r) =>
          r.method === method &&
          r.path === p &&
          r.status === 200 &&
          (r.form.get('metadata[userId]') === acct.userId || r.form.get('customer') === customerId),
      );

    const customers = mine('POST', '/v1/customers');
    assert.equal(customers.length, 1, 'one customer created');
    assert.equal(customers[0]!.form.get('email'), acct.email);
    assert.equal(key(customers[0]), `customer-${acct.userId}`);

    const sessions = mine('POST', '/v1/checkout/sessions');
    assert.equal(sessions.length, 2);
    const [s1, s2] = sessions as [StripeRequest, StripeRequest];
    const uuidKey = new RegExp(
      `^checkout-${acct.userId}-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`,
    );
    const fields = (r: StripeRequest) =>
      Object.fromEntries([...r.form.entries()].filter(([k]) => !k.startsWith('expand')));
    assert.deepEqual(fields(s1), {
      mode: 'subscription',
      customer: customerId,
      client_reference_id: acct.userId,
      'metadata[userId]': acct.userId,
      'line_items[0][price]': proPrice,
      'line_items[0][quantity]': '1',
      success_url: `${stack.baseUrl}/billing?checkout=success`,
      cancel_url: `${stack.baseUrl}/billing?checkout=canceled`,
      'subscription_data[metadata][userId]': acct.userId,
    });
    assert.match(String(key(s1)), uuidKey);
    const attempts = stripe.requests.filter((r) => r.path === '/v1/checkout/sessions' && key(r) === key(s1));
    assert.deepEqual(
      attempts.map((r) => r.status),
      [500, 200],
      'the retried create reused its idempotency key',
    );
    assert.deepEqual(fields(s2), {
      mode: 'payment',
      customer: customerId,
      client_reference_id: acct.userId,
      'metadata[userId]': acct.userId,
      'metadata[tokens]': String(pack.tokens),
      'line_items[0][price]': pack.priceId,
      'line_items[0][quantity]': '1',
      success_url: `${stack.baseUrl}/billing?checkout=success`,
      cancel_url: `${stack.baseUrl}/pricing`,
    });
    assert.match(String(key(s2)), uuidKey);
    assert.notEqual(key(s1), key(s2), 'each checkout has its own key');

    const portals = mine('POST', '/v1/billing_portal/sessions');
    assert.equal(portals.length, 1);
    assert.deepEqual(fields(portals[0]!), {
      customer: customerId,
      return_url: `${stack.baseUrl}/billing?portal=returned`,
    });
    assert.match(String(key(portals[0])), new RegExp(`^portal-${acct.userId}-[0-9a-f-]{36}$`));
  });

  it('refuses events with a missing, wrong or stale signature, and stores nothing', async () => {
    const id = `evt_test_${randomSuffix(16)}`;
    const body = JSON.stringify({
      id,
      object: 'event',
      type: 'invoice.paid',
      created: now(),
      livemode: false,
      data: { object: {} },
    });
    let r = await http(stack.baseUrl, 'POST', '/api/payments/webhook', {
      body,
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(r.status, 400);
    assert.match(r.body.error, /Stripe-Signature/);
    r = await http(stack.baseUrl, 'POST', '/api/payments/webhook', {
      body,
      headers: { 'content-type': 'application/json', 'stripe-signature': signStripePayload(body, 'whsec_wrong') },
    });
    assert.equal(r.status, 400);
    assert.deepEqual(r.body, { error: 'Invalid signature' });
    r = await http(stack.baseUrl, 'POST', '/api/payments/webhook', {
      body: body.replace('invoice.paid', 'invoice.payed'),
      headers: {
        'content-type': 'application/json',
        'stripe-signature': signStripePayload(body, stack.config.payments.webhookSecret!),
      },
    });
    assert.equal(r.status, 400, 'a body changed after signing');
    const stale = await send('invoice.paid', {}, { id, timestamp: now() - 301 });
    assert.equal(stale.status, 400, 'older than the 300 s tolerance');
    const notJson = 'not json';
    r = await http(stack.baseUrl, 'POST', '/api/payments/webhook', {
      body: notJson,
      headers: {
        'content-type': 'application/json',
        'stripe-signature': signStripePayload(notJson, stack.config.payments.webhookSecret!),
      },
    });
    assert.equal(r.status, 400);
    assert.equal((await stack.sql`select 1 from stripe_events where id = ${id}`).length, 0);
  });

  it('grants a pack once: unpaid at completion, then async_payment_succeeded, repeated', async () => {
    const acct = await account(stack.baseUrl);
    const before = (await me(acct.cookie)).tokenBalance;
    const session = await packCheckout(acct, 100, { paid: false });
    const first = await deliver('checkout.session.completed', session);
    assert.equal(first.status, 'ignored');
    assert.equal((await me(acct.cookie)).tokenBalance, before);

    const paid = { ...session, payment_status: 'paid' };
    const r = await send('checkout.session.async_payment_succeeded', paid);
    const again = await send('checkout.session.async_payment_succeeded', paid, { id: r.id });
    assert.deepEqual([r.status, again.status], [200, 200], 'a repeated event is answered 200 too');
    const result = await processed(r.id);
    assert.equal(result.granted, 100);
    // The same purchase reported again by another event grants nothing more.
    const late = await deliver('checkout.session.completed', paid);
    assert.equal(late.granted, 0);
    assert.equal((await me(acct.cookie)).tokenBalance, before + 100);
    assert.deepEqual(
      (await grants(acct.userId)).map((g) => [g.source, g.amount, g.reference, g.expiresAt]),
      [['payg_purchase', 100, `stripe-checkout:${session.id}`, null]],
    );
    assert.equal((await stack.sql`select 1 from stripe_events where id = ${r.id}`).length, 1);
  });

  it('starts a subscription: checkout then the first invoice.paid grant once; a renewal grants again', async () => {
    const acct = await account(stack.baseUrl);
    const sub = `sub_test_${randomSuffix(12)}`;
    const firstInvoice = `in_test_${randomSuffix(12)}`;
    const base = (await me(acct.cookie)).tokenBalance;

    const checkout = await deliver('checkout.session.completed', await subscriptionCheckout(acct, sub, firstInvoice));
    assert.equal(checkout.status, 'processed');
    assert.equal(checkout.granted, 500);
    let user = await me(acct.cookie);
    assert.equal(user.plan.id, 'pro');
    assert.equal(user.tokenBalance, base + 500);

    const period = { start: now(), end: now() + 30 * DAY };
    const firstPaid = await deliver('invoice.paid', invoicePaid(acct.userId, sub, firstInvoice, period));
    assert.equal(firstPaid.granted, 0, 'the first invoice was granted by the checkout');
    assert.equal((await me(acct.cookie)).tokenBalance, base + 500);

    const next = { start: now() + 30 * DAY, end: now() + 60 * DAY };
    const renewal = await deliver('invoice.paid', invoicePaid(acct.userId, sub, `in_test_${randomSuffix(12)}`, next));
    assert.equal(renewal.granted, 500);
    user = await me(acct.cookie);
    assert.equal(user.tokenBalance, base + 1000);
    const g = await grants(acct.userId);
    assert.deepEqual(
      g.map((x) => [x.source, x.amount]),
      [
        ['plan', 500],
        ['plan', 500],
      ],
    );
    assert.equal(g[1]!.expiresAt!.getTime(), next.end * 1000, 'plan tokens expire at the period end (no rollover)');
    const s = await http(stack.baseUrl, 'GET', '/api/payments/subscription', { cookie: acct.cookie });
    assert.equal(s.status, 200);
    assert.equal(s.body.subscription.id, sub);
    assert.deepEqual(s.body.subscription.plan, { id: 'pro', name: 'Pro' });
    assert.equal(s.body.subscription.status, 'active');
    assert.equal(typeof s.body.subscription.cancelAtPeriodEnd, 'boolean');
    assert.equal(s.body.subscription.currentPeriodEnd, new Date(next.end * 1000).toISOString());
    const grantSubs = await stack.sql`select distinct subscription_id from token_grants
      where user_id = ${acct.userId} and source = 'plan'`;
    assert.equal(grantSubs.length, 1);
    assert.ok(grantSubs[0]!.subscription_id, 'plan grants belong to the subscription');

    // A second subscription checkout is refused while this one holds a plan.
    const again = await http(stack.baseUrl, 'POST', '/api/payments/checkout', {
      cookie: acct.cookie,
      json: { priceId: businessPrice, mode: 'subscription' },
    });
    assert.equal(again.status, 409);
  });

  it('grants once when the first invoice.paid arrives before the checkout', async () => {
    const acct = await account(stack.baseUrl);
    const sub = `sub_test_${randomSuffix(12)}`;
    const firstInvoice = `in_test_${randomSuffix(12)}`;
    const base = (await me(acct.cookie)).tokenBalance;
    // (created before the subscription exists: a user holding a plan gets no second checkout)
    const session = await subscriptionCheckout(acct, sub, firstInvoice);
    const period = { start: now(), end: now() + 30 * DAY };
    const paid = await deliver('invoice.paid', invoicePaid(acct.userId, sub, firstInvoice, period), {
      created: now() - 5,
    });
    assert.equal(paid.granted, 500);
    assert.equal((await me(acct.cookie)).plan.id, 'pro');
    const checkout = await deliver('checkout.session.completed', session);
    assert.equal(checkout.granted, 0);
    assert.equal((await me(acct.cookie)).tokenBalance, base + 500);
    assert.equal((await grants(acct.userId)).length, 1);
  });

  it('references a checkout naming no invoice by the first invoice, also when applied after a renewal', async () => {
    const acct = await account(stack.baseUrl);
    const sub = `sub_test_${randomSuffix(12)}`;
    const firstInvoice = `in_test_${randomSuffix(12)}`;
    const renewalInvoice = `in_test_${randomSuffix(12)}`;
    const session = await subscriptionCheckout(acct, sub, null);
    // What Stripe holds after the renewal (stripe-mock keeps no state): the latest invoice is the renewal's, and the
    // subscription's invoices are the renewal and the first.
    const forSub = (r: StripeRequest) => r.path === `/v1/subscriptions/${sub}`;
    stripe.rewrite(forSub, (body) => ({
      ...body,
      metadata: { userId: acct.userId },
      latest_invoice: { ...body.latest_invoice, id: renewalInvoice, billing_reason: 'subscription_cycle' },
    }));
    const listsSub = (r: StripeRequest) => r.path === '/v1/invoices' && r.query.get('subscription') === sub;
    stripe.rewrite(listsSub, (body) => ({
      ...body,
      has_more: false,
      data: [
        { ...body.data[0], id: renewalInvoice, billing_reason: 'subscription_cycle', created: now() },
        { ...body.data[0], id: firstInvoice, billing_reason: 'subscription_create', created: now() - 30 * DAY },
      ],
    }));
    const renewal = await deliver(
      'invoice.paid',
      invoicePaid(acct.userId, sub, renewalInvoice, { start: now(), end: now() + 30 * DAY }),
    );
    assert.equal(renewal.granted, 500);

    const checkout = await deliver('checkout.session.completed', session);
    assert.equal(checkout.granted, 500, "the checkout grants the first period, not the renewal's again");
    assert.ok(stripe.requests.some(listsSub), "the subscription's invoices were listed");
    const first = await deliver(
      'invoice.paid',
      paidInvoice({
        userId: acct.userId,
        subscription: sub,
        id: firstInvoice,
        price: proPrice,
        billingReason: 'subscription_create',
        period: { start: now() - 30 * DAY, end: now() },
      }),
    );
    assert.equal(first.granted, 0, 'the first invoice was granted by the checkout');
    assert.deepEqual(
      (await grants(acct.userId)).map((g) => [g.amount, g.reference]),
      [
        [500, `stripe-invoice:${renewalInvoice}`],
        [500, `stripe-invoice:${firstInvoice}`],
      ],
    );
  });

  it('changes plan, ignores an older update arriving late, and cancels back to Free keeping the tokens', async () => {
    const acct = await account(stack.baseUrl);
    const sub = `sub_test_${randomSuffix(12)}`;
    await deliver('checkout.session.completed', await subscriptionCheckout(acct, sub, `in_test_${randomSuffix(12)}`));
    const t = now() + 10;
    const upgraded = await deliver(
      'customer.subscription.updated',
      subscriptionObject(acct.userId, sub, { price: businessPrice, cancelAtPeriodEnd: true }),
      { created: t },
    );
    assert.equal(upgraded.status, 'processed');
    assert.equal((await me(acct.cookie)).plan.id, 'business');
    let s = (await http(stack.baseUrl, 'GET', '/api/payments/subscription', { cookie: acct.cookie })).body.subscription;
    assert.deepEqual([s.plan.id, s.cancelAtPeriodEnd], ['business', true]);

    // An update from before the upgrade, delivered late, changes nothing.
    await deliver('customer.subscription.updated', subscriptionObject(acct.userId, sub, { price: proPrice }), {
      created: t - 5,
    });
    assert.equal((await me(acct.cookie)).plan.id, 'business');

    const balance = (await me(acct.cookie)).tokenBalance;
    const canceled = await deliver(
      'customer.subscription.deleted',
      subscriptionObject(acct.userId, sub, { price: businessPrice, status: 'canceled' }),
      { created: t + 5 },
    );
    assert.equal(canceled.status, 'processed');
    const user = await me(acct.cookie);
    assert.equal(user.plan.id, 'free');
    assert.equal(user.tokenBalance, balance, 'granted tokens stay until they expire');
    s = (await http(stack.baseUrl, 'GET', '/api/payments/subscription', { cookie: acct.cookie })).body.subscription;
    assert.equal(s.status, 'canceled');
    // A late update never revives a canceled subscription.
    await deliver('customer.subscription.updated', subscriptionObject(acct.userId, sub, { price: proPrice }), {
      created: t + 20,
    });
    assert.equal((await me(acct.cookie)).plan.id, 'free');
  });

  it('acknowledges and ignores event types it does not use', async () => {
    const r = await deliver('customer.created', { id: `cus_${randomSuffix(10)}`, object: 'customer' });
    assert.equal(r.status, 'ignored');
  });

  it('fails a poison event once with its reason; neither a retry, the sweep nor a redelivery starts it again', async () => {
    const acct = await account(stack.baseUrl);
    const poisons: [string, Record<string, unknown>, RegExp][] = [
      [
        'checkout.session.completed',
        checkoutSession({
          userId: acct.userId,
          mode: 'subscription',
          subscription: null,
          id: await newSession(acct, 'subscription', proPrice),
        }),
        /names no subscription/,
      ],
      [
        'invoice.paid',
        {
          ...invoicePaid(acct.userId, `sub_test_${randomSuffix(12)}`, `in_test_${randomSuffix(12)}`, {
            start: now(),
            end: now() + DAY,
          }),
          lines: { object: 'list', data: 'not a list' },
        },
        /malformed invoice\.paid event/,
      ],
      [
        'invoice.paid',
        invoicePaid(acct.userId, `sub_test_${randomSuffix(12)}`, `in_test_${randomSuffix(12)}`, {
          start: 1e15,
          end: 1e15 + DAY,
        }),
        /period start is not a time/,
      ],
    ];
    const runs: { id: string; runId: string }[] = [];
    for (const [type, object, reason] of poisons) {
      const r = await send(type, object);
      assert.equal(r.status, 200, r.text);
      const err = await processed(r.id).then(
        () => assert.fail('a poison event cannot be applied'),
        (e: unknown) => e,
      );
      assert.ok(err instanceof WorkflowFailedError, String(err));
      let cause: unknown = err.cause;
      while (cause instanceof ActivityFailure) cause = cause.cause;
      assert.ok(cause instanceof ApplicationFailure, String(err.cause));
      assert.equal(cause.type, 'StripeEventMalformed');
      assert.equal(cause.nonRetryable, true);
      assert.match(cause.message, reason);
      const [row] = await stack.sql<{ status: string; result: { error: string } }[]>`
        select status, result from stripe_events where id = ${r.id}`;
      assert.equal(row?.status, 'failed');
      assert.match(row!.result.error, reason);
      const d = await stack.client.workflow.getHandle(`stripe-event-${r.id}`).describe();
      // Started once by the API, and its step ran once: the history holds one local-activity marker.
      const history = await stack.client.workflow.getHandle(`stripe-event-${r.id}`).fetchHistory();
      const markers = (history.events ?? []).filter((e) => e.markerRecordedEventAttributes);
      assert.equal(markers.length, 1);
      runs.push({ id: r.id, runId: d.runId });
      // Stripe delivers it again: answered, not restarted.
      const again = await send(type, object, { id: r.id });
      assert.equal(again.status, 200);
    }
    await stack.client.workflow.execute(inboundEventsSweep, {
      workflowId: `inbound-events-sweep-test-${randomSuffix(6)}`,
      taskQueue: stack.taskQueue,
    });
    for (const run of runs) {
      const d = await stack.client.workflow.getHandle(`stripe-event-${run.id}`).describe();
      assert.equal(d.runId, run.runId, 'the failed event was not started again');
      assert.equal(d.status.name, 'FAILED');
    }
    assert.equal((await grants(acct.userId)).length, 0);

    // A time that no date can hold is refused at the door.
    const bad = await send('customer.subscription.updated', {}, { created: 1e13 });
    assert.equal(bad.status, 400);
    assert.equal((await stack.sql`select 1 from stripe_events where id = ${bad.id}`).length, 0);
  });

  it('answers an event while Temporal is unreachable; the inbound sweep applies it once afterwards', async () => {
    const acct = await account(stack.baseUrl);
    const unreachable = unreachableTemporal();
    const server: Server = await new Promise((resolve) => {
      const s = createApp({ ...stack, temporal: unreachable, log: createLogger({ level: 'error' }) }).listen(
        0,
        '127.0.0.1',
        () => resolve(s),
      );
    });
    try {
      const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const session = await packCheckout(acct, 500);
      const r = await send('checkout.session.completed', session, { baseUrl });
      assert.equal(r.status, 200);
      assert.deepEqual(r.body, { received: true });
      const [row] = await stack.sql<{ status: string }[]>`select status from stripe_events where id = ${r.id}`;
      assert.equal(row?.status, 'received', 'stored before the answer');
      await assert.rejects(stack.client.workflow.getHandle(`stripe-event-${r.id}`).describe(), WorkflowNotFoundError);

      const sweep = () =>
        stack.client.workflow.execute(inboundEventsSweep, {
          workflowId: `inbound-events-sweep-test-${randomSuffix(6)}`,
          taskQueue: stack.taskQueue,
        });
      const first = await sweep();
      assert.ok(first.started >= 1);
      const result = await processed(r.id);
      assert.equal(result.granted, 500);
      const second = await sweep();
      assert.equal(second.started, 0);
      const g = await grants(acct.userId);
      assert.deepEqual(
        g.map((x) => x.amount),
        [500],
      );
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  it('records a pack failed, once, when Stripe refuses to list its line items; nothing is granted', async () => {
    const acct = await account(stack.baseUrl);
    const session = await packCheckout(acct, 100);
    stripe.failNext((r) => r.path === `/v1/checkout/sessions/${session.id}/line_items`, 404);
    const r = await send('checkout.session.completed', session);
    assert.equal(r.status, 200);
    const result = await processed(r.id);
    assert.equal(result.status, 'failed');
    assert.match(result.error, new RegExp(`Stripe refused to list the items of ${session.id}`));
    const [row] = await stack.sql<{ status: string }[]>`select status from stripe_events where id = ${r.id}`;
    assert.equal(row!.status, 'failed');
    assert.equal((await grants(acct.userId)).length, 0);
    // a redelivery starts nothing again
    const again = await send('checkout.session.completed', session, { id: r.id });
    assert.equal(again.status, 200);
    assert.equal(stripe.requests.filter((q) => q.path === `/v1/checkout/sessions/${session.id}/line_items`).length, 1);
  });

  it('records a subscription checkout failed, once, when its subscription reads back malformed; no plan, no grant', async () => {
    const acct = await account(stack.baseUrl);
    const sub = `sub_test_${randomSuffix(12)}`;
    const session = await subscriptionCheckout(acct, sub, `in_test_${randomSuffix(12)}`);
    stripe.rewrite(
      (r) => r.path === `/v1/subscriptions/${sub}`,
      (body) => ({
        ...body,
        items: { ...body.items, data: [{ ...body.items.data[0], current_period_start: 'soon' }] },
      }),
    );
    const r = await send('checkout.session.completed', session);
    assert.equal(r.status, 200);
    // the run completes, saying so, and the event is recorded failed: no sweep starts it again
    const result = await processed(r.id);
    assert.equal(result.status, 'failed');
    assert.match(result.error, /current_period_start is not a time in seconds/);
    const [row] = await stack.sql<{ status: string }[]>`select status from stripe_events where id = ${r.id}`;
    assert.equal(row!.status, 'failed');
    assert.equal((await me(acct.cookie)).plan.id, 'free');
    assert.equal((await grants(acct.userId)).length, 0);
  });

  it('grants once when the worker stops after the grant committed, before reporting it, and the step runs again', async () => {
    const acct = await account(stack.baseUrl);
    await stack.stopWorker();
    let committed!: () => void;
    const reached = new Promise<void>((r) => (committed = r));
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let first = true;
    // The first attempt commits the grant, then the worker stops before it can report the result.
    const real = createPaymentActivities({
      sql: stack.sql,
      config: stack.config,
      log: createLogger({ level: 'error' }),
    });
    await stack.startWorker({
      // (the API starts a pack's workflow knowing it must read the line items: one step reads and applies them)
      async readAndApplyStripeEvent(input) {
        if (!first) return real.readAndApplyStripeEvent(input);
        first = false;
        await real.readAndApplyStripeEvent(input);
        committed();
        await released;
        throw new Error('the worker stopped before reporting the result');
      },
    });
    const session = await packCheckout(acct, 100);
    const r = await send('checkout.session.completed', session);
    assert.equal(r.status, 200);
    await reached;
    const stopping = stack.stopWorker();
    release();
    await stopping;
    await stack.startWorker();
    const result = await processed(r.id);
    assert.equal(result.status, 'processed');
    assert.deepEqual(
      (await grants(acct.userId)).map((g) => g.amount),
      [100],
    );
  });
  it('`npm run stripe:event` starts the plan named, and keeps the current plan when none is named', async () => {
    const acct = await account(stack.baseUrl);
    const root = path.resolve(__dirname, '../..');
    const run = (...args: string[]) =>
      promisify(execFile)(process.execPath, ['--import', 'tsx', path.join(root, 'scripts/stripe-event.ts'), ...args], {
        cwd: root,
        env: {
          ...process.env,
          PUBLIC_BASE_URL: stack.baseUrl,
          STRIPE_WEBHOOK_SECRET: stack.config.payments.webhookSecret!,
          LOG_LEVEL: 'warn',
        },
        timeout: 120_000,
      });
    const planGrants = async () => (await grants(acct.userId)).filter((g) => g.source === 'plan').map((g) => g.amount);
    /** The last event the script sent is applied after its answer: wait for it. */
    const settled = async (out: string) => {
      const ids = [...out.matchAll(/ (evt_test_\w+) for /g)].map((m) => m[1]!);
      assert.ok(ids.length > 0, out);
      await processed(ids.at(-1)!);
    };

    let out = await run('checkout.session.completed', '--user', acct.email, '--plan', 'business');
    await settled(out.stdout);
    assert.equal((await me(acct.cookie)).plan.id, 'business', out.stdout);
    assert.deepEqual(await planGrants(), [2000]);

    out = await run('invoice.paid', '--user', acct.email);
    await settled(out.stdout);
    assert.deepEqual(await planGrants(), [2000, 2000], 'a renewal of the current plan, Business');
    out = await run('customer.subscription.updated', '--user', acct.email);
    await settled(out.stdout);
    assert.equal((await me(acct.cookie)).plan.id, 'business');

    out = await run('customer.subscription.updated', '--user', acct.email, '--plan', 'pro');
    await settled(out.stdout);
    assert.equal((await me(acct.cookie)).plan.id, 'pro');
    out = await run('invoice.paid', '--user', acct.email);
    await settled(out.stdout);
    assert.deepEqual(await planGrants(), [2000, 2000, 500]);
  });

  describe('money taken back, grants from what was paid, plan changes', () => {
    const debits = (userId: string) =>
      stack.sql<{ reason: string; amount: number; owed: number; reference: string }[]>`
        select reason, amount, owed, reference from token_debits where user_id = ${userId} and reason <> 'spend'
        order by id`;
    const packPaid = async (acct: Account, tokens: number) => {
      const session = await packCheckout(acct, tokens);
      const r = await deliver('checkout.session.completed', session);
      assert.equal(r.granted, tokens, JSON.stringify(r));
      return { session, pi: session.payment_intent!, amount: session.amount_total! };
    };
    const spend = (userId: string, amount: number) =>
      debitTokens(stack.sql, userId, [{ reference: `test-spend-${randomSuffix(10)}`, amount }]);

    it('takes back the refunded share of a pack, partial then full, once per refund however often it is reported', async () => {
      const acct = await account(stack.baseUrl);
      const base = (await me(acct.cookie)).tokenBalance;
      const { pi, amount } = await packPaid(acct, 100);
      assert.equal(amount, 900);
      assert.equal((await me(acct.cookie)).tokenBalance, base + 100);

      // A third refunded: ceil(300 / 900 × 100) = 34 tokens.
      const partial = refundedCharge({ paymentIntent: pi, amount, amountRefunded: 300 });
      const r = await send('charge.refunded', partial);
      assert.equal(r.status, 200);
      assert.deepEqual(await processed(r.id), {
        status: 'processed',
        type: 'charge.refunded',
        granted: 0,
        takenBack: 34,
        owed: 0,
      });
      assert.equal((await me(acct.cookie)).tokenBalance, base + 66);
      // The same delivery again (same event id), the same refund in a new event, and its refund.created: nothing more.
      assert.equal((await send('charge.refunded', partial, { id: r.id })).status, 200);
      assert.equal((await deliver('charge.refunded', partial)).takenBack, 0);
      const one = refund({ paymentIntent: pi, amount: 300, id: `re_test_${randomSuffix(10)}` });
      assert.equal((await deliver('refund.created', one)).takenBack, 0);
      assert.equal((await deliver('refund.updated', one)).takenBack, 0);
      assert.equal((await me(acct.cookie)).tokenBalance, base + 66);

      // The rest refunded by a second refund reported on its own first: the remaining 66, once.
      const second = refund({ paymentIntent: pi, amount: 600, id: `re_test_${randomSuffix(10)}` });
      assert.equal((await deliver('refund.created', second)).takenBack, 66);
      const full = refundedCharge({ paymentIntent: pi, amount, amountRefunded: 900 });
      assert.equal((await deliver('charge.refunded', full)).takenBack, 0);
      const user = await me(acct.cookie);
      assert.deepEqual([user.tokenBalance, user.tokensOwed], [base, 0]);
      assert.deepEqual(
        (await debits(acct.userId)).map((d) => [d.reason, d.amount, d.owed]),
        [
          ['refund', 34, 0],
          ['refund', 66, 0],
        ],
      );
      // A refund of a payment that bought nothing here is recorded and ignored.
      const stranger = await deliver(
        'charge.refunded',
        refundedCharge({ paymentIntent: `pi_test_${randomSuffix(10)}`, amount: 900, amountRefunded: 900 }),
      );
      assert.equal(stranger.status, 'ignored');
    });

    it('records what a refund cannot take back as a debt: nothing can be spent until the next pack repays it', async () => {
      const acct = await account(stack.baseUrl);
      const base = (await me(acct.cookie)).tokenBalance;
      const { pi, amount } = await packPaid(acct, 100);
      const spent = await spend(acct.userId, base + 100 - 30);
      assert.ok(spent.ok);
      const r = await deliver('charge.refunded', refundedCharge({ paymentIntent: pi, amount, amountRefunded: amount }));
      assert.deepEqual([r.takenBack, r.owed], [30, 70]);
      let user = await me(acct.cookie);
      assert.deepEqual([user.tokenBalance, user.tokensOwed], [0, 70], 'the balance never goes below zero');
      const refused = await spend(acct.userId, 1);
      assert.deepEqual(refused, { ok: false, reason: 'insufficient_tokens', required: 1, available: 0 });

      // The next pack repays the debt first.
      await packPaid(acct, 100);
      user = await me(acct.cookie);
      assert.deepEqual([user.tokenBalance, user.tokensOwed], [30, 0]);
      assert.ok((await spend(acct.userId, 30)).ok, 'spending works again');
      assert.deepEqual(
        (await debits(acct.userId)).map((d) => [d.reason, d.amount, d.owed]),
        [['refund', 100, 0]],
      );
    });

    it('takes a disputed pack back; a dispute lost keeps it taken, a dispute won gives it back, once', async () => {
      const acct = await account(stack.baseUrl);
      const base = (await me(acct.cookie)).tokenBalance;
      const lost = await packPaid(acct, 500);
      const dpLost = `dp_test_${randomSuffix(10)}`;
      const d = (p: { pi: string; amount: number }, id: string, status: string) =>
        dispute({ paymentIntent: p.pi, amount: p.amount, id, status });
      assert.equal((await deliver('charge.dispute.created', d(lost, dpLost, 'needs_response'))).takenBack, 500);
      assert.equal((await me(acct.cookie)).tokenBalance, base);
      const closedLost = await deliver('charge.dispute.closed', d(lost, dpLost, 'lost'));
      assert.equal(closedLost.status, 'processed');
      assert.equal(closedLost.givenBack, undefined);
      assert.equal((await me(acct.cookie)).tokenBalance, base, 'lost: the tokens stay taken');

      const won = await packPaid(acct, 100);
      const dpWon = `dp_test_${randomSuffix(10)}`;
      assert.equal((await deliver('charge.dispute.created', d(won, dpWon, 'needs_response'))).takenBack, 100);
      assert.equal((await deliver('charge.dispute.created', d(won, dpWon, 'needs_response'))).takenBack, 0);
      assert.equal((await me(acct.cookie)).tokenBalance, base);
      assert.equal((await deliver('charge.dispute.closed', d(won, dpWon, 'won'))).givenBack, 100);
      assert.equal((await deliver('charge.dispute.closed', d(won, dpWon, 'won'))).givenBack, 0, 'reported again');
      assert.equal((await me(acct.cookie)).tokenBalance, base + 100);
      assert.deepEqual(
        (await debits(acct.userId)).map((x) => [x.reason, x.amount, x.reference]),
        [
          ['dispute', 500, `stripe-dispute:${dpLost}`],
          ['dispute', 100, `stripe-dispute:${dpWon}`],
        ],
      );
      assert.deepEqual(
        (await grants(acct.userId)).filter((g) => g.source === 'dispute_won').map((g) => [g.amount, g.reference]),
        [[100, `stripe-dispute-won:${dpWon}`]],
      );
    });

    it('grants nothing for a session it did not create, and grants what was paid to the account that created it', async () => {
      const victim = await account(stack.baseUrl);
      const buyer = await account(stack.baseUrl);
      const before = (await me(victim.cookie)).tokenBalance;
      // A Payment Link's session: the buyer chose client_reference_id, the link's metadata says a million tokens.
      const forged = checkoutSession({ userId: victim.userId, mode: 'payment', tokens: 1_000_000 });
      const r = await deliver('checkout.session.completed', forged);
      assert.equal(r.status, 'ignored');
      assert.match(r.reason, /not created by this service/);
      assert.ok(
        !stripe.requests.some((x) => x.path.includes(forged.id)),
        'nothing is read from Stripe for a session of no account',
      );
      const sub = checkoutSession({ userId: victim.userId, mode: 'subscription' });
      assert.equal((await deliver('checkout.session.completed', sub)).status, 'ignored');
      assert.equal((await me(victim.cookie)).tokenBalance, before);
      assert.equal((await me(victim.cookie)).plan.id, 'free');

      // The buyer's own session, reported naming the victim and a million tokens: the buyer gets the pack paid for.
      const own = await packCheckout(buyer, 100);
      const lying = {
        ...own,
        client_reference_id: victim.userId,
        metadata: { userId: victim.userId, tokens: '1000000' },
      };
      const paid = await deliver('checkout.session.completed', lying);
      assert.equal(paid.granted, 100);
      assert.ok(stripe.requests.some((x) => x.path === `/v1/checkout/sessions/${own.id}/line_items`));
      assert.equal((await me(victim.cookie)).tokenBalance, before);
      assert.deepEqual(
        (await grants(buyer.userId)).map((g) => [g.source, g.amount]),
        [['payg_purchase', 100]],
      );
    });

    it('plan changes: an upgrade grants the difference once, a downgrade nothing, the renewal the new plan', async () => {
      const acct = await account(stack.baseUrl);
      const sub = `sub_test_${randomSuffix(12)}`;
      const period = { start: now(), end: now() + 30 * DAY };
      const first = await deliver(
        'invoice.paid',
        paidInvoice({
          userId: acct.userId,
          subscription: sub,
          price: proPrice,
          billingReason: 'subscription_create',
          period,
        }),
      );
      assert.equal(first.granted, 500);
      const change = (from: string, to: string) =>
        prorationInvoice({ userId: acct.userId, subscription: sub, from, to, periodEnd: period.end });

      const up = change(proPrice, businessPrice);
      assert.equal((await deliver('invoice.paid', up)).granted, 1500, 'Business month minus the Pro month');
      assert.equal((await me(acct.cookie)).plan.id, 'business');
      assert.equal((await deliver('invoice.paid', up)).granted, 0, 'the same invoice reported again');
      assert.equal((await deliver('invoice.paid', change(businessPrice, proPrice))).granted, 0, 'a downgrade');
      assert.equal((await me(acct.cookie)).plan.id, 'pro');
      assert.equal(
        (await deliver('invoice.paid', change(proPrice, businessPrice))).granted,
        0,
        'upgrading again in the same period: the difference was granted once',
      );
      assert.equal((await deliver('invoice.paid', change(businessPrice, proPrice))).granted, 0);
      const next = { start: period.end, end: period.end + 30 * DAY };
      const renewal = await deliver(
        'invoice.paid',
        paidInvoice({ userId: acct.userId, subscription: sub, price: proPrice, period: next }),
      );
      assert.equal(renewal.granted, 500, "the renewal grants the new plan's month");
      const g = await grants(acct.userId);
      assert.deepEqual(
        g.map((x) => [x.amount, x.expiresAt?.getTime()]),
        [
          [500, period.end * 1000],
          [1500, period.end * 1000],
          [500, next.end * 1000],
        ],
      );
    });
  });
});
