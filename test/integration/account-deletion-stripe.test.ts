// A deleted account is never billed and leaves nothing behind (issue 33, item 5): through HTTP on the real stack,
// the Stripe calls checked on a recording proxy in front of the run's local Stripe (test/helpers/stripe-proxy.ts).
import assert from 'node:assert/strict';
import { randomSuffix } from '../../lib/ids';
import { createStripeClient } from '../../lib/payments/stripe';
import { subscription } from '../../scripts/stand-ins/stripe-events';
import {
  grantsWithReference,
  insertIdempotencyKey,
  ownedRowCounts,
  paidGrants,
  stripeCustomerIds,
  stripeEvent,
  stripeEventIdsAbout,
  subscriptionStored,
  userRow,
} from '../helpers/db-inspect';
import { account, GOOD_PASSWORD, http } from '../helpers/http';
import { packCheckoutSession, sendStripeEvent, stripeEventProcessed } from '../helpers/payments';
import { startStack, workflowResultWhenStarted, type Stack } from '../helpers/stack';
import { startStripeProxy, type StripeProxy } from '../helpers/stripe-proxy';
import { sleep } from '../helpers/wait';

describe('deletion at Stripe: open checkouts expired, customer deleted, late events undone, data erased', function () {
  this.timeout(180_000);
  let stack: Stack;
  let stripe: StripeProxy;
  before(async () => {
    stripe = await startStripeProxy(process.env.STRIPE_API_URL!);
    stack = await startStack('account-deletion-stripe', { env: { STRIPE_API_URL: stripe.url } });
  });
  after(async () => {
    await stack?.stop();
    await stripe?.stop();
  });

  async function deliver(type: string, object: Record<string, unknown>) {
    const r = await sendStripeEvent(stack, type, object);
    assert.equal(r.status, 200, r.text);
    return { id: r.id, result: (await stripeEventProcessed(stack, r.id)) as Record<string, unknown> };
  }

  async function deleteAccount(acct: { cookie: string; userId: string }) {
    const res = await http(stack.baseUrl, 'DELETE', '/api/auth/account', {
      cookie: acct.cookie,
      json: { password: GOOD_PASSWORD },
    });
    assert.equal(res.status, 202, res.text);
    return workflowResultWhenStarted<Record<string, any>>(stack.client, res.body.workflowId, 120_000);
  }

  it('expires the open checkout, deletes the Stripe customer, erases payloads, request log and idempotency answers', async () => {
    const acct = await account(stack.baseUrl);
    const pack = stack.config.payments.tokenPacks[0]!;
    // a paid pack (its event stored with the customer's details), then a second checkout left open
    const paid = await packCheckoutSession(stack.baseUrl, acct, pack);
    const first = await deliver('checkout.session.completed', paid);
    assert.equal(first.result.granted, pack.tokens);
    const open = await http(stack.baseUrl, 'POST', '/api/payments/checkout', {
      cookie: acct.cookie,
      json: { priceId: pack.priceId, mode: 'payment' },
    });
    assert.equal(open.status, 200, open.text);
    const [customer] = await stripeCustomerIds(acct.userId);
    assert.ok(customer);
    // something in the request log and an idempotency answer
    const up = await http(stack.baseUrl, 'GET', '/api/v1/garments?limit=1', { key: acct.key });
    assert.equal(up.status, 200);
    await insertIdempotencyKey(acct.userId, `k-${randomSuffix(6)}`);
    await sleep(1500); // the request log is written in batches

    const result = await deleteAccount(acct);
    assert.equal(result.checkoutsExpired, 1, JSON.stringify(result));
    assert.equal(result.stripeCustomersDeleted, 1);
    assert.ok(
      stripe.requests.some(
        (r) => r.method === 'POST' && r.path === `/v1/checkout/sessions/${open.body.sessionId}/expire`,
      ),
      'the open session was expired at Stripe',
    );
    assert.ok(stripe.requests.some((r) => r.method === 'DELETE' && r.path === `/v1/customers/${customer}`));
    const ev = await stripeEvent(first.id);
    assert.equal(ev!.payload.erased, true);
    assert.doesNotMatch(JSON.stringify(ev!.payload), /customer|metadata|cus_/);
    assert.deepEqual(await ownedRowCounts(acct.userId, ['api_request_log', 'idempotency_keys']), {
      api_request_log: 0,
      idempotency_keys: 0,
    });
  });

  it('an event for a deleted account grants nothing, makes no plan, and is undone at Stripe, recorded', async () => {
    const acct = await account(stack.baseUrl);
    const pack = stack.config.payments.tokenPacks[0]!;
    const session = await packCheckoutSession(stack.baseUrl, acct, pack);
    await deleteAccount(acct);
    // the checkout opened before the deletion is paid anyway
    const late = await deliver('checkout.session.completed', session);
    assert.equal(late.result.status, 'ignored', JSON.stringify(late.result));
    assert.equal(late.result.granted, 0);
    assert.equal(late.result.reason, 'account deleted');
    const grants = (await paidGrants(acct.userId)).filter((g) => g.source === 'payg_purchase');
    assert.equal(grants.length, 0);
    const refund = stripe.requests.find((r) => r.method === 'POST' && r.path === '/v1/refunds');
    assert.ok(refund, 'the payment was refunded at Stripe');
    assert.equal(refund.form.get('payment_intent'), session.payment_intent);
    // a subscription that appears for the deleted account is cancelled at once
    const subId = `sub_test_${randomSuffix(10)}`;
    const sub = await deliver(
      'customer.subscription.updated',
      subscription({ userId: acct.userId, id: subId, price: stack.config.payments.planPrices.pro }),
    );
    assert.equal(sub.result.reason, 'account deleted');
    assert.ok(stripe.requests.some((r) => r.method === 'DELETE' && r.path === `/v1/subscriptions/${subId}`));
    assert.equal(await subscriptionStored(subId), false, 'no plan for a deleted account');
    assert.equal((await userRow(acct.userId))!.plan, 'free');
    const recorded = [(await stripeEvent(late.id))!, (await stripeEvent(sub.id))!];
    assert.ok(recorded[0]!.result.undo.done.refundId, JSON.stringify(recorded[0]!.result));
    assert.equal(recorded[1]!.result.undo.done.cancelled, true);
    for (const r of recorded) assert.equal(r.payload.erased, true);
  });

  it('a subscription checkout paid but reported after the deletion: cancelled, its first invoice refunded once, no plan', async () => {
    const acct = await account(stack.baseUrl);
    const pro = stack.config.payments.planPrices.pro;
    const open = await http(stack.baseUrl, 'POST', '/api/payments/checkout', {
      cookie: acct.cookie,
      json: { priceId: pro, mode: 'subscription' },
    });
    assert.equal(open.status, 200, open.text);
    // Paid at the local checkout while the account lived, but its events do not get through (refused here: Stripe
    // then retries them for days), until after the deletion.
    const secret = stack.config.payments.webhookSecret;
    stack.config.payments.webhookSecret = 'whsec_not_the_one_the_stand_in_signs_with';
    try {
      const refused = await fetch(`${open.body.url}/pay`, { method: 'POST', redirect: 'manual' });
      assert.equal(refused.status, 502, await refused.text());
    } finally {
      stack.config.payments.webhookSecret = secret;
    }
    await deleteAccount(acct);
    const paid = await fetch(`${open.body.url}/pay`, { method: 'POST', redirect: 'manual' });
    assert.equal(paid.status, 303, await paid.text());

    // what Stripe holds: the subscription, its first invoice and that invoice's payment
    const read = createStripeClient(stack.config.payments);
    const session = await read.checkout.sessions.retrieve(open.body.sessionId);
    const subId = session.subscription as string;
    const invoiceId = session.invoice as string;
    assert.ok(subId && invoiceId, JSON.stringify(session));
    const payments = await read.invoicePayments.list({ invoice: invoiceId });
    const pi = payments.data[0]?.payment.payment_intent;
    assert.ok(typeof pi === 'string' && pi.startsWith('pi_'), JSON.stringify(payments.data));

    const ids = await stripeEventIdsAbout([open.body.sessionId, subId, invoiceId]);
    assert.equal(ids.length, 3, 'checkout completed, subscription created, invoice paid');
    const results = [];
    for (const id of ids)
      results.push(await workflowResultWhenStarted<Record<string, any>>(stack.client, `stripe-event-${id}`));
    for (const r of results) assert.equal(r.granted, 0, JSON.stringify(r));
    // the checkout's and the invoice's events name the account (the subscription's own creation is not used)
    const forDeleted = results.filter((r) => r.reason === 'account deleted');
    assert.deepEqual(forDeleted.map((r) => r.type).sort(), ['checkout.session.completed', 'invoice.paid']);
    // the subscription cancelled at Stripe; its paid first invoice refunded, once (one idempotency key)
    assert.ok(stripe.requests.some((r) => r.method === 'DELETE' && r.path === `/v1/subscriptions/${subId}`));
    const refunds = stripe.requests.filter((r) => r.method === 'POST' && r.path === '/v1/refunds');
    const ours = refunds.filter((r) => r.form.get('payment_intent') === pi);
    assert.ok(ours.length >= 1, 'the first invoice was refunded at Stripe');
    assert.equal(new Set(ours.map((r) => r.headers['idempotency-key'])).size, 1, 'one refund, asked once per event');
    assert.equal(ours[0]!.form.get('metadata[invoiceId]'), invoiceId);
    const recorded = await Promise.all(ids.map(async (id) => (await stripeEvent(id))!));
    assert.ok(
      recorded.some((r) => (r.result.undo?.done?.invoiceRefunds ?? []).length === 1),
      JSON.stringify(recorded.map((r) => r.result)),
    );
    // no plan, no tokens
    assert.equal(await subscriptionStored(subId), false);
    assert.equal((await userRow(acct.userId))!.plan, 'free');
    assert.equal((await grantsWithReference(`stripe-invoice:${invoiceId}`)).length, 0);
  });

  it('a late event of a subscription the account had before its deletion refunds nothing', async () => {
    const acct = await account(stack.baseUrl);
    const subId = `sub_test_${randomSuffix(10)}`;
    const price = stack.config.payments.planPrices.pro;
    const live = await deliver(
      'customer.subscription.updated',
      subscription({ userId: acct.userId, id: subId, price }),
    );
    assert.equal(live.result.status, 'processed', JSON.stringify(live.result));
    await deleteAccount(acct);
    const before = stripe.requests.length;
    const late = await deliver(
      'customer.subscription.deleted',
      subscription({ userId: acct.userId, id: subId, price, status: 'canceled' }),
    );
    assert.equal(late.result.reason, 'account deleted');
    assert.equal(
      (late.result.undo as { refundInvoices?: boolean } | undefined)?.refundInvoices,
      undefined,
      'a subscription of the live account keeps its invoices',
    );
    const after = stripe.requests.slice(before);
    assert.ok(!after.some((r) => r.path === '/v1/refunds' || r.path === '/v1/invoices'), JSON.stringify(after));
  });
});
