// Receiving and applying Stripe events with few round trips (the throughput figures in docs/payments.md): the
// webhook stores an event and finds the account it belongs to in one statement, and that account is the event
// workflow's AccountId; the worker reads, decides and applies an event in one transaction. Statements are counted
// with the pool's query hook; nothing here is timed.
import assert from 'node:assert/strict';
import { createPaymentActivities } from '../../activities/payments';
import { createSql, type Sql } from '../../db/client';
import { recordCheckoutSession, storeCustomer } from '../../db/billing';
import { storeStripeEvent } from '../../db/payments';
import { randomSuffix } from '../../lib/ids';
import { createLogger } from '../../lib/log';
import { checkoutSession, signedEvent } from '../../scripts/stand-ins/stripe-events';
import { inboundWorkflows } from '../../worker/create-worker';
import { grantsWithReference, stripeEvent } from '../helpers/db-inspect';
import { account, http } from '../helpers/http';
import { startStack, workflowResultWhenStarted, type Stack } from '../helpers/stack';

describe('payments: Stripe events stored with their account, applied in one transaction', function () {
  this.timeout(120_000);
  let stack: Stack;
  let counted: Sql;
  let statements: string[] = [];

  before(async () => {
    stack = await startStack('payments-receive');
    // A new connection first reads the array types (the driver's own query, once per connection): not counted.
    const own = (q: string) => q.includes('pg_catalog.pg_type');
    counted = createSql(process.env.DATABASE_URL!, { max: 2, onQuery: (q) => own(q) || statements.push(q) });
  });
  after(async () => {
    await counted?.end();
    await stack?.stop();
  });

  /** Runs `f` and returns what it returned and the statements it sent through the counted pool. */
  async function counting<T>(f: () => Promise<T>): Promise<{ value: T; sent: string[] }> {
    statements = [];
    const value = await f();
    return { value, sent: statements };
  }

  const secret = () => stack.config.payments.webhookSecret!;
  const storedEvent = (type: string, object: Record<string, unknown>) => {
    const e = signedEvent(secret(), type, object);
    const payload = JSON.parse(e.body) as { id: string; type: string; created: number; livemode: boolean };
    return { ...e, stored: { id: payload.id, type, created: payload.created, livemode: false, payload } };
  };

  /** Posts a signed event, waits for its workflow's result, and returns the workflow's AccountId. */
  async function accountIdOfWorkflow(type: string, object: Record<string, unknown>) {
    const e = signedEvent(secret(), type, object);
    const res = await http(stack.baseUrl, 'POST', '/api/payments/webhook', {
      body: e.body,
      headers: { 'content-type': 'application/json', 'stripe-signature': e.signature },
    });
    assert.equal(res.status, 200, res.text);
    const workflowId = `stripe-event-${e.id}`;
    await workflowResultWhenStarted(stack.client, workflowId);
    const desc = await stack.client.workflow.getHandle(workflowId).describe();
    return desc.searchAttributes.AccountId;
  }

  it('the workflow of an event naming its user has that user as AccountId', async () => {
    const acct = await account(stack.baseUrl);
    const session = checkoutSession({ userId: acct.userId, mode: 'payment', tokens: 5 });
    assert.deepEqual(await accountIdOfWorkflow('checkout.session.completed', session), [acct.userId]);
  });

  it("an event naming only a stored customer is the customer's user's; an event of no one's is `none`", async () => {
    const acct = await account(stack.baseUrl);
    const customer = `cus_${randomSuffix(12)}`;
    assert.equal(await storeCustomer(stack.sql, acct.userId, customer), customer);
    const invoice = { id: `in_${randomSuffix(12)}`, object: 'invoice', customer, status: 'open' };
    assert.deepEqual(await accountIdOfWorkflow('invoice.payment_failed', invoice), [acct.userId]);
    const stranger = { ...invoice, id: `in_${randomSuffix(12)}`, customer: `cus_${randomSuffix(12)}` };
    assert.deepEqual(await accountIdOfWorkflow('invoice.payment_failed', stranger), ['none']);
  });

  it('storing an event finds its account in the same statement, also when the event is repeated', async () => {
    const acct = await account(stack.baseUrl);
    const e = storedEvent('checkout.session.completed', checkoutSession({ userId: acct.userId, mode: 'payment' }));
    const first = await counting(() => storeStripeEvent(counted, e.stored));
    // no session recorded for this one (not created through the checkout): nothing to read from Stripe for it
    assert.deepEqual(first.value, { inserted: true, status: 'received', accountId: acct.userId, session: null });
    assert.equal(first.sent.length, 1, first.sent.join('\n'));
    const again = await counting(() => storeStripeEvent(counted, e.stored));
    assert.deepEqual(again.value, { inserted: false, status: 'received', accountId: acct.userId, session: null });
    assert.equal(again.sent.length, 1, again.sent.join('\n'));
    assert.ok(await stripeEvent(e.id), 'stored once (its id is the key)');
  });

  it("a paid pack's workflow starts knowing it must read the line items: read and applied in one step", async () => {
    const acct = await account(stack.baseUrl);
    const { priceId } = stack.config.payments.tokenPacks[0]!;
    const session = checkoutSession({ userId: acct.userId, mode: 'payment', id: `cs_test_${randomSuffix(16)}` });
    // as POST /api/payments/checkout records the sessions it creates
    await recordCheckoutSession(stack.sql, { id: session.id, userId: acct.userId, mode: 'payment', priceId });
    const e = signedEvent(secret(), 'checkout.session.completed', session);
    const res = await http(stack.baseUrl, 'POST', '/api/payments/webhook', {
      body: e.body,
      headers: { 'content-type': 'application/json', 'stripe-signature': e.signature },
    });
    assert.equal(res.status, 200, res.text);
    const workflowId = `stripe-event-${e.id}`;
    // stripe-mock answers any session's line items with its fixture's price, not a pack of ours: nothing granted
    assert.equal(((await workflowResultWhenStarted(stack.client, workflowId)) as { status: string }).status, 'ignored');
    const history = await stack.client.workflow.getHandle(workflowId).fetchHistory();
    const started = history.events![0]!.workflowExecutionStartedEventAttributes!;
    const input = stack.client.options.loadedDataConverter.payloadConverter.fromPayload(started.input!.payloads![0]!);
    assert.deepEqual(input, { eventId: e.id, need: { lineItemsOf: session.id } });
    // one local activity: the read with the apply; no first apply finding that it must read
    const localActivities = (h: typeof history) =>
      h.events!.filter((ev) => ev.markerRecordedEventAttributes?.markerName === 'core_local_activity').length;
    assert.equal(localActivities(history), 1);
    // an event with nothing to read is started saying so, and applied in one step
    const other = signedEvent(secret(), 'invoice.payment_failed', { id: `in_${randomSuffix(12)}`, object: 'invoice' });
    await http(stack.baseUrl, 'POST', '/api/payments/webhook', {
      body: other.body,
      headers: { 'content-type': 'application/json', 'stripe-signature': other.signature },
    });
    await workflowResultWhenStarted(stack.client, `stripe-event-${other.id}`);
    const h2 = await stack.client.workflow.getHandle(`stripe-event-${other.id}`).fetchHistory();
    const in2 = stack.client.options.loadedDataConverter.payloadConverter.fromPayload(
      h2.events![0]!.workflowExecutionStartedEventAttributes!.input!.payloads![0]!,
    );
    assert.deepEqual(in2, { eventId: other.id, need: null });
    assert.equal(localActivities(h2), 1);
  });

  it('applying a token pack is one transaction of seven statements; applying it again grants nothing', async () => {
    const acct = await account(stack.baseUrl);
    const log = createLogger({ level: 'warn' });
    // as the worker makes them: with what starts the mails an event writes (a pack's grant writes none, and nothing
    // looks for any after its commit)
    const activities = createPaymentActivities({
      sql: counted,
      config: stack.config,
      log,
      temporal: stack.client,
      inboundWorkflows,
    });
    const { priceId, tokens } = stack.config.payments.tokenPacks[0]!;
    const lineItems = [{ priceId, quantity: 1 }];
    const pack = async () => {
      const session = checkoutSession({ userId: acct.userId, mode: 'payment', id: `cs_test_${randomSuffix(16)}` });
      // as POST /api/payments/checkout records the sessions it creates
      await recordCheckoutSession(stack.sql, { id: session.id, userId: acct.userId, mode: 'payment', priceId });
      const e = storedEvent('checkout.session.completed', session);
      await storeStripeEvent(stack.sql, e.stored);
      return { eventId: e.id, reference: `stripe-checkout:${session.id}` };
    };
    await activities.applyStripeEvent({ eventId: (await pack()).eventId, subscription: null, lineItems }); // plans

    const { eventId, reference } = await pack();
    // The first step finds the line items must be read from Stripe: nothing changed, nothing held.
    const deferred = await counting(() => activities.applyStripeEvent({ eventId, subscription: null }));
    assert.deepEqual(deferred.value, { status: 'needs_line_items', sessionId: reference.split(':')[1] });
    assert.equal(deferred.sent.length, 3, deferred.sent.join('\n'));
    const applied = await counting(() => activities.applyStripeEvent({ eventId, subscription: null, lineItems }));
    assert.deepEqual(applied.value, { status: 'processed', type: 'checkout.session.completed', granted: tokens });
    // begin; the event row with its recorded session, locked and read; the user, found and locked; the grant (and
    // whether anything is owed); the purchase's payment; the event's status; commit
    assert.equal(applied.sent.length, 7, applied.sent.join('\n'));
    const again = await counting(() => activities.applyStripeEvent({ eventId, subscription: null, lineItems }));
    assert.deepEqual(again.value, { status: 'processed', type: 'checkout.session.completed', granted: 0 });
    assert.equal(again.sent.length, 3, again.sent.join('\n'));
    const grants = await grantsWithReference(reference);
    assert.deepEqual(
      grants.map((g) => g.amount),
      [tokens],
    );
  });

  it('an event that is not stored is a non-retryable failure, and changes nothing', async () => {
    const activities = createPaymentActivities({
      sql: counted,
      config: stack.config,
      log: createLogger({ level: 'warn' }),
    });
    await assert.rejects(
      activities.applyStripeEvent({ eventId: `evt_${randomSuffix(16)}`, subscription: null }),
      (err: Error & { type?: string; nonRetryable?: boolean }) =>
        err.type === 'StripeEventNotFound' && err.nonRetryable === true,
    );
  });
});
