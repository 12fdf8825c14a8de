// Payments' outbound side through HTTP against the real stack: the plans and packs listed, checkout and portal
// sessions created at Stripe (stripe-mock behind a recording proxy) and refused for bad input, and what each create
// call sends Stripe (the user, metadata, redirect URLs, an idempotency key kept across the library's retry). Events:
// payments-events.test.ts; refunds, disputes and plan changes: payments-refunds.test.ts.
import assert from 'node:assert/strict';
import * as inspect from '../helpers/db-inspect';
import { account, http } from '../helpers/http';
import { usePaymentsStack } from '../helpers/payments';
import { type StripeRequest } from '../helpers/stripe-proxy';

describe('payments: plans, checkout and portal at Stripe', function () {
  this.timeout(120_000);
  const { stack, stripe, proPrice, businessPrice } = usePaymentsStack('payments-checkout');

  it('lists the plans from the database with their prices, and the token packs', async () => {
    const r = await http(stack.baseUrl, 'GET', '/api/payments/plans');
    assert.equal(r.status, 200);
    assert.deepEqual(
      r.body.plans.map((p: any) => [p.id, p.name, p.tokensPerMonth, p.priceUsd, p.priceId, p.rollover]),
      [
        ['free', 'Free', 50, 0, null, false],
        ['pro', 'Pro', 500, 29, proPrice(), false],
        ['business', 'Business', 2000, 99, businessPrice(), false],
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
      json: { priceId: proPrice(), mode: 'subscription' },
    });
    assert.equal(r.status, 401);
    assert.deepEqual(r.body, { error: 'Unauthorized' });

    for (const bad of [
      { priceId: pack.priceId, mode: 'subscription' },
      { priceId: proPrice(), mode: 'payment' },
      { priceId: 'price_unknown', mode: 'payment' },
      { priceId: proPrice(), mode: 'setup' },
      { mode: 'payment' },
      { priceId: proPrice(), mode: 'subscription', successUrl: 'https://evil.example/steal' },
      { priceId: proPrice(), mode: 'subscription', cancelUrl: 'javascript:alert(1)' },
    ]) {
      r = await checkout(bad);
      assert.equal(r.status, 400, JSON.stringify(bad));
      assert.equal(typeof r.body.error, 'string');
    }

    r = await checkout({ priceId: proPrice(), mode: 'subscription', successUrl: `${stack.baseUrl}/billing?ok=1` });
    assert.equal(r.status, 200, r.text);
    assert.match(r.body.url, /^https?:\/\//);
    assert.match(r.body.sessionId, /^cs_/);
    r = await checkout({ priceId: pack.priceId, mode: 'payment' });
    assert.equal(r.status, 200, r.text);
    assert.match(r.body.sessionId, /^cs_/);

    // One Stripe customer per user, stored and reused.
    assert.equal((await inspect.stripeCustomerIds(acct.userId)).length, 1);
    r = await http(stack.baseUrl, 'POST', '/api/payments/portal', { cookie: acct.cookie });
    assert.equal(r.status, 200, r.text);
    assert.match(r.body.url, /^https?:\/\//);
    assert.equal((await inspect.stripeCustomerIds(acct.userId)).length, 1);
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
      json: { priceId: proPrice(), mode: 'subscription' },
    });
    assert.equal(sub.status, 200, sub.text);
    const packRes = await http(stack.baseUrl, 'POST', '/api/payments/checkout', {
      cookie: acct.cookie,
      json: { priceId: pack.priceId, mode: 'payment', cancelUrl: `${stack.baseUrl}/pricing` },
    });
    assert.equal(packRes.status, 200, packRes.text);
    const portal = await http(stack.baseUrl, 'POST', '/api/payments/portal', { cookie: acct.cookie });
    assert.equal(portal.status, 200, portal.text);
    const [customerId] = await inspect.stripeCustomerIds(acct.userId);
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
      'line_items[0][price]': proPrice(),
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
});
