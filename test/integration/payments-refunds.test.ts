// Money taken back through Stripe events against the real stack: refunds of packs and invoices (partial, full, once
// however often reported), disputes, grants from what was paid, plan changes with prorations.
import assert from 'node:assert/strict';
import { debitTokens } from '../../db/ledger';
import { randomSuffix } from '../../lib/ids';
import {
  checkoutSession,
  dispute,
  paidInvoice,
  prorationInvoice,
  refund,
  refundedCharge,
} from '../../scripts/stand-ins/stripe-events';
import * as inspect from '../helpers/db-inspect';
import { account } from '../helpers/http';
import { usePaymentsStack } from '../helpers/payments';

const now = () => Math.floor(Date.now() / 1000);
const DAY = 86_400;

describe('payments: money taken back', function () {
  this.timeout(120_000);
  const { stack, stripe, send, processed, deliver, me, packCheckout, proPrice, businessPrice } =
    usePaymentsStack('payments-refunds');
  const grants = inspect.paidGrants;
  type Account = { cookie: string; userId: string };

  describe('money taken back, grants from what was paid, plan changes', () => {
    const debits = inspect.takenBack;
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
          price: proPrice(),
          billingReason: 'subscription_create',
          period,
        }),
      );
      assert.equal(first.granted, 500);
      const change = (from: string, to: string) =>
        prorationInvoice({ userId: acct.userId, subscription: sub, from, to, periodEnd: period.end });

      const up = change(proPrice(), businessPrice());
      assert.equal((await deliver('invoice.paid', up)).granted, 1500, 'Business month minus the Pro month');
      assert.equal((await me(acct.cookie)).plan.id, 'business');
      assert.equal((await deliver('invoice.paid', up)).granted, 0, 'the same invoice reported again');
      assert.equal((await deliver('invoice.paid', change(businessPrice(), proPrice()))).granted, 0, 'a downgrade');
      assert.equal((await me(acct.cookie)).plan.id, 'pro');
      assert.equal(
        (await deliver('invoice.paid', change(proPrice(), businessPrice()))).granted,
        0,
        'upgrading again in the same period: the difference was granted once',
      );
      assert.equal((await deliver('invoice.paid', change(businessPrice(), proPrice()))).granted, 0);
      const next = { start: period.end, end: period.end + 30 * DAY };
      const renewal = await deliver(
        'invoice.paid',
        paidInvoice({ userId: acct.userId, subscription: sub, price: proPrice(), period: next }),
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
