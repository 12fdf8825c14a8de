// The worker killed in the middle of a grant: a real `worker/main.ts` process applies a Stripe event and is SIGKILLed
// while its grant transaction is open (the test holds the account's row lock, so the step is provably in flight), then
// another worker takes the event over. One grant, the event processed once.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { postEvent, signedEvent } from '../../scripts/stand-ins/stripe-events';
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
    let lockerPid = 0;
    let locked!: () => void;
    const isLocked = new Promise<void>((r) => (locked = r));
    const holding = stack.sql.begin(async (tx) => {
      lockerPid = (await tx<{ pid: number }[]>`select pg_backend_pid() as pid`)[0]!.pid;
      await tx`select id from users where id = ${acct.userId} for update`;
      locked();
      await new Promise<void>((r) => (releaseLock = r));
    });
    await isLocked;

    const event = signedEvent(stack.config.payments.webhookSecret!, 'checkout.session.completed', session);
    const res = await postEvent(`${stack.baseUrl}/api/payments/webhook`, event);
    assert.equal(res.status, 200);

    // The worker process starts (bundles its workflows), takes the event and blocks on the lock inside its grant.
    let waiting: { pid: number; query: string } | undefined;
    for (let i = 0; i < 2400 && !waiting; i++) {
      [waiting] = await stack.sql<{ pid: number; query: string }[]>`
        select pid, query from pg_stat_activity where ${lockerPid} = any(pg_blocking_pids(pid))`;
      if (!waiting) await new Promise((r) => setTimeout(r, 50));
    }
    assert.ok(waiting, 'the worker process reached the grant');
    assert.match(waiting.query, /from users where id = [\s\S]* for update/, "blocked on the user's row lock");
    const [mid] = await stack.sql<{ status: string }[]>`select status from stripe_events where id = ${event.id}`;
    assert.equal(mid?.status, 'received');

    child.kill('SIGKILL');
    await exited;
    releaseLock();
    await holding;

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
    const grants = await stack.sql<{ amount: number; reference: string }[]>`
      select amount, reference from token_grants where user_id = ${acct.userId} and source = 'payg_purchase'`;
    assert.deepEqual(
      grants.map((g) => [g.amount, g.reference]),
      [[pack.tokens, `stripe-checkout:${session.id}`]],
    );
    const [done] = await stack.sql<{ status: string }[]>`select status from stripe_events where id = ${event.id}`;
    assert.equal(done?.status, 'processed');
    // The killed worker's transaction was rolled back when PostgreSQL found its client gone: its session ends.
    let orphan = 1;
    for (let i = 0; i < 200 && orphan > 0; i++) {
      orphan = (await stack.sql`select 1 from pg_stat_activity where pid = ${waiting.pid}`).length;
      if (orphan > 0) await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal(orphan, 0);
  });
});
