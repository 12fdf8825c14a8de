// The worker killed in the middle of a grant: a real `worker/main.ts` process applies a Stripe event and is SIGKILLed
// while its grant transaction is open (the test holds the account's row lock, so the step is provably in flight), then
// another worker takes the event over. One grant, the event processed once.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { postEvent, signedEvent } from '../../scripts/stand-ins/stripe-events';
import { backendAlive, blockedBehind, holdUserRowLock, paidGrants, stripeEvent } from '../helpers/db-inspect';
import { account } from '../helpers/http';
import { startStack, workflowResultWhenStarted, type Stack } from '../helpers/stack';
import { packCheckoutSession } from '../helpers/payments';

describe('payments survive a worker killed mid-grant', () => {
  let stack: Stack;
  let child: ChildProcess | undefined;
  let releaseLock: () => void = () => {};

  before(async () => {
    stack = await startStack('paycrash', { worker: false });
  });
  after(async () => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    releaseLock();
    await stack?.stop();
  });

  it('grants once when the worker is SIGKILLed while the grant transaction waits, and another worker applies it', async function () {
    this.timeout(240_000);
    const acct = await account(stack.baseUrl);
    const root = path.resolve(__dirname, '../..');
    child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'worker/main.ts')], {
      cwd: root,
      env: { ...process.env, TEMPORAL_TASK_QUEUE: stack.taskQueue, PUBLIC_BASE_URL: stack.baseUrl, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const exited = new Promise((r) => child!.once('exit', r));

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
    let waiting: { pid: number; query: string } | undefined;
    for (let i = 0; i < 2400 && !waiting; i++) {
      waiting = await blockedBehind(lock.pid);
      if (!waiting) await new Promise((r) => setTimeout(r, 50));
    }
    assert.ok(waiting, 'the worker process reached the grant');
    assert.match(waiting.query, /from users where id = [\s\S]* for update/, "blocked on the user's row lock");
    assert.equal((await stripeEvent(event.id))?.status, 'received');

    child.kill('SIGKILL');
    await exited;
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
    let orphan = true;
    for (let i = 0; i < 200 && orphan; i++) {
      orphan = await backendAlive(waiting.pid);
      if (orphan) await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal(orphan, false);
  });
});
