// When a synchronous POST /generate answers: as soon as the generation is recorded finished (the worker's
// statement notifies the API), without waiting for its workflow to close. No worker runs here, so the workflow never
// progresses: only the notice can end the request early; without one the request runs into its synchronous budget.
import assert from 'node:assert/strict';
import { completeGeneration, failAndRefund } from '../../db/generations';
import * as inspect from '../helpers/db-inspect';
import { account, http } from '../helpers/http';
import { startStack, terminateStarted, type Stack } from '../helpers/stack';
import { until } from '../helpers/wait';

describe('synchronous generate answers from the recorded outcome', () => {
  let stack: Stack;
  let acct: Awaited<ReturnType<typeof account>>;
  let garment: any;
  const started: string[] = [];

  before(async () => {
    stack = await startStack('generate-answer', { worker: false, env: { GENERATE_SYNC_TIMEOUT_MS: '8000' } });
    acct = await account(stack.baseUrl);
    garment = (await http(stack.baseUrl, 'GET', '/api/v1/garments?limit=1', { key: acct.key })).body.garments[0];
  });
  after(async () => {
    await terminateStarted(stack.client, started);
    await stack?.stop();
  });

  /** Starts a synchronous generation and returns its id once the row exists, with the pending response. */
  async function startGeneration() {
    const t0 = Date.now();
    const response = http(stack.baseUrl, 'POST', '/api/v1/generate', {
      key: acct.key,
      json: {
        designUrl: `${stack.baseUrl}/files/uploads/none.png`,
        garmentId: garment.id,
        garmentImageUrl: garment.colors[0].imageUrl,
      },
    });
    const { id } = await until(
      'the generation row',
      () => inspect.latestGeneration(acct.userId, { status: 'pending', since: new Date(t0 - 1000) }),
      { ms: 10_000, every: 25 },
    );
    started.push(id);
    // the API starts listening before it starts the workflow; give it the moment between row and start (at most 10 s)
    await until(
      'the workflow to start',
      () =>
        stack.client.workflow
          .getHandle(id)
          .describe()
          .catch(() => null),
      { ms: 10_000, every: 25 },
    ).catch(() => {});
    return { id, response, t0 };
  }

  it('answers 200 with the completed resource when the completion is recorded, though the workflow is still running', async () => {
    const { id, response, t0 } = await startGeneration();
    // the worker's statement (it notifies the API as it commits)
    assert.ok(
      await completeGeneration(stack.sql, id, {
        mockupKey: `mockups/${id}.jpg`,
        thumbnailKey: `mockups/${id}-thumb.jpg`,
      }),
    );
    const res = await response;
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.id, id);
    assert.equal(res.body.status, 'completed');
    assert.match(res.body.mockupUrl, new RegExp(`/files/mockups/${id}\\.jpg$`));
    assert.ok(Date.now() - t0 < 6000, 'answered on the notice, not at the end of the 8 s budget');
    const wf = await stack.client.workflow.getHandle(id).describe();
    assert.equal(wf.status.name, 'RUNNING', 'the workflow had not closed when the request was answered');
  });

  it('answers a recorded failure the same way', async () => {
    const { id, response } = await startGeneration();
    // the failure path's statement (it refunds and notifies the API as it commits)
    const [failed] = await failAndRefund(stack.sql, [id], 'Design image: not an image');
    assert.equal(failed!.status, 'failed');
    const res = await response;
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.status, 'failed');
    assert.equal(res.body.error, 'Design image: not an image');
  });

  it('ignores notices of other generations and answers 202 when the budget runs out', async function () {
    this.timeout(30_000);
    const { id, response, t0 } = await startGeneration();
    await inspect.notifyGenerationFinished('gen_0_other');
    const res = await response;
    assert.equal(res.status, 202, res.text);
    assert.equal(res.body.id, id);
    assert.equal(res.body.status, 'pending');
    assert.ok(Date.now() - t0 >= 7500, 'waited for the synchronous budget');
  });
});
