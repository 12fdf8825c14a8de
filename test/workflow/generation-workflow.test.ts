// The generation workflow against the real Temporal dev server with mocked activities: orchestration only.
import assert from 'node:assert/strict';
import { ApplicationFailure } from '@temporalio/activity';
import { defaultPayloadConverter } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { randomSuffix } from '../../lib/ids';
import type { Activities } from '../../activities';
import type {
  GenerationFailureOutcome,
  GenerationWorkflowInput,
  RenderJob,
  RenderResult,
} from '../../lib/generation/types';
import { generation } from '../../workflows';
import { useTemporalConnections, workflowBundle } from '../helpers/stack';

type Calls = string[];
const EventType = temporal.api.enums.v1.EventType;

function mockActivities(
  calls: Calls,
  behavior: { renderFailures?: number; renderError?: 'transient' | 'bad-input'; completedMeanwhile?: boolean },
) {
  let renders = 0;
  const rec = (name: string) => calls.push(name);
  const mocks = {
    // the one step the workflow runs: renders the input's job (the real step checks the row beside it)
    async renderGeneration(_generationId: string, job: RenderJob | undefined): Promise<RenderResult> {
      rec(`render:${job?.kind === 'template' ? job.templateId : job?.blankKey}`);
      renders++;
      if (behavior.renderError === 'bad-input')
        throw ApplicationFailure.nonRetryable('Design image: not an image', 'DesignImageError');
      if (renders <= (behavior.renderFailures ?? 0)) throw new Error(`transient failure ${renders}`);
      return {
        mockupKey: 'mockups/x.jpg',
        thumbnailKey: 'mockups/x-thumb.jpg',
        completedAt: '2026-01-01T00:00:00.000Z',
        mockupUrl: 'http://files/mockups/x.jpg',
        ms: {},
      };
    },
    async failGeneration(_id: string, error: string): Promise<GenerationFailureOutcome> {
      rec(`failed:${error}`);
      if (behavior.completedMeanwhile) {
        return {
          status: 'completed',
          completedAt: '2026-01-01T00:00:02.000Z',
          mockupUrl: 'http://files/mockups/x.jpg',
        };
      }
      return { status: 'failed', error, completedAt: '2026-01-01T00:00:01.000Z' };
    },
  } satisfies Partial<Activities>;
  return mocks;
}

/** The job the API puts in the input (api/services/generation-jobs.ts). */
const JOB: RenderJob = {
  userId: 'usr_test',
  designUrl: 'http://files/d.png',
  blankKey: 'job',
  zone: { x: 0.3, y: 0.2, width: 0.4, height: 0.5 },
  placement: { x: 50, y: 35, scale: 0.8, rotation: 0 },
  applyTexture: true,
};

