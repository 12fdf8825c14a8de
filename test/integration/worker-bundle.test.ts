// The worker's Workers run the workflows bundled in a child process (worker/workflow-bundle.ts): webpack's loaders
// and swc, loaded, leave ~100 MiB resident in the process that bundles (issue 34, docs/benchmarks.md "The worker's
// memory at startup"). Each case runs in a fresh process against the run's Temporal server.
import assert from 'node:assert/strict';
import { inFreshProcess } from '../helpers/fresh-process';

/** Whether webpack bundled in this process: its loaders (swc) are required only by a compilation. */
const BUNDLED_HERE = `const bundledHere = () => ['swc-loader', '@swc/core', 'source-map-loader'].filter(loaded);`;

describe('the worker bundles its workflows in a child process', () => {
  it('createWorkers without a bundle builds both queues’ Workers and loads no bundler module', function () {
    this.timeout(120_000);
    const out = inFreshProcess(`${BUNDLED_HERE}
      const { NativeConnection, Runtime } = require('@temporalio/worker');
      const quiet = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} };
      Runtime.install({ logger: quiet });
      const { loadConfig } = require('./lib/config');
      const { createSql } = require('./db/client');
      const { createStorage } = require('./lib/storage');
      const { createLogger } = require('./lib/log');
      const { createWorkers } = require('./worker/create-worker');
      (async () => {
        const config = loadConfig(process.env, { TEMPORAL_TASK_QUEUE: 'bundle-apart-' + process.pid });
        const sql = createSql(config.databaseUrl, { max: 1 });
        const connection = await NativeConnection.connect({ address: config.temporal.address });
        const workers = await createWorkers({
          connection, taskQueue: config.temporal.taskQueue, config, sql,
          storage: createStorage(config), log: createLogger({ level: 'warn' }),
        });
        const queues = workers.map((w) => w.options.taskQueue);
        const expected = [config.temporal.taskQueue, config.templates.taskQueue];
        console.log(JSON.stringify({ bothQueues: JSON.stringify(queues) === JSON.stringify(expected), bundledHere: bundledHere() }));
        process.exit(0);
      })().catch((err) => { console.error(err); process.exit(1); });
    `);
    assert.deepEqual(out, { bothQueues: true, bundledHere: [] });
  });

  it('bundling in the process itself loads them (what the first case would see)', function () {
    this.timeout(120_000);
    const out = inFreshProcess(`${BUNDLED_HERE}
      const { bundleWorkflowCode } = require('@temporalio/worker');
      const quiet = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} };
      bundleWorkflowCode({ workflowsPath: require.resolve('./workflows'), logger: quiet }).then((b) =>
        console.log(JSON.stringify({ bundled: b.code.length > 0, bundledHere: bundledHere() })),
      );
    `);
    assert.deepEqual(out, { bundled: true, bundledHere: ['swc-loader', '@swc/core', 'source-map-loader'] });
  });
});
