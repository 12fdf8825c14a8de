// The Stripe event engine (lib/payments/events.ts): what each event means, without a database or Stripe.
import assert from 'node:assert/strict';
import type Stripe from 'stripe';
import type { PlanRow } from '../../lib/payments/catalog';
import {
  checkoutNeeds,
  firstInvoiceOf,
  oneMonthAfter,
  subscriptionFacts,
  subscriptionToRetrieve,
} from '../../lib/payments/event-reads';
import { interpretEvent, refundedCents, refundShare } from '../../lib/payments/events';
import { MalformedStripeEventError } from '../../lib/payments/event-values';
import {
  checkoutSession,
  dispute,
  paidInvoice,
  prorationInvoice,
  refund,
  refundedCharge,
  subscription,
} from '../../scripts/stand-ins/stripe-events';

const catalog = {
  planPrices: { pro: 'price_pro', business: 'price_biz' },
  tokenPacks: [{ priceId: 'price_pack', tokens: 100, priceUsd: 9 }],
};
const plans = new Map<string, PlanRow>([
  ['pro', { id: 'pro', name: 'Pro', tokensPerMonth: 500, priceUsd: 29, rollover: false }],
  ['business', { id: 'business', name: 'Business', tokensPerMonth: 2000, priceUsd: 99, rollover: true }],
]);
const event = (type: string, object: unknown, created = 1_800_000_000) =>
  ({ id: 'evt_1', object: 'event', type, created, livemode: false, data: { object } }) as unknown as Stripe.Event;
/** The session as the service recorded it at checkout. */
const pack = { userId: 'usr_1', mode: 'payment' };
const sub1 = { userId: 'usr_1', mode: 'subscription' };
const bought = (priceId: string | null, quantity = 1) => [{ priceId, quantity }];

