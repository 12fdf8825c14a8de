// Design chat's jobs through HTTP against the real stack and the provider stand-ins: jobs whose workflow was
// terminated or never started (the API's answer and the chat-jobs sweep: failed, refunded once), and a worker killed
// mid-job (one debit, one set of records).
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { tokenBalance } from '../../db/ledger';
import { randomSuffix } from '../../lib/ids';
import { chatDesign, chatJobsSweep } from '../../workflows';
import { useChatStack } from '../helpers/chat';
import * as inspect from '../helpers/db-inspect';
import { account, http } from '../helpers/http';
import { killNow, spawnWorkerProcess } from '../helpers/stack';
import { sleep, until } from '../helpers/wait';

const CHAT_WAIT = { ms: 60_000, every: 150 };

describe('design chat: jobs, the chat-jobs sweep and a worker killed mid-job', function () {
  this.timeout(180_000);
  const { stack, gemini, openai, chat, blanks, jobOf } = useChatStack('chat-jobs');

  /** Runs the chat-jobs sweep as the schedule does: workflow chatJobsSweep on the worker. */
  const sweep = () =>
    stack.client.workflow.execute(chatJobsSweep, {
      workflowId: `chat-jobs-sweep-test-${randomSuffix(6)}`,
      taskQueue: stack.taskQueue,
    });
  const refundsOf = inspect.refundAmounts;

  it('a workflow terminated while POST /api/chat waits: 202, the job stays running until the chat-jobs sweep', async () => {
    const acct = await account(stack.baseUrl);
    gemini.behave = () => 'hang';
    openai.behave = () => 'hang';
    const pending = chat(acct.cookie, { prompt: 'A design whose job an operator ends' });
    await until('Gemini asked', async () => gemini.requests.length > 0, CHAT_WAIT);
    const job = await jobOf(acct.userId);
    assert.equal(await tokenBalance(stack.sql, acct.userId), 38, 'the debit was taken with the job');
    await stack.client.workflow.getHandle(job.id).terminate('operator');
    const res = await pending;
    assert.equal(res.status, 202, res.text);
    assert.deepEqual(res.body, { jobId: job.id, status: 'running' });
    // only the workflow and the sweep fail a started job: nothing was failed or refunded by the API
    assert.equal((await jobOf(acct.userId)).status, 'running');
    assert.deepEqual(await refundsOf(job.id), []);
    await inspect.backdateRenderJob(job.id, '1 hour');
    await sweep();
    assert.equal(await tokenBalance(stack.sql, acct.userId), 50);
    assert.deepEqual(await refundsOf(job.id), [12]);
    const after = await jobOf(acct.userId);
    assert.equal(after.status, 'failed');
    assert.equal(after.failure, 'generation_failed');
  });

  it('a job whose workflow is terminated after the 202: the chat-jobs sweep fails it and refunds it once', async () => {
    const acct = await account(stack.baseUrl);
    gemini.behave = () => 'hang';
    openai.behave = () => 'hang';
    const saved = stack.config.chat.syncTimeoutMs;
    stack.config.chat.syncTimeoutMs = 300;
    let res;
    try {
      res = await chat(acct.cookie, { prompt: 'A design left hanging by its provider' });
    } finally {
      stack.config.chat.syncTimeoutMs = saved;
    }
    assert.equal(res.status, 202, res.text);
    const jobId: string = res.body.jobId;
    await until('Gemini asked', async () => gemini.requests.length > 0, CHAT_WAIT);
    assert.equal(await tokenBalance(stack.sql, acct.userId), 38);
    await stack.client.workflow.getHandle(jobId).terminate('operator');
    const get = () => http(stack.baseUrl, 'GET', `/api/chat/jobs/${jobId}`, { cookie: acct.cookie });
    assert.equal((await get()).status, 202, 'nothing else will finish it');

    // within CHAT_ORPHAN_AFTER (2 minutes) of its creation the sweep leaves it alone
    await sweep();
    assert.equal((await jobOf(acct.userId)).status, 'running');
    await inspect.backdateRenderJob(jobId, '1 hour');
    const first = await sweep();
    assert.ok(first.failed >= 1 && first.refunded >= 1, JSON.stringify(first));
    const row = await inspect.renderJob(jobId);
    assert.equal(row!.status, 'failed');
    assert.equal(row!.failure, 'generation_failed');
    assert.match(row!.error!, /workflow ended \(terminated\)/);
    assert.equal(await tokenBalance(stack.sql, acct.userId), 50);
    assert.deepEqual(await refundsOf(jobId), [12]);
    const failed = await get();
    assert.equal(failed.status, 500);
    assert.deepEqual(failed.body, { error: 'Generation failed' });

    await sweep();
    assert.equal(await tokenBalance(stack.sql, acct.userId), 50, 'a second sweep gives nothing back twice');
    assert.deepEqual(await refundsOf(jobId), [12]);
  });

  it('a job row whose workflow never started: the sweep fails it without a refund; a late start charges nothing', async () => {
    const acct = await account(stack.baseUrl);
    const [oldId, freshId] = [`job_${Date.now()}_${randomSuffix()}`, `job_${Date.now()}_${randomSuffix()}`];
    for (const [id, age] of [
      [oldId, '1 hour'],
      [freshId, '0 seconds'],
    ] as const) {
      await inspect.insertOrphanRenderJob({ id, userId: acct.userId, prompt: 'An orphaned job of a dead API', age });
    }
    const out = await sweep();
    assert.ok(out.failed >= 1, JSON.stringify(out));
    const byId = new Map([
      [oldId, await inspect.renderJob(oldId)],
      [freshId, await inspect.renderJob(freshId)],
    ]);
    assert.equal(byId.get(oldId)!.status, 'failed');
    assert.equal(byId.get(oldId)!.failure, 'generation_failed');
    assert.match(byId.get(oldId)!.error!, /never started/);
    assert.equal(byId.get(freshId)!.status, 'running', 'younger than CHAT_ORPHAN_AFTER');
    assert.deepEqual(await refundsOf(oldId), [], 'nothing was taken, nothing is given');
    assert.equal(await tokenBalance(stack.sql, acct.userId), 50);
    const res = await http(stack.baseUrl, 'GET', `/api/chat/jobs/${oldId}`, { cookie: acct.cookie });
    assert.equal(res.status, 500);
    assert.deepEqual(res.body, { error: 'Generation failed' });

    // the API was only slow: its workflow starts after the sweep failed the job, and takes nothing
    await assert.rejects(
      stack.client.workflow.execute(chatDesign, {
        workflowId: oldId,
        taskQueue: stack.taskQueue,
        args: [
          {
            jobId: oldId,
            accountId: acct.userId,
            prompt: 'An orphaned job of a dead API',
            model: 'nano-banana',
            images: [],
            garmentUrls: [],
            designUrls: [],
            threadId: null,
          },
        ],
      }),
    );
    assert.deepEqual(await inspect.debitAmounts(oldId), []);
    assert.equal(gemini.requests.length, 0);
    await inspect.failRenderJob(freshId);
  });

  it('a worker killed mid-job: another takes over; one debit, one set of records', async function () {
    this.timeout(240_000);
    const acct = await account(stack.baseUrl);
    await stack.stopWorker();
    let child: ChildProcess | undefined = spawnWorkerProcess(stack, stack.env);
    let release: () => void = () => {};
    try {
      const reached = new Promise<void>((r) => {
        gemini.onRequest = () => {
          gemini.onRequest = undefined;
          r();
          return new Promise<void>((go) => (release = go));
        };
      });
      const pending = chat(acct.cookie, { prompt: 'A crash-proof heart design', garmentUrls: blanks() });
      await Promise.race([reached, sleep(120_000).then(() => Promise.reject(new Error('Gemini never reached')))]);
      await killNow(child);
      child = undefined;
      release(); // the killed worker never reads this answer
      await stack.startWorker();
      const res = await pending;
      assert.equal(res.status, 200, res.text);
      assert.ok(gemini.requests.length >= 2, 'Gemini was asked again by the new worker');
      const job = await jobOf(acct.userId);
      assert.equal(job.status, 'completed');
      assert.deepEqual(await inspect.debitAmounts(job.id), [12], 'one debit');
      assert.equal(await tokenBalance(stack.sql, acct.userId), 38);
      assert.deepEqual(await inspect.chatRecordCounts(acct.userId, job.id), {
        threads: 1,
        messages: 2,
        assets: 4,
        usage: 1,
        jobs: 1,
      });
      assert.equal(res.body.mockups.length, 2);
    } finally {
      release();
      if (child && child.exitCode === null) child.kill('SIGKILL');
      if (!stack.worker) await stack.startWorker();
    }
  });
});
