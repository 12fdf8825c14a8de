// The Temporal dev server that npm start, the tests and the benchmarks run (scripts/stand-ins/temporal.ts) stays
// usable after client calls are cancelled mid-query. Built as the CLI's tag is, its SQLite driver leaked the rows of a
// query whose context ended as they came; the interrupt SQLite got was then never cleared and every later statement
// on the server's one connection failed: `GetNamespace operation failed. Error interrupted (9)` to every call until
// a restart (a CI run lost its last 15 tests to it). With that build this test's burst breaks the server within a
// few seconds, every time it was tried; the CLI built with the pinned driver answers throughout.
import assert from 'node:assert/strict';
import { Client } from '@temporalio/client';
import { sqliteDriverIsSafe, sqliteDriverOf } from '../../scripts/stand-ins/temporal';
import { startOwnTemporal, type OwnTemporal } from '../helpers/temporal-dev';

const WORKFLOWS = 300;
const CONCURRENCY = 32;
const BURST_MS = 15_000;

describe('Temporal dev server after cancelled calls', function () {
  this.timeout(240_000);
  let own: OwnTemporal;

  // in memory, as the test run's own server
  before(async () => (own = await startOwnTemporal('temporal-dev-server')));
  after(async () => own?.stop());

  it('the CLI in use is built with a SQLite driver that clears interrupts', async () => {
    const driver = await sqliteDriverOf(own.cli);
    assert.ok(sqliteDriverIsSafe(driver), `${own.cli}: modernc.org/sqlite ${driver}`);
  });

  it('answers every call after a burst of calls cut off by their deadlines mid-query', async () => {
    const client = new Client({ connection: own.connection, namespace: 'default' });
    // rows for the listing and histories to read: workflows no worker polls for
    const stamp = Date.now();
    for (let i = 0; i < WORKFLOWS; i++)
      await client.workflow.start('notRegisteredAnywhere', {
        taskQueue: 'nobody-polls',
        workflowId: `wf-${stamp}-${i}`,
      });
    const svc = own.connection.workflowService;
    const burstEnds = Date.now() + BURST_MS;
    let cut = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (Date.now() < burstEnds) {
          // deadlines of 0.2-8 ms: the server's context ends at every stage of a query
          const deadline = Date.now() + 0.2 + Math.random() * 8;
          const workflowId = `wf-${stamp}-${Math.floor(Math.random() * WORKFLOWS)}`;
          await own.connection
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
