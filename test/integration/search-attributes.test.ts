// Search attributes registered at run time (lib/temporal.ts): a data folder of `npm start` created before an
// attribute existed gets it from the worker at start. The dev server no longer refreshes its caches on every read
// (scripts/stand-ins/temporal.ts), so registering waits until the attribute can be used: a workflow started right after
// is accepted. A dev server of its own, started without `GarmentId`.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { createLogger } from '../../lib/log';
import { ensureSearchAttributes } from '../../lib/temporal';
import { freePort, resolveTemporalCli, startTemporalDev } from '../../scripts/dev-services';

describe('search attributes registered at run time', function () {
  this.timeout(180_000);
  let dir: string;
  let server: Awaited<ReturnType<typeof startTemporalDev>> | undefined;
  let connection: Connection | undefined;

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'search-attributes-'));
    const log = () => {};
    server = await startTemporalDev({
      cli: await resolveTemporalCli({ cliPath: process.env.TEMPORAL_CLI_PATH, log }),
      port: await freePort(),
      searchAttributes: { AccountId: 'Keyword' },
      logFile: path.join(dir, 'temporal.log'),
      log,
    });
    connection = await Connection.connect({ address: server.address });
  });
  after(async () => {
    await connection?.close();
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a workflow started right after registering may carry the new attribute', async () => {
    const before = await connection!.operatorService.listSearchAttributes({ namespace: 'default' });
    assert.equal('GarmentId' in (before.customAttributes ?? {}), false, 'the server starts without GarmentId');
    await ensureSearchAttributes(connection!, 'default', createLogger({ level: 'warn' }));
    const client = new Client({ connection: connection!, namespace: 'default' });
    const handle = await client.workflow.start('notRegisteredAnywhere', {
      taskQueue: 'search-attributes-test',
      workflowId: `search-attributes-${Date.now()}`,
      searchAttributes: { AccountId: ['usr_test'], GarmentId: ['gar_test'] },
    });
    assert.deepEqual((await handle.describe()).searchAttributes.GarmentId, ['gar_test']);
    await handle.terminate('test done');
  });
});
