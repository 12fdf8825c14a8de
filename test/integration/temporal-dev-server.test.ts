// The Temporal dev server that npm start, the tests and the benchmarks run (scripts/stand-ins/temporal.ts) stays
// usable after client calls are cancelled mid-query. Built as the CLI's tag is, its SQLite driver leaked the rows of a
// query whose context ended as they came; the interrupt SQLite got was then never cleared and every later statement
// on the server's one connection failed: `GetNamespace operation failed. Error interrupted (9)` to every call until
// a restart (a CI run lost its last 15 tests to it). With that build this test's burst breaks the server within a
// few seconds, every time it was tried; the CLI built with the pinned driver answers throughout.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { freePort, resolveTemporalCli, startTemporalDev } from '../../scripts/dev-services';
import { sqliteDriverIsSafe, sqliteDriverOf } from '../../scripts/stand-ins/temporal';

const WORKFLOWS = 300;
const CONCURRENCY = 32;
const BURST_MS = 15_000;

describe('Temporal dev server after cancelled calls', function () {
  this.timeout(240_000);
  let dir: string;
  let cli: string;
  let server: Awaited<ReturnType<typeof startTemporalDev>> | undefined;
  let connection: Connection | undefined;

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'temporal-dev-server-'));
    const log = () => {};
    cli = await resolveTemporalCli({ cliPath: process.env.TEMPORAL_CLI_PATH, log });
    // in memory, as the test run's own server
    server = await startTemporalDev({ cli, port: await freePort(), logFile: path.join(dir, 'temporal.log'), log });
    connection = await Connection.connect({ address: server.address });
  });
  after(async () => {
    await connection?.close();
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the CLI in use is built with a SQLite driver that clears interrupts', async () => {
    const driver = await sqliteDriverOf(cli);
    assert.ok(sqliteDriverIsSafe(driver), `${cli}: modernc.org/sqlite ${driver}`);
  });

  it('answers every call after a burst of calls cut off by their deadlines mid-query', async () => {
    const client = new Client({ connection: connection!, namespace: 'default' });
    // rows for the listing and histories to read: workflows no worker polls for
    const stamp = Date.now();
    for (let i = 0; i < WORKFLOWS; i++)
      await client.workflow.start('notRegisteredAnywhere', {
        taskQueue: 'nobody-polls',
        workflowId: `wf-${stamp}-${i}`,
      });
    const svc = connection!.workflowService;
    const until = Date.now() + BURST_MS;
    let cut = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (Date.now() < until) {
          // deadlines of 0.2-8 ms: the server's context ends at every stage of a query
          const deadline = Date.now() + 0.2 + Math.random() * 8;
          const workflowId = `wf-${stamp}-${Math.floor(Math.random() * WORKFLOWS)}`;
          await connection!
            .withDeadline<unknown>(deadline, () =>
              Math.random() < 0.5
                ? svc.listWorkflowExecutions({ namespace: 'default', pageSize: 1000 })
                : svc.getWorkflowExecutionHistory({ namespace: 'default', execution: { workflowId } }),
            )
            .catch(() => cut++);
        }
      }),
    );
    assert.ok(cut > 100, `only ${cut} calls were cut off: the burst did not test anything`);
    // the server is whole: it describes its namespace, lists what it holds, starts and describes a workflow
    await svc.describeNamespace({ namespace: 'default' });
    const listed = await svc.listWorkflowExecutions({ namespace: 'default', pageSize: 5 });
    assert.equal(listed.executions.length, 5);
    const handle = await client.workflow.start('notRegisteredAnywhere', {
      taskQueue: 'nobody-polls',
      workflowId: `wf-${stamp}-after`,
    });
    assert.equal((await handle.describe()).status.name, 'RUNNING');
  });
});
