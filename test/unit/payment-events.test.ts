// The Stripe event engine (lib/payments/events.ts): what each event means, without a database or Stripe.
import assert from 'node:assert/strict';
import type Stripe from 'stripe';
import type { PlanRow } from '../../lib/payments/catalog';
import {
  firstInvoiceOf,
  interpretEvent,
  MalformedStripeEventError,
  oneMonthAfter,
  subscriptionFacts,
  subscriptionToRetrieve,
} from '../../lib/payments/events';
import { checkoutSession, paidInvoice, subscription } from '../../scripts/stand-ins/stripe-events';

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

describe('payment events engine', () => {
  it('adds one calendar month, clamped to the last day of the month', () => {
    const s = (iso: string) => Date.parse(iso) / 1000;
    assert.equal(oneMonthAfter(s('2026-01-31T10:00:00Z')), s('2026-02-28T10:00:00Z'));
    assert.equal(oneMonthAfter(s('2028-01-31T10:00:00Z')), s('2028-02-29T10:00:00Z'));
    assert.equal(oneMonthAfter(s('2026-12-15T23:59:59Z')), s('2027-01-15T23:59:59Z'));
  });

  it('grants a paid pack once per session, and nothing while unpaid', () => {
    const paid = interpretEvent(
      event(
        'checkout.session.completed',
        checkoutSession({ userId: 'usr_1', mode: 'payment', tokens: 100, id: 'cs_1' }),
      ),
      { catalog, plans },
    );
    assert.equal(paid.kind, 'apply');
    assert.deepEqual(paid.kind === 'apply' && paid.grant, {
      amount: 100,
      source: 'payg_purchase',
      expiresAt: null,
      reference: 'stripe-checkout:cs_1',
    });
    const unpaid = interpretEvent(
      event(
        'checkout.session.completed',
        checkoutSession({ userId: 'usr_1', mode: 'payment', tokens: 100, paid: false }),
      ),
      { catalog, plans },
    );
    assert.equal(unpaid.kind, 'ignore');
    const noTokens = interpretEvent(
      event('checkout.session.completed', checkoutSession({ userId: 'usr_1', mode: 'payment' })),
      { catalog, plans },
    );
    assert.equal(noTokens.kind, 'ignore');
  });

  it('needs the subscription read for a subscription checkout, and references its first invoice', () => {
    const session = checkoutSession({ userId: 'usr_1', mode: 'subscription', subscription: 'sub_1', invoice: 'in_1' });
    const ev = event('checkout.session.completed', session);
    assert.equal(subscriptionToRetrieve(ev), 'sub_1');
    assert.throws(() => interpretEvent(ev, { catalog, plans }));
    const facts = subscriptionFacts(
      subscription({
        userId: 'usr_1',
        id: 'sub_1',
        price: 'price_pro',
        period: { start: 100, end: 200 },
      }) as unknown as Stripe.Subscription,
      150,
    );
    const out = interpretEvent(ev, { catalog, plans, subscription: facts });
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
      { catalog, plans, subscription: facts },
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
    assert.equal(interpretEvent(event('charge.refunded', {}), { catalog, plans }).kind, 'ignore');
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
    const known = interpretEvent(ev, { catalog, plans, subscription: facts('in_first') });
    assert.ok(known.kind === 'apply');
    assert.equal(known.grant?.reference, 'stripe-invoice:in_first');
    const unknown = interpretEvent(ev, { catalog, plans, subscription: facts(null) });
    assert.ok(unknown.kind === 'apply');
    assert.equal(unknown.grant, undefined, 'the first invoice.paid grants instead');
    assert.equal(unknown.subscription?.planId, 'pro');
  });

  it('refuses malformed events with MalformedStripeEventError', () => {
    const noSub = event(
      'checkout.session.completed',
      checkoutSession({ userId: 'u', mode: 'subscription', subscription: null }),
    );
    assert.equal(subscriptionToRetrieve(noSub), null);
    assert.throws(() => interpretEvent(noSub, { catalog, plans }), MalformedStripeEventError);
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
});
