// The local hosted checkout and portal (scripts/stand-ins/stripe-checkout.ts), the run's STRIPE_API_URL, seen from
// the service's side and at its edges the browser journeys do not reach: the session it answers carries what the
// service asked for and a repeated Idempotency-Key gets the same session; a Pay whose events the service refuses
// says so and does not redirect, and Pay again sends them and then redirects (a third Pay sends nothing more); a
// subscription's events share one customer, subscription and invoice, and reading that subscription back (what the
// stripeEvent workflow does) answers its real state.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createStripeClient } from '../../lib/payments/stripe';
import { stripeCustomerIds, stripeEventsOfUser } from '../helpers/db-inspect';
import { account, http } from '../helpers/http';
import { startStack, workflowResultWhenStarted, type Stack } from '../helpers/stack';

describe('local checkout and portal (development stand-in for Stripe)', function () {
  this.timeout(120_000);
  let stack: Stack;
  const secret = process.env.STRIPE_WEBHOOK_SECRET!;

  before(async () => {
    assert.ok(process.env.STRIPE_MOCK_URL, 'the test run starts stripe-mock behind the local checkout');
    stack = await startStack('stripe-stand-in');
  });
  after(async () => {
    stack.config.payments.webhookSecret = secret;
    await stack?.stop();
  });

  it('answers a session carrying the request, the same one for a repeated Idempotency-Key', async () => {
    const stripe = createStripeClient(stack.config.payments);
    const key = `test-${randomUUID()}`;
    const params = {
      mode: 'payment' as const,
      line_items: [{ price: 'price_pack_100', quantity: 1 }],
      success_url: `${stack.baseUrl}/billing?checkout=success&session_id={CHECKOUT_SESSION_ID}`,
      cancel_url: `${stack.baseUrl}/billing?checkout=canceled`,
      metadata: { userId: 'usr_someone', tokens: '100' },
    };
    const a = await stripe.checkout.sessions.create(params, { idempotencyKey: key });
    const b = await stripe.checkout.sessions.create(params, { idempotencyKey: key });
    const c = await stripe.checkout.sessions.create(params);
    assert.match(a.id, /^cs_test_\w+$/);
    assert.equal(b.id, a.id);
    assert.notEqual(c.id, a.id);
    assert.equal(a.url, `${process.env.STRIPE_API_URL}/checkout/${a.id}`);
    assert.equal(a.success_url, params.success_url);
    assert.deepEqual(a.metadata, params.metadata);
    assert.equal(a.payment_status, 'unpaid');
    const read = await stripe.checkout.sessions.retrieve(a.id);
    assert.equal(read.status, 'open');
    assert.equal(read.amount_total, 900, 'the pack price from the service catalogue');
    // its page shows the pack, with Pay and Cancel
    const page = await fetch(a.url!);
    const html = await page.text();
    assert.equal(page.status, 200);
    assert.match(html, /Local stand-in for Stripe/);
    assert.match(html, /<h2 id="item-h">100 tokens<\/h2>/);
    assert.match(html, /9\.00 USD/);
    assert.match(html, />Pay<\/button>/);
    assert.ok(html.includes(`<a href="${stack.baseUrl}/billing?checkout=canceled">Cancel</a>`));
  });

  it('a Pay the service refuses says why and stays; Pay again delivers, then redirects; once paid, nothing more', async () => {
    const acct = await account(stack.baseUrl);
    const r = await http(stack.baseUrl, 'POST', '/api/payments/checkout', {
      cookie: acct.cookie,
      json: { priceId: 'price_pack_100', mode: 'payment' },
    });
    assert.equal(r.status, 200, r.text);
    const url: string = r.body.url;

    stack.config.payments.webhookSecret = 'whsec_not_the_one_the_stand_in_signs_with';
    let pay = await fetch(`${url}/pay`, { method: 'POST', redirect: 'manual' });
    const text = await pay.text();
    assert.equal(pay.status, 502);
    assert.match(text, /checkout\.session\.completed was answered 400/);
    assert.match(text, /Invalid signature/);
    assert.equal((await stripeEventsOfUser(acct.userId)).length, 0);

    stack.config.payments.webhookSecret = secret;
    pay = await fetch(`${url}/pay`, { method: 'POST', redirect: 'manual' });
    assert.equal(pay.status, 303);
    assert.equal(pay.headers.get('location'), `${stack.baseUrl}/billing?checkout=success`);
    const [e, ...more] = await stripeEventsOfUser(acct.userId);
    assert.equal(more.length, 0);
    assert.equal(e!.type, 'checkout.session.completed');
    assert.equal(e!.payload.data.object.id, r.body.sessionId);
    assert.equal(e!.payload.data.object.payment_status, 'paid');
    await workflowResultWhenStarted(stack.client, `stripe-event-${e!.id}`);
    const me = await http(stack.baseUrl, 'GET', '/api/auth/me', { cookie: acct.cookie });
    assert.equal(me.body.user.tokenBalance, 150);

    // Pay once more (a double submit): nothing new is sent, the browser is sent back again
    pay = await fetch(`${url}/pay`, { method: 'POST', redirect: 'manual' });
    assert.equal(pay.status, 303);
    assert.equal((await stripeEventsOfUser(acct.userId)).length, 1);
  });

  it('a subscription: one customer, subscription and invoice across its events, and read back as it is', async () => {
    const acct = await account(stack.baseUrl);
    const pro = stack.config.payments.planPrices.pro;
    const r = await http(stack.baseUrl, 'POST', '/api/payments/checkout', {
      cookie: acct.cookie,
      json: { priceId: pro, mode: 'subscription' },
    });
    assert.equal(r.status, 200, r.text);
    const pay = await fetch(`${r.body.url}/pay`, { method: 'POST', redirect: 'manual' });
    assert.equal(pay.status, 303, await pay.text());
    const got = await stripeEventsOfUser(acct.userId);
    assert.deepEqual(
      got.map((e) => e.type),
      ['checkout.session.completed', 'customer.subscription.created', 'invoice.paid'],
    );
    const [session, sub, invoice] = got.map((e) => e.payload.data.object);
    const [customer] = await stripeCustomerIds(acct.userId);
    assert.equal(session.customer, customer);
    assert.equal(sub.customer, session.customer);
    assert.equal(invoice.customer, session.customer);
    assert.equal(sub.id, session.subscription);
    assert.equal(invoice.id, session.invoice);
    assert.equal(invoice.parent.subscription_details.subscription, sub.id);
    assert.equal(invoice.billing_reason, 'subscription_create');
    assert.equal(sub.items.data[0].price.id, pro);
    assert.equal(sub.metadata.userId, acct.userId);
    for (const e of got) await workflowResultWhenStarted(stack.client, `stripe-event-${e.id}`);

    const read = await createStripeClient(stack.config.payments).subscriptions.retrieve(sub.id, {
      expand: ['latest_invoice'],
    });
    assert.equal(read.items.data[0]!.price.id, pro);
    assert.equal((read.latest_invoice as { id: string }).id, invoice.id);
    const me = await http(stack.baseUrl, 'GET', '/api/auth/me', { cookie: acct.cookie });
    assert.equal(me.body.user.plan.id, 'pro');
    assert.equal(me.body.user.tokenBalance, 550, 'one grant for the first period, not two');
  });
});
