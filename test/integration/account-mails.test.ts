// The mails a paying customer expects (tokens running low, a refund that took tokens back, a failed payment) and the
// accounts sweep that starts the workflow of any outbox row left unstarted, read from Mailpit (docs/accounts.md).
import assert from 'node:assert/strict';
import { debitTokens } from '../../db/ledger';
import { randomSuffix } from '../../lib/ids';
import { refundedCharge } from '../../scripts/stand-ins/stripe-events';
import { accountsSweep } from '../../workflows';
import {
  backdateUnsentMail,
  insertUnstartedMail,
  outboxMail,
  outboxMailIds,
  stripeCustomerIds,
} from '../helpers/db-inspect';
import { account } from '../helpers/http';
import { mailsTo, waitForMail } from '../helpers/mailpit';
import { deliverStripeEvent, packCheckoutSession } from '../helpers/payments';
import { startStack, type Stack } from '../helpers/stack';
import { until } from '../helpers/wait';

describe('account mails: outbox sweep, tokens low, refund, payment failed', function () {
  this.timeout(120_000);
  let stack: Stack;
  before(async () => {
    stack = await startStack('account-mails');
  });
  after(async () => stack?.stop());

  /** The accounts sweep as its schedule runs it, after making the outbox rows of `userId` older than its grace. */
  async function sweep(userId: string) {
    await backdateUnsentMail(userId, '1 minute');
    return stack.client.workflow.execute(accountsSweep, {
      taskQueue: stack.taskQueue,
      workflowId: `accounts-sweep-test-${randomSuffix(8)}`,
    });
  }

  const deliver = (type: string, object: Record<string, unknown>) => deliverStripeEvent(stack, type, object);

  it('the sweep starts the mail of a row whose workflow never started, and it is sent once', async () => {
    const acct = await account(stack.baseUrl);
    await waitForMail(acct.email, /verify your email/);
    const id = await insertUnstartedMail({
      userId: acct.userId,
      kind: 'verify_email',
      to: acct.email,
      subject: 'Apparel mockups: left behind',
    });
    const r = await sweep(acct.userId);
    assert.ok(r.mailsStarted >= 1, JSON.stringify(r));
    await waitForMail(acct.email, /left behind/);
    const again = await sweep(acct.userId);
    assert.equal(again.mailsStarted, 0);
    const sent = await outboxMail(id);
    assert.ok(sent!.sentAt);
    assert.equal(sent!.textBody, null, 'the body is erased once sent');
    assert.equal(sent!.attempts, 1);
    assert.equal((await mailsTo(acct.email)).filter((m) => /left behind/.test(m.Subject)).length, 1);
  });

  it('tokens running low: mailed once per period when the balance drops under 10 % of the plan month', async () => {
    const acct = await account(stack.baseUrl);
    const spend = (amount: number) =>
      debitTokens(stack.sql, acct.userId, [{ reference: `test-spend-${randomSuffix(10)}`, amount }]);
    assert.equal((await spend(40)).ok, true); // 50 -> 10: not under 5
    await spend(6); // 10 -> 4: crosses under 5
    await spend(1); // 4 -> 3: already mailed this period
    const [id] = await outboxMailIds(acct.userId, 'tokens_low');
    assert.equal((await outboxMailIds(acct.userId, 'tokens_low')).length, 1);
    // written by the debit's SQL as its message, rendered when sent
    assert.deepEqual(await outboxMail(id!), {
      sentAt: null,
      textBody: null,
      attempts: 0,
      subject: null,
      message: true,
    });
    await sweep(acct.userId);
    const mail = await waitForMail(acct.email, /your tokens are running low/);
    assert.match(mail.Text, /Your balance is 4 tokens/);
    assert.ok(mail.Text.includes(`${stack.baseUrl}/billing`), mail.Text);
    assert.doesNotMatch(mail.HTML, /\{\{/);
    const sent = await until(
      'the low-balance mail marked sent',
      async () => (await outboxMail(id!))?.sentAt && outboxMail(id!),
    );
    assert.equal(sent.subject, mail.Subject, 'the sent row keeps the subject it was sent with');
    assert.equal(sent.message, false, 'its message is erased with the body');
  });

  it('a refund that took tokens back and a failed payment are mailed, from the event workflow', async () => {
    const acct = await account(stack.baseUrl);
    const pack = stack.config.payments.tokenPacks[0]!;
    const session = await packCheckoutSession(stack.baseUrl, acct, pack);
    const paid = await deliver('checkout.session.completed', session);
    assert.equal(paid.granted, pack.tokens, JSON.stringify(paid));
    const charge = refundedCharge({
      paymentIntent: session.payment_intent!,
      amount: session.amount_total!,
      amountRefunded: session.amount_total!,
    });
    const back = await deliver('charge.refunded', charge);
    assert.equal(back.takenBack, pack.tokens);
    const refundMail = await waitForMail(acct.email, /a refund took tokens back/);
    assert.match(refundMail.Text, new RegExp(`took ${pack.tokens} tokens back`));

    const [customer] = await stripeCustomerIds(acct.userId);
    assert.ok(customer, 'the checkout stored the customer');
    const failed = await deliver('invoice.payment_failed', {
      id: `in_test_${randomSuffix(10)}`,
      object: 'invoice',
      customer,
      amount_due: 2900,
      currency: 'usd',
    });
    assert.equal(failed.status, 'processed', JSON.stringify(failed));
    const mail = await waitForMail(acct.email, /a payment failed/);
    assert.match(mail.Text, /29\.00 USD/);
    assert.ok(mail.Text.includes(`${stack.baseUrl}/billing`));
  });
});
