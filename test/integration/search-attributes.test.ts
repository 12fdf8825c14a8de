// Search attributes registered at run time (lib/temporal.ts): a data folder of `npm start` created before an
// attribute existed gets it from the worker at start. The dev server no longer refreshes its caches on every read
// (scripts/stand-ins/temporal.ts), so registering waits until the attribute can be used: a workflow started right after
// is accepted. A dev server of its own, started without `GarmentId`.
import assert from 'node:assert/strict';
import { Client } from '@temporalio/client';
import { createLogger } from '../../lib/log';
import { ensureSearchAttributes } from '../../lib/temporal';
import { startOwnTemporal, type OwnTemporal } from '../helpers/temporal-dev';

describe('search attributes registered at run time', function () {
  this.timeout(180_000);
  let own: OwnTemporal;

  before(
    async () => (own = await startOwnTemporal('search-attributes', { searchAttributes: { AccountId: 'Keyword' } })),
  );
  after(async () => own?.stop());

  it('a workflow started right after registering may carry the new attribute', async () => {
    const before = await own.connection.operatorService.listSearchAttributes({ namespace: 'default' });
    assert.equal('GarmentId' in (before.customAttributes ?? {}), false, 'the server starts without GarmentId');
    await ensureSearchAttributes(own.connection, 'default', createLogger({ level: 'warn' }));
    const client = new Client({ connection: own.connection, namespace: 'default' });
    const handle = await client.workflow.start('notRegisteredAnywhere', {
      taskQueue: 'search-attributes-test',
      workflowId: `search-attributes-${Date.now()}`,
      searchAttributes: { AccountId: ['usr_test'], GarmentId: ['gar_test'] },
    });
    assert.deepEqual((await handle.describe()).searchAttributes.GarmentId, ['gar_test']);
    await handle.terminate('test done');
  });
});
