// Replay safety: workflow histories are replayed against the current workflow code with
// Worker.runReplayHistories, so a change that would break running workflows (non-determinism) fails CI.
// Two sources: histories recorded earlier and kept in test/workflow/histories/ (one or more per workflow type,
// what was running in production-like use when they were recorded), and every workflow type this test run has
// closed on its Temporal server (this file runs after the integration tests), whatever their outcome.
// `RECORD_HISTORIES=1 npm test` ADDS one history per type from the run, named by the day (binary protobuf); kept
// histories are never overwritten, so a change that breaks an older history needs `patched()`
// (docs/development.md, "Changing a workflow").
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import * as workflows from '../../workflows';
import { installQuietRuntime, workflowBundle } from '../helpers/stack';

const DIR = path.join(__dirname, 'histories');
const TYPES = Object.keys(workflows);

describe('workflow replay (determinism of the current code against recorded histories)', function () {
  this.timeout(180_000);
  let connection: Connection;
  let client: Client;

  before(async () => {
    installQuietRuntime();
    connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
    client = new Client({ connection });
  });
  after(async () => {
    await connection?.close();
  });

  async function replay(histories: { workflowId: string; history: temporal.api.history.v1.IHistory }[]) {
    const failures: string[] = [];
    const results = Worker.runReplayHistories({ workflowBundle: await workflowBundle() }, histories);
    for await (const r of results) if (r.error) failures.push(`${r.workflowId}: ${r.error.message}`);
    assert.deepEqual(failures, []);
  }

  it("replays this run's closed workflows of every type", async () => {
    const histories: { workflowId: string; history: temporal.api.history.v1.IHistory }[] = [];
    for (const type of TYPES) {
      let n = 0;
      for await (const wf of client.workflow.list({
        query: `WorkflowType = '${type}' AND ExecutionStatus != 'Running'`,
      })) {
        const history = await client.workflow.getHandle(wf.workflowId, wf.runId).fetchHistory();
        histories.push({ workflowId: `${type}--${wf.workflowId}`, history });
        if (process.env.RECORD_HISTORIES === '1' && n === 0) {
          mkdirSync(DIR, { recursive: true });
          const file = path.join(DIR, `${type}--${new Date().toISOString().slice(0, 10)}.bin`);
          // never overwrite: a kept history stands for workflows that may still be running somewhere
          if (!existsSync(file)) writeFileSync(file, temporal.api.history.v1.History.encode(history).finish());
        }
        if (++n >= 5) break;
      }
    }
    const types = new Set(histories.map((h) => h.workflowId.split('--')[0]));
    assert.deepEqual(
      TYPES.filter((t) => !types.has(t)),
      [],
      'the integration tests closed a workflow of every type',
    );
    await replay(histories);
  });

  it('replays the kept histories of every workflow type', async () => {
    const files = existsSync(DIR) ? readdirSync(DIR).filter((f) => f.endsWith('.bin')) : [];
    const kept = files.map((f) => ({
      workflowId: f.replace(/\.bin$/, ''),
      history: temporal.api.history.v1.History.decode(readFileSync(path.join(DIR, f))),
    }));
    const covered = new Set(files.map((f) => f.split('--')[0]));
    assert.deepEqual(
      TYPES.filter((t) => !covered.has(t)),
      [],
      'every workflow type has a kept history (record one with RECORD_HISTORIES=1)',
    );
    await replay(kept);
  });
});
