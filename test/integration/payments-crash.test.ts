// The worker killed in the middle of a grant: a real `worker/main.ts` process applies a Stripe event and is SIGKILLed
// while its grant transaction is open (the test holds the account's row lock, so the step is provably in flight), then
// another worker takes the event over. One grant, the event processed once.
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { postEvent, signedEvent } from '../../scripts/stand-ins/stripe-events';
import { backendAlive, blockedBehind, holdUserRowLock, paidGrants, stripeEvent } from '../helpers/db-inspect';
import { account } from '../helpers/http';
import { killNow, spawnWorkerProcess, startStack, workflowResultWhenStarted, type Stack } from '../helpers/stack';
import { packCheckoutSession } from '../helpers/payments';
import { waitUpTo } from '../helpers/wait';

describe('payments survive a worker killed mid-grant', () => {
  let stack: Stack;
  let child: ChildProcess | undefined;
  let releaseLock: () => void = () => {};

  before(async () => {
    stack = await startStack('paycrash', { worker: false });
  });
  after(async () => {
    if (child) await killNow(child);
    releaseLock();
    await stack?.stop();
  });

  it('grants once when the worker is SIGKILLed while the grant transaction waits, and another worker applies it', async function () {
    this.timeout(240_000);
    const acct = await account(stack.baseUrl);
    child = spawnWorkerProcess(stack);

    // The purchase's session is created (and recorded) before the lock is taken: recording it references the account.
    const pack = stack.config.payments.tokenPacks.at(-1)!;
    const session = await packCheckoutSession(stack.baseUrl, acct, pack);

    // Hold the account's row lock in an open transaction: the grant transaction (which locks the event, then the
    // account) stops there until the lock is released.
    const lock = await holdUserRowLock(acct.userId);
    releaseLock = lock.release;

    const event = signedEvent(stack.config.payments.webhookSecret!, 'checkout.session.completed', session);
    const res = await postEvent(`${stack.baseUrl}/api/payments/webhook`, event);
    assert.equal(res.status, 200);

    // The worker process starts (bundles its workflows), takes the event and blocks on the lock inside its grant.
    const waiting = await waitUpTo(() => blockedBehind(lock.pid), { ms: 120_000, every: 50 });
    assert.ok(waiting, 'the worker process reached the grant');
    assert.match(waiting.query, /from users where id = [\s\S]* for update/, "blocked on the user's row lock");
    assert.equal((await stripeEvent(event.id))?.status, 'received');

    await killNow(child);
    releaseLock();
    await lock.done;

    await stack.startWorker();
    const result = await workflowResultWhenStarted<{ status: string; granted: number }>(
      stack.client,
      `stripe-event-${event.id}`,
      180_000,
    );
    assert.equal(result.status, 'processed');
    assert.equal(
      result.granted,
      pack.tokens,
      'the grant of the killed worker never committed; the second worker made it',
    );
    const grants = (await paidGrants(acct.userId)).filter((g) => g.source === 'payg_purchase');
    assert.deepEqual(
      grants.map((g) => [g.amount, g.reference]),
      [[pack.tokens, `stripe-checkout:${session.id}`]],
    );
    assert.equal((await stripeEvent(event.id))?.status, 'processed');
    // The killed worker's transaction was rolled back when PostgreSQL found its client gone: its session ends.
    const gone = await waitUpTo(async () => !(await backendAlive(waiting.pid)), { ms: 10_000, every: 50 });
    assert.equal(gone, true);
  });
});
