// lib/wait.ts: waiting on a promise with a time limit (the API's sync budgets, outside calls, readiness checks).
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { orTimeout, within } from '../../lib/wait';

describe('wait: within and orTimeout', () => {
  it('within: the value when it comes first, undefined when the time runs out first', async () => {
    assert.equal(
      await within(
        200,
        sleep(5).then(() => 'done'),
      ),
      'done',
    );
    assert.equal(
      await within(
        5,
        sleep(200).then(() => 'late'),
      ),
      undefined,
    );
  });

  it('within: a rejection before the time is thrown; one after it is ignored', async () => {
    await assert.rejects(within(200, Promise.reject(new Error('boom'))), /boom/);
    const late = sleep(30).then(() => Promise.reject(new Error('late boom')));
    assert.equal(await within(5, late), undefined);
    await sleep(50); // an unhandled rejection here would fail the run
  });

  it('orTimeout: the value, or an Error with the message when the time runs out', async () => {
    assert.equal(
      await orTimeout(
        200,
        sleep(5).then(() => 1),
        'x',
      ),
      1,
    );
    await assert.rejects(orTimeout(5, sleep(200), 'PostgreSQL did not answer within 5 ms'), {
      message: 'PostgreSQL did not answer within 5 ms',
    });
  });
});
