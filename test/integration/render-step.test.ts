// The generation's render step with the job from the workflow's input: it composites at once while the statement
// that marks the generation processing runs beside it, and that statement's answer still decides. No worker runs
// here: the API records, charges and starts each generation (Prefer: respond-async), and the test runs the real
// activity, in an activity context, with the job from the workflow's recorded input.
import assert from 'node:assert/strict';
import { MockActivityEnvironment } from '@temporalio/testing';
import sharp from 'sharp';
import { createActivities, type Activities } from '../../activities';
import { failAndRefund, getGeneration } from '../../db/generations';
import { tokenBalance } from '../../db/ledger';
import type { GenerationWorkflowInput, RenderResult } from '../../lib/generation/types';
import { createLogger } from '../../lib/log';
import { mockupKeys } from '../../activities/generation';
import { inboundWorkflows } from '../../worker/create-worker';
import { account, http } from '../helpers/http';
import { startStack, storeDesign, terminateStarted, type Stack } from '../helpers/stack';

describe('render step with the job from the input', () => {
  let stack: Stack;
  let acct: Awaited<ReturnType<typeof account>>;
  let garment: any;
  let designUrl: string;
  let activities: Activities;
  const started: string[] = [];

  before(async () => {
    stack = await startStack('render-step', { worker: false });
    acct = await account(stack.baseUrl);
    garment = (await http(stack.baseUrl, 'GET', '/api/v1/garments?category=t-shirts&limit=1', { key: acct.key })).body
      .garments[0];
    const design = await sharp({
      create: { width: 400, height: 300, channels: 4, background: { r: 200, g: 30, b: 40, alpha: 1 } },
    })
      .png()
      .toBuffer();
    designUrl = await storeDesign(stack, design);
    activities = createActivities({
      config: stack.config,
      sql: stack.sql,
      storage: stack.storage,
      log: createLogger({ level: 'error' }),
      temporal: stack.client,
      inboundWorkflows,
    });
  });
  after(async () => {
    await terminateStarted(stack.client, started);
    await stack?.stop();
  });

  /** A generation recorded, charged and started by the API, and the input its workflow was started with. */
  async function startGeneration(): Promise<GenerationWorkflowInput> {
    const res = await http(stack.baseUrl, 'POST', '/api/v1/generate', {
      key: acct.key,
      headers: { prefer: 'respond-async' },
      json: { designUrl, garmentId: garment.id, garmentImageUrl: garment.colors[0].imageUrl },
    });
    assert.equal(res.status, 202, res.text);
    started.push(res.body.id);
    const history = await stack.client.workflow.getHandle(res.body.id).fetchHistory();
    const payload = history.events![0]!.workflowExecutionStartedEventAttributes!.input!.payloads![0]!;
    return JSON.parse(Buffer.from(payload.data!).toString('utf8'));
  }

  const run = (input: GenerationWorkflowInput): Promise<RenderResult> =>
    new MockActivityEnvironment().run(
      activities.renderGeneration,
      input.generationId,
      input.job,
    ) as Promise<RenderResult>;

  it('carries the row as recorded in the input, and renders and completes it from there', async () => {
    const input = await startGeneration();
    const row = await getGeneration(stack.sql, acct.userId, input.generationId);
    assert.ok(input.job && input.job.kind !== 'template', 'the API puts the job in the input');
    assert.equal(input.job.designUrl, designUrl);
    assert.equal(input.job.userId, acct.userId);
    assert.deepEqual(input.job.placement, row!.placement);
    assert.equal(input.job.applyTexture, row!.applyTexture);
    assert.equal(input.job.printArea, null);
    assert.ok(input.job.blankKey && input.job.zone.width > 0, 'the blank and zone the API resolved');

    const result = await run(input);
    assert.equal(result.mockupKey, mockupKeys(input.generationId).mockup);
    const after = await getGeneration(stack.sql, acct.userId, input.generationId);
    assert.equal(after!.status, 'completed');
    assert.ok(await stack.storage.get(result.mockupKey));
  });

  it('does not complete a generation that failed before its render (the statement beside it decides); no files', async () => {
    const input = await startGeneration();
    const before = await tokenBalance(stack.sql, acct.userId);
    await failAndRefund(stack.sql, [input.generationId], 'failed by the test');
    await assert.rejects(run(input), /already failed/);
    const row = await getGeneration(stack.sql, acct.userId, input.generationId);
    assert.equal(row!.status, 'failed');
    assert.equal(row!.error, 'failed by the test');
    assert.equal(await stack.storage.get(mockupKeys(input.generationId).mockup), null);
    // refunded once, by the failure, not charged again
    assert.equal(await tokenBalance(stack.sql, acct.userId), before + 1);
  });

  it('keeps the completion of an earlier run (a re-run after a crash renders, then returns the recorded one)', async () => {
    const input = await startGeneration();
    const first = await run(input);
    const second = await run(input);
    assert.equal(second.completedAt, first.completedAt);
    assert.equal(second.mockupUrl, first.mockupUrl);
  });
});
