// Temporal stopped while a Stripe event arrives: this file runs its own Temporal dev server with its state in a SQLite
// file (as `npm start` keeps it), an API and a worker pointed at it. The server is SIGKILLed, a signed event is
// answered 200 and stored, the API's own start of its workflow fails, the server starts again on the same file, and
// the real `inbound-events-sweep` schedule (triggered rather than awaited) starts the workflow: one grant.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { temporal } from '@temporalio/proto';
import { createLogger } from '../../lib/log';
import { freePort, resolveTemporalCli, startTemporalDev, type RunningService } from '../../scripts/dev-services';
import { postEvent, signedEvent } from '../../scripts/stand-ins/stripe-events';
import { ensureSchedules } from '../../worker/schedules';
import { paidGrants, stripeEvent } from '../helpers/db-inspect';
import { account } from '../helpers/http';
import { startStack, workflowResultWhenStarted, type Stack } from '../helpers/stack';
import { packCheckoutSession } from '../helpers/payments';
import { waitUpTo } from '../helpers/wait';

describe('payments: an event arriving while Temporal is down', function () {
  this.timeout(300_000);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pay-temporal-'));
  let server: RunningService & { address: string; kill(): Promise<void> };
  let serverOpts: Parameters<typeof startTemporalDev>[0];
  let stack: Stack;
  const warnings: { msg: string; eventId?: string }[] = [];

  before(async () => {
    const say = (m: string) => process.stderr.write(`[payments-temporal-restart] ${m}\n`);
    serverOpts = {
      cli: await resolveTemporalCli({ cliPath: process.env.TEMPORAL_CLI_PATH, log: say }),
      port: await freePort(),
      dbFile: path.join(dir, 'temporal.db'),
      logFile: path.join(dir, 'temporal.log'),
      log: say,
    };
    server = await startTemporalDev(serverOpts);
    // The API's log, kept to see its own start of the event's workflow fail.
    const log = createLogger({
      level: 'warn',
      write: (line) => {
        const rec = JSON.parse(line) as { level: string; msg: string; eventId?: string };
        warnings.push({ msg: rec.msg, eventId: rec.eventId });
      },
    });
    stack = await startStack('paytemporal', {
      env: { TEMPORAL_ADDRESS: server.address, INBOUND_SWEEP_GRACE_SECONDS: '1' },
      log,
    });
    await ensureSchedules(stack.client, stack.taskQueue, log);
  });
  after(async () => {
    await stack?.stop();
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Runs of a workflow type or id on this server, with their status, once visibility has caught up. */
  async function runs(query: string) {
    const out: { workflowId: string; runId: string; status: string }[] = [];
    for await (const wf of stack.client.workflow.list({ query }))
      out.push({ workflowId: wf.workflowId, runId: wf.runId, status: wf.status.name });
    return out;
  }

  it('answers 200 and stores the event; after the restart the sweep applies it exactly once', async () => {
    const acct = await account(stack.baseUrl);
    const pack = stack.config.payments.tokenPacks[0]!;
    const session = await packCheckoutSession(stack.baseUrl, acct, pack);
    await server.kill();

    const event = signedEvent(stack.config.payments.webhookSecret!, 'checkout.session.completed', session);
    const res = await postEvent(`${stack.baseUrl}/api/payments/webhook`, event);
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { received: true });
    assert.equal((await stripeEvent(event.id))?.status, 'received', 'stored before the answer');

    // The API tries to start the workflow after answering, and gives up (its client's retries run out).
    await waitUpTo(() => warnings.some((w) => w.eventId === event.id), { ms: 120_000, every: 100 });
    assert.ok(
      warnings.some((w) => w.eventId === event.id && /failed after the answer/.test(w.msg)),
      JSON.stringify(warnings),
    );

    server = await startTemporalDev(serverOpts);
    // The worker (still the same one) polls the restarted server again.
    const polls = await waitUpTo(
      async () => {
        const q = await stack.client.workflowService.describeTaskQueue({
          namespace: stack.config.temporal.namespace,
          taskQueue: { name: stack.taskQueue, kind: temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
          taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
        });
        return (q.pollers ?? []).length > 0;
      },
      { ms: 120_000, every: 200 },
    );
    assert.ok(polls, `the worker is ${stack.worker?.getState()} and does not poll`);

    // The schedule fires every minute (and may already have caught up after the restart): trigger it now.
    await stack.client.schedule.getHandle('inbound-events-sweep').trigger();
    const result = await workflowResultWhenStarted<{ status: string; granted: number }>(
      stack.client,
      `stripe-event-${event.id}`,
      120_000,
    );
    assert.deepEqual([result.status, result.granted], ['processed', pack.tokens]);

    // Stripe delivering it again and another sweep change nothing.
    const again = await postEvent(`${stack.baseUrl}/api/payments/webhook`, event);
    assert.equal(again.status, 200);
    await stack.client.schedule.getHandle('inbound-events-sweep').trigger();
    let sweeps: Awaited<ReturnType<typeof runs>> = [];
    await waitUpTo(
      async () => {
        sweeps = await runs(`WorkflowType = 'inboundEventsSweep'`);
        return sweeps.length >= 2 && sweeps.every((s) => s.status !== 'RUNNING');
      },
      { ms: 120_000, every: 200 },
    );
    assert.ok(sweeps.length >= 2, JSON.stringify(sweeps));
    let started = 0;
    for (const s of sweeps) {
      const r = await stack.client.workflow.getHandle(s.workflowId, s.runId).result();
      started += (r as { started: number }).started;
    }
    // The API's own start failed (above), so the sweep started it. The database is shared with the run's other test
    // files, whose events still waiting these sweeps may start too: the event's own runs are counted below.
    assert.ok(started >= 1, 'a sweep started the workflow');
    const eventRuns = await runs(`WorkflowId = 'stripe-event-${event.id}'`);
    assert.deepEqual(
      eventRuns.map((r) => r.status),
      ['COMPLETED'],
    );
    const grants = (await paidGrants(acct.userId)).filter((g) => g.source === 'payg_purchase');
    assert.deepEqual(
      grants.map((g) => [g.amount, g.reference]),
      [[pack.tokens, `stripe-checkout:${session.id}`]],
    );
    assert.equal((await stripeEvent(event.id))?.status, 'processed');
  });
});