describe('generation workflow (mocked activities)', () => {
  const temporal = useTemporalConnections();

  async function run(
    behavior: Parameters<typeof mockActivities>[1],
    webhookUrl: string | null = null,
    job: RenderJob = JOB,
  ) {
    const calls: Calls = [];
    const taskQueue = `wf-generation-${randomSuffix(6)}`;
    const worker = await Worker.create({
      connection: temporal.connection,
      taskQueue,
      workflowBundle: await workflowBundle(),
      activities: mockActivities(calls, behavior),
    });
    const generationId = `gen_${Date.now()}_${randomSuffix()}`;
    const input: GenerationWorkflowInput = {
      generationId,
      accountId: 'usr_test',
      garmentId: 'g',
      webhookUrl,
      job,
    };
    const result = await worker.runUntil(
      temporal.client.workflow.execute(generation, { workflowId: generationId, taskQueue, args: [input] }),
    );
    const history = await temporal.client.workflow.getHandle(generationId).fetchHistory();
    return { calls, result, generationId, history };
  }

  it('renders in one step on the happy path, in one workflow task', async () => {
    const { calls, result, history } = await run({});
    assert.deepEqual(calls, ['render:job']);
    assert.deepEqual(result, { status: 'completed' });
    // one local activity: a marker in the history (besides the deprecated patch's marker), no activity tasks, one
    // workflow task
    const types = history.events!.map((e) => e.eventType);
    const count = (t: number) => types.filter((x) => x === t).length;
    assert.equal(count(EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED), 0);
    assert.equal(count(EventType.EVENT_TYPE_MARKER_RECORDED), 2);
    const steps = history
      .events!.map((e) => e.markerRecordedEventAttributes?.details?.data?.payloads?.[0]?.data)
      .filter((d): d is Uint8Array => !!d)
      .map((d) => JSON.parse(Buffer.from(d).toString()).activity_type);
    assert.deepEqual(steps, ['renderGeneration']);
    assert.equal(count(EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED), 1);
  });

  it("hands the input's job (the row as the API recorded it) to the render step: no read before the render", async () => {
    const job: RenderJob = {
      userId: 'usr_test',
      designUrl: 'http://files/d.png',
      blankKey: 'from-input',
      zone: { x: 0.3, y: 0.2, width: 0.4, height: 0.5 },
      placement: { x: 50, y: 35, scale: 0.7, rotation: 5 },
      applyTexture: false,
      view: 'front',
      silhouette: 'tee',
      printArea: null,
    };
    const { calls, result } = await run({}, null, job);
    assert.deepEqual(calls, ['render:from-input']);
    assert.deepEqual(result, { status: 'completed' });
  });

  it('retries a transient render failure (the whole step) and then completes, without refunding', async () => {
    const { calls, result } = await run({ renderFailures: 2 });
    assert.deepEqual(calls, ['render:job', 'render:job', 'render:job']);
    assert.equal(result.status, 'completed');
  });

  it('does not retry bad input: refunds, marks failed with the reason, and sends generation.failed', async () => {
    const { calls, result, generationId } = await run({ renderError: 'bad-input' }, 'https://hooks.example.com/x');
    assert.deepEqual(calls, ['render:job', 'failed:Design image: not an image']);
    assert.deepEqual(result, { status: 'failed', error: 'Design image: not an image' });
    // The callback is its own workflow, webhook-<generation id>, started with the failure payload.
    const child = temporal.client.workflow.getHandle(`webhook-${generationId}`);
    const history = await child.fetchHistory();
    const started = history.events![0]!.workflowExecutionStartedEventAttributes!;
    const arg = defaultPayloadConverter.fromPayload<any>(started.input!.payloads![0]!);
    assert.equal(arg.event, 'generation.failed');
    assert.deepEqual(arg.payload, {
      event: 'generation.failed',
      timestamp: '2026-01-01T00:00:01.000Z',
      livemode: true,
      data: { id: generationId, status: 'failed', error: 'Design image: not an image', tokensUsed: 0 },
    });
    await child.terminate('test done').catch(() => {});
  });

  it('gives up after the retry budget for persistent failures, then refunds and fails', async () => {
    const { calls, result } = await run({ renderFailures: 99 });
    assert.equal(calls.filter((c) => c === 'render:job').length, 4);
    assert.deepEqual(calls.slice(-1), ['failed:transient failure 4']);
    assert.equal(result.status, 'failed');
  });

  it('sends generation.completed with the exact spec payload', async () => {
    const { generationId } = await run({}, 'https://hooks.example.com/y');
    const child = temporal.client.workflow.getHandle(`webhook-${generationId}`);
    const history = await child.fetchHistory();
    const arg = defaultPayloadConverter.fromPayload<any>(
      history.events![0]!.workflowExecutionStartedEventAttributes!.input!.payloads![0]!,
    );
    assert.deepEqual(arg.payload, {
      event: 'generation.completed',
      timestamp: '2026-01-01T00:00:00.000Z',
      livemode: true,
      data: { id: generationId, status: 'completed', mockupUrl: 'http://files/mockups/x.jpg', tokensUsed: 1 },
    });
    assert.equal(arg.url, 'https://hooks.example.com/y');
    await child.terminate('test done').catch(() => {});
  });

  it('sends generation.completed, not failed, when the render committed after its step failed (no refund)', async () => {
    const { calls, result, generationId } = await run(
      { renderFailures: 99, completedMeanwhile: true },
      'https://hooks.example.com/z',
    );
    assert.deepEqual(calls.slice(-1), ['failed:transient failure 4']);
    assert.deepEqual(result, { status: 'completed' });
    const child = temporal.client.workflow.getHandle(`webhook-${generationId}`);
    const history = await child.fetchHistory();
    const arg = defaultPayloadConverter.fromPayload<{ event: string; payload: unknown }>(
      history.events![0]!.workflowExecutionStartedEventAttributes!.input!.payloads![0]!,
    );
    assert.equal(arg.event, 'generation.completed');
    assert.deepEqual(arg.payload, {
      event: 'generation.completed',
      timestamp: '2026-01-01T00:00:02.000Z',
      livemode: true,
      data: { id: generationId, status: 'completed', mockupUrl: 'http://files/mockups/x.jpg', tokensUsed: 1 },
    });
    await child.terminate('test done').catch(() => {});
  });
});
