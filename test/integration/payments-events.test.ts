// Stripe events through HTTP against the real stack (outbound calls to stripe-mock through a recording proxy, inbound
// events built and signed here): missing and bad signatures; the same event twice; a pack paid late
// (async_payment_succeeded); checkout and the first invoice.paid in either order (one grant); a renewal; a checkout
// naming no invoice applied after a renewal; plan change and cancel; unused types; poison events; an event arriving
// while the API cannot reach Temporal; Stripe refusing or answering malformed; the worker stopping after the grant
// committed; `npm run stripe:event`. Temporal killed and the worker SIGKILLed: payments-temporal-restart and
// payments-crash.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { ActivityFailure, ApplicationFailure, WorkflowFailedError, WorkflowNotFoundError } from '@temporalio/client';
import { createPaymentActivities } from '../../activities/payments';
import { randomSuffix } from '../../lib/ids';
import { createLogger } from '../../lib/log';
import { signStripePayload } from '../../lib/payments/stripe';
import { checkoutSession, paidInvoice } from '../../scripts/stand-ins/stripe-events';
import { inboundEventsSweep } from '../../workflows';
import * as inspect from '../helpers/db-inspect';
import { account, http } from '../helpers/http';
import { usePaymentsStack } from '../helpers/payments';
import { unreachableTemporal, withApiOn } from '../helpers/stack';
import { type StripeRequest } from '../helpers/stripe-proxy';

const now = () => Math.floor(Date.now() / 1000);
const DAY = 86_400;

describe('payments: Stripe events', function () {
  this.timeout(120_000);
  // Grace 0: the inbound sweep started by a test considers every waiting event at once.
  const {
    stack,
    stripe,
    send,
    processed,
    deliver,
    me,
    newSession,
    packCheckout,
    subscriptionCheckout,
    invoicePaid,
    subscriptionObject,
    proPrice,
    businessPrice,
  } = usePaymentsStack('payments-events', { env: { INBOUND_SWEEP_GRACE_SECONDS: '0' } });
  const grants = inspect.paidGrants;

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
    assert.equal(await inspect.stripeEvent(id), undefined);
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
    assert.ok(await inspect.stripeEvent(r.id), 'stored once');
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
    const grantSubs = await inspect.planGrantSubscriptions(acct.userId);
    assert.equal(grantSubs.length, 1);
    assert.ok(grantSubs[0], 'plan grants belong to the subscription');

    // A second subscription checkout is refused while this one holds a plan.
    const again = await http(stack.baseUrl, 'POST', '/api/payments/checkout', {
      cookie: acct.cookie,
      json: { priceId: businessPrice(), mode: 'subscription' },
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
        price: proPrice(),
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
      subscriptionObject(acct.userId, sub, { price: businessPrice(), cancelAtPeriodEnd: true }),
      { created: t },
    );
    assert.equal(upgraded.status, 'processed');
    assert.equal((await me(acct.cookie)).plan.id, 'business');
    let s = (await http(stack.baseUrl, 'GET', '/api/payments/subscription', { cookie: acct.cookie })).body.subscription;
    assert.deepEqual([s.plan.id, s.cancelAtPeriodEnd], ['business', true]);

    // An update from before the upgrade, delivered late, changes nothing.
    await deliver('customer.subscription.updated', subscriptionObject(acct.userId, sub, { price: proPrice() }), {
      created: t - 5,
    });
    assert.equal((await me(acct.cookie)).plan.id, 'business');

    const balance = (await me(acct.cookie)).tokenBalance;
    const canceled = await deliver(
      'customer.subscription.deleted',
      subscriptionObject(acct.userId, sub, { price: businessPrice(), status: 'canceled' }),
      { created: t + 5 },
    );
    assert.equal(canceled.status, 'processed');
    const user = await me(acct.cookie);
    assert.equal(user.plan.id, 'free');
    assert.equal(user.tokenBalance, balance, 'granted tokens stay until they expire');
    s = (await http(stack.baseUrl, 'GET', '/api/payments/subscription', { cookie: acct.cookie })).body.subscription;
    assert.equal(s.status, 'canceled');
    // A late update never revives a canceled subscription.
    await deliver('customer.subscription.updated', subscriptionObject(acct.userId, sub, { price: proPrice() }), {
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
          id: await newSession(acct, 'subscription', proPrice()),
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
      const row = await inspect.stripeEvent(r.id);
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
    assert.equal(await inspect.stripeEvent(bad.id), undefined);
  });

  it('answers an event while Temporal is unreachable; the inbound sweep applies it once afterwards', async () => {
    const acct = await account(stack.baseUrl);
    await withApiOn(stack, unreachableTemporal(), async (baseUrl) => {
      const session = await packCheckout(acct, 500);
      const r = await send('checkout.session.completed', session, { baseUrl });
      assert.equal(r.status, 200);
      assert.deepEqual(r.body, { received: true });
      const row = await inspect.stripeEvent(r.id);
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
    });
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
    const row = await inspect.stripeEvent(r.id);
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
    const row = await inspect.stripeEvent(r.id);
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
});