describe('payment events engine', () => {
  it('adds one calendar month, clamped to the last day of the month', () => {
    const s = (iso: string) => Date.parse(iso) / 1000;
    assert.equal(oneMonthAfter(s('2026-01-31T10:00:00Z')), s('2026-02-28T10:00:00Z'));
    assert.equal(oneMonthAfter(s('2028-01-31T10:00:00Z')), s('2028-02-29T10:00:00Z'));
    assert.equal(oneMonthAfter(s('2026-12-15T23:59:59Z')), s('2027-01-15T23:59:59Z'));
  });

  it('grants a paid pack by the price on its line items, once per session, and nothing while unpaid', () => {
    const ev = event(
      'checkout.session.completed',
      checkoutSession({ userId: 'usr_1', mode: 'payment', tokens: 100, id: 'cs_1', paymentIntent: 'pi_1' }),
    );
    assert.deepEqual(checkoutNeeds(ev, pack), { lineItemsOf: 'cs_1' });
    assert.throws(() => interpretEvent(ev, { catalog, plans, session: pack }), /line items/);
    const paid = interpretEvent(ev, { catalog, plans, session: pack, lineItems: bought('price_pack', 2) });
    assert.ok(paid.kind === 'apply');
    assert.equal(paid.user.userId, 'usr_1');
    assert.deepEqual(paid.grant, {
      amount: 200,
      source: 'payg_purchase',
      expiresAt: null,
      reference: 'stripe-checkout:cs_1',
    });
    assert.deepEqual(paid.purchase, { sessionId: 'cs_1', paymentIntent: 'pi_1', amountTotal: 900 });
    const unpaidEv = event(
      'checkout.session.completed',
      checkoutSession({ userId: 'usr_1', mode: 'payment', tokens: 100, paid: false }),
    );
    assert.equal(checkoutNeeds(unpaidEv, pack), null, 'nothing is read for an unpaid session');
    assert.equal(interpretEvent(unpaidEv, { catalog, plans, session: pack }).kind, 'ignore');
    // A price that is not a pack (or no line) grants nothing, whatever the metadata says.
    for (const items of [bought('price_pro'), bought(null), []])
      assert.equal(interpretEvent(ev, { catalog, plans, session: pack, lineItems: items }).kind, 'ignore');
  });

  it('ignores a session this service did not create, whatever its metadata and client_reference_id say', () => {
    const forged = event(
      'checkout.session.completed',
      checkoutSession({ userId: 'usr_victim', mode: 'payment', tokens: 1_000_000, id: 'cs_payment_link' }),
    );
    assert.equal(checkoutNeeds(forged, null), null, 'nothing is read from Stripe for it');
    const out = interpretEvent(forged, { catalog, plans, session: null, lineItems: bought('price_pack') });
    assert.deepEqual(out, {
      kind: 'ignore',
      reason: 'checkout session cs_payment_link was not created by this service',
    });
    const sub = event('checkout.session.completed', checkoutSession({ userId: 'usr_victim', mode: 'subscription' }));
    assert.equal(subscriptionToRetrieve(sub, null), null);
    assert.equal(interpretEvent(sub, { catalog, plans, session: null }).kind, 'ignore');
    // The account is the one that created the session, not the one the session names.
    const mine = interpretEvent(forged, {
      catalog,
      plans,
      session: { userId: 'usr_buyer', mode: 'payment' },
      lineItems: bought('price_pack'),
    });
    assert.ok(mine.kind === 'apply');
    assert.equal(mine.user.userId, 'usr_buyer');
    assert.equal(mine.grant?.amount, 100);
  });

  it('needs the subscription read for a subscription checkout, and references its first invoice', () => {
    const session = checkoutSession({ userId: 'usr_1', mode: 'subscription', subscription: 'sub_1', invoice: 'in_1' });
    const ev = event('checkout.session.completed', session);
    assert.equal(subscriptionToRetrieve(ev, sub1), 'sub_1');
    assert.throws(() => interpretEvent(ev, { catalog, plans, session: sub1 }));
    const facts = subscriptionFacts(
      subscription({
        userId: 'usr_1',
        id: 'sub_1',
        price: 'price_pro',
        period: { start: 100, end: 200 },
      }) as unknown as Stripe.Subscription,
      150,
    );
    const out = interpretEvent(ev, { catalog, plans, session: sub1, subscription: facts });
    assert.ok(out.kind === 'apply');
    assert.deepEqual(out.grant, { amount: 500, source: 'plan', expiresAt: 200, reference: 'stripe-invoice:in_1' });
    assert.equal(out.subscription?.planId, 'pro');
  });

  it('treats a period that ends before it starts as unknown and grants for one month', () => {
    const facts = subscriptionFacts(
      subscription({
        userId: 'u',
        id: 'sub_1',
        price: 'price_pro',
        period: { start: 1_896_570_518, end: 976_287_773 },
      }) as unknown as Stripe.Subscription,
      1_800_000_000,
    );
    assert.deepEqual([facts.periodStart, facts.periodEnd], [null, null]);
    const out = interpretEvent(
      event(
        'checkout.session.completed',
        checkoutSession({ userId: 'u', mode: 'subscription', subscription: 'sub_1', invoice: 'in_1' }),
      ),
      { catalog, plans, session: sub1, subscription: facts },
    );
    assert.ok(out.kind === 'apply');
    assert.equal(out.grant?.expiresAt, oneMonthAfter(1_800_000_000));
  });

  it('grants a subscription invoice by its own id, never expiring for a rollover plan; ignores other invoices', () => {
    const inv = paidInvoice({
      userId: 'u',
      subscription: 'sub_1',
      price: 'price_biz',
      id: 'in_9',
      period: { start: 10, end: 20 },
    });
    const out = interpretEvent(event('invoice.paid', inv), { catalog, plans });
    assert.ok(out.kind === 'apply');
    assert.deepEqual(out.grant, { amount: 2000, source: 'plan', expiresAt: null, reference: 'stripe-invoice:in_9' });
    assert.deepEqual([out.subscription?.periodStart, out.subscription?.periodEnd], [10, 20]);
    const oneOff = { ...inv, parent: null };
    assert.equal(interpretEvent(event('invoice.paid', oneOff), { catalog, plans }).kind, 'ignore');
    const otherPrice = paidInvoice({ userId: 'u', subscription: 'sub_1', price: 'price_other' });
    assert.equal(interpretEvent(event('invoice.paid', otherPrice), { catalog, plans }).kind, 'ignore');
  });

  it('marks a deleted subscription canceled and keeps the plan of an unknown price unchanged', () => {
    const del = interpretEvent(
      event('customer.subscription.deleted', subscription({ userId: 'u', id: 'sub_1', price: 'price_pro' })),
      { catalog, plans },
    );
    assert.ok(del.kind === 'apply');
    assert.equal(del.subscription?.status, 'canceled');
    assert.equal(del.grant, undefined);
    const upd = interpretEvent(
      event('customer.subscription.updated', subscription({ userId: 'u', id: 'sub_1', price: 'price_x' }), 42),
      { catalog, plans },
    );
    assert.ok(upd.kind === 'apply');
    assert.equal(upd.subscription?.planId, undefined);
    assert.equal(upd.subscription?.asOf, 42);
    assert.equal(interpretEvent(event('charge.refunded', {}), { catalog, plans }).kind, 'ignore', 'no payment_intent');
  });

  it("knows a subscription's first invoice from its expanded latest invoice only while that one created it", () => {
    const sub = (latest: unknown) =>
      subscriptionFacts(
        {
          ...subscription({ userId: 'u', id: 'sub_1', price: 'price_pro' }),
          latest_invoice: latest,
        } as unknown as Stripe.Subscription,
        1,
      ).firstInvoiceId;
    assert.equal(sub({ id: 'in_first', billing_reason: 'subscription_create' }), 'in_first');
    assert.equal(sub({ id: 'in_renewal', billing_reason: 'subscription_cycle' }), null);
    assert.equal(sub('in_unexpanded'), null);
    assert.equal(sub(null), null);
  });

  it("picks the first invoice among a subscription's invoices: the one that created it, else the oldest", () => {
    assert.equal(
      firstInvoiceOf([
        { id: 'in_3', billing_reason: 'subscription_cycle', created: 30 },
        { id: 'in_2', billing_reason: 'subscription_update', created: 20 },
        { id: 'in_1', billing_reason: 'subscription_create', created: 25 },
      ]),
      'in_1',
    );
    assert.equal(
      firstInvoiceOf([
        { id: 'in_3', billing_reason: 'subscription_cycle', created: 30 },
        { id: 'in_2', billing_reason: 'manual', created: 10 },
      ]),
      'in_2',
    );
    assert.equal(firstInvoiceOf([]), null);
  });

  it('references a checkout naming no invoice by the first invoice, and grants nothing when that is unknown', () => {
    const session = checkoutSession({ userId: 'u', mode: 'subscription', subscription: 'sub_1', invoice: null });
    const facts = (firstInvoiceId: string | null) => ({
      ...subscriptionFacts(
        subscription({ userId: 'u', id: 'sub_1', price: 'price_pro' }) as unknown as Stripe.Subscription,
        1,
      ),
      firstInvoiceId,
    });
    const ev = event('checkout.session.completed', session);
    const known = interpretEvent(ev, { catalog, plans, session: sub1, subscription: facts('in_first') });
    assert.ok(known.kind === 'apply');
    assert.equal(known.grant?.reference, 'stripe-invoice:in_first');
    const unknown = interpretEvent(ev, { catalog, plans, session: sub1, subscription: facts(null) });
    assert.ok(unknown.kind === 'apply');
    assert.equal(unknown.grant, undefined, 'the first invoice.paid grants instead');
    assert.equal(unknown.subscription?.planId, 'pro');
  });

  it('refuses malformed events with MalformedStripeEventError', () => {
    const noSub = event(
      'checkout.session.completed',
      checkoutSession({ userId: 'u', mode: 'subscription', subscription: null }),
    );
    assert.equal(subscriptionToRetrieve(noSub, sub1), null);
    assert.throws(() => interpretEvent(noSub, { catalog, plans, session: sub1 }), MalformedStripeEventError);
    assert.throws(
      () =>
        interpretEvent(
          event('charge.refunded', refundedCharge({ paymentIntent: 'pi', amount: 900, amountRefunded: -1 })),
          {
            catalog,
            plans,
          },
        ),
      MalformedStripeEventError,
    );
    for (const start of [1e15, -1, 1.5, '100']) {
      const inv = paidInvoice({ userId: 'u', subscription: 'sub_1', price: 'price_pro', period: { start: 1, end: 2 } });
      inv.lines.data[0]!.period = { start: start as number, end: 2 };
      assert.throws(() => interpretEvent(event('invoice.paid', inv), { catalog, plans }), MalformedStripeEventError);
    }
    const bad = subscription({ userId: 'u', id: 'sub_1', price: 'price_pro', period: { start: 1, end: 1e16 } });
    assert.throws(
      () => interpretEvent(event('customer.subscription.updated', bad), { catalog, plans }),
      /current_period_end/,
    );
  });

  it('grants the difference once on an upgrade by proration invoice, nothing on a downgrade, the new month on renewal', () => {
    const up = interpretEvent(
      event(
        'invoice.paid',
        prorationInvoice({
          userId: 'u',
          subscription: 'sub_1',
          from: 'price_pro',
          to: 'price_biz',
          periodEnd: 500,
          id: 'in_up',
        }),
      ),
      { catalog, plans: new Map([...plans, ['business', { ...plans.get('business')!, rollover: false }]]) },
    );
    assert.ok(up.kind === 'apply');
    assert.deepEqual(up.grant, {
      amount: 1500,
      source: 'plan',
      expiresAt: 500,
      reference: 'stripe-invoice:in_up',
      topUpTo: { planTokens: 2000, periodEnd: 500 },
    });
    assert.equal(up.subscription?.planId, 'business');
    assert.equal(up.subscription?.periodStart, undefined, 'the period is not changed by a proration');
    const down = interpretEvent(
      event(
        'invoice.paid',
        prorationInvoice({ userId: 'u', subscription: 'sub_1', from: 'price_biz', to: 'price_pro', periodEnd: 500 }),
      ),
      { catalog, plans },
    );
    assert.ok(down.kind === 'apply');
    assert.equal(down.grant, undefined);
    assert.equal(down.subscription?.planId, 'pro');
    // A renewal after a change: the new plan's month from the line that is not a proration.
    const renewal = paidInvoice({
      userId: 'u',
      subscription: 'sub_1',
      price: 'price_pro',
      id: 'in_cycle',
      period: { start: 500, end: 900 },
    });
    const proration = prorationInvoice({
      userId: 'u',
      subscription: 'sub_1',
      from: 'price_biz',
      to: 'price_pro',
      periodEnd: 500,
    });
    const cycle = { ...renewal, lines: { object: 'list', data: [...proration.lines.data, ...renewal.lines.data] } };
    const out = interpretEvent(event('invoice.paid', cycle), { catalog, plans });
    assert.ok(out.kind === 'apply');
    assert.deepEqual(out.grant, { amount: 500, source: 'plan', expiresAt: 900, reference: 'stripe-invoice:in_cycle' });
  });

  it('reads refunds and disputes, and computes the refunded share rounded up', () => {
    const charged = interpretEvent(
      event('charge.refunded', refundedCharge({ paymentIntent: 'pi_1', amount: 900, amountRefunded: 300 })),
      { catalog, plans },
    );
    assert.deepEqual(charged, {
      kind: 'money_back',
      moneyBack: { kind: 'refund', paymentIntent: 'pi_1', amountRefunded: 300, amount: 900, refunds: {} },
    });
    const one = interpretEvent(event('refund.created', refund({ paymentIntent: 'pi_1', amount: 300, id: 're_1' })), {
      catalog,
      plans,
    });
    assert.ok(one.kind === 'money_back' && one.moneyBack.kind === 'refund');
    assert.deepEqual(one.moneyBack.refunds, { re_1: 300 });
    const failed = interpretEvent(
      event('refund.updated', refund({ paymentIntent: 'pi_1', amount: 300, id: 're_1', status: 'failed' })),
      { catalog, plans },
    );
    assert.ok(failed.kind === 'money_back' && failed.moneyBack.kind === 'refund');
    assert.deepEqual(failed.moneyBack.refunds, { re_1: 0 });
    const opened = interpretEvent(
      event(
        'charge.dispute.created',
        dispute({ paymentIntent: 'pi_1', amount: 900, id: 'dp_1', status: 'needs_response' }),
      ),
      { catalog, plans },
    );
    assert.deepEqual(opened, {
      kind: 'money_back',
      moneyBack: {
        kind: 'dispute',
        paymentIntent: 'pi_1',
        disputeId: 'dp_1',
        amount: 900,
        status: 'needs_response',
        closed: false,
      },
    });
    assert.equal(refundShare(100, 300, 900), 34, 'a third of 100 tokens, rounded up');
    assert.equal(refundShare(100, 900, 900), 100);
    assert.equal(refundShare(100, 1, 900), 1);
    assert.equal(refundShare(100, 0, 900), 0);
    assert.equal(refundShare(100, 5000, 900), 100, 'never more than was granted');
    assert.equal(refundedCents({ refundedAmount: 300, refunds: { re_1: 300, re_2: 200 } }), 500);
    assert.equal(refundedCents({ refundedAmount: 600, refunds: { re_1: 300 } }), 600);
  });
});
