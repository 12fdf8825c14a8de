// The CI-sized chaos run (docs/chaos.md): two APIs and two workers on their own PostgreSQL and Temporal dev
// server, files in a bucket of the test run's MinIO, 45 s of load, every fault once on a seeded schedule, then every
// invariant. The seed is printed; CHAOS_SEED=<n> repeats a run (so does `npm run chaos -- --seed <n>` at full size).
// This file starts its own PostgreSQL (it restarts it) and Temporal server: DATABASE_URL and TEMPORAL_ADDRESS of the
// test run are not used. Takes about 3 minutes on the 2-core machine.
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runChaos } from './harness';
import { randomSeed } from './rng';

describe('chaos: faults under load on two APIs and two workers (CI size)', function () {
  this.timeout(300_000);

  it('keeps every promise: generations, ledger, webhooks, Stripe, Shopify, chat, workflows, HTTP, limits', async () => {
    const seed = process.env.CHAOS_SEED ? Number(process.env.CHAOS_SEED) : randomSeed();
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'mockup-chaos-'));
    chmodSync(dataDir, 0o755); // the embedded PostgreSQL runs as its own user when we are root
    const s3 = process.env.TEST_S3_ENDPOINT
      ? {
          endpoint: process.env.TEST_S3_ENDPOINT,
          accessKeyId: process.env.TEST_S3_ACCESS_KEY_ID!,
          secretAccessKey: process.env.TEST_S3_SECRET_ACCESS_KEY!,
        }
      : undefined;
    const t0 = Date.now();
    let ok = false;
    try {
      const report = await runChaos({
        seed,
        durationMs: 45_000,
        rounds: 1,
        apiClients: 2,
        chatClients: 1,
        settleMs: 90_000,
        dataDir,
        s3,
        say: (m) => process.stderr.write(`[chaos] ${m}\n`),
      });
      process.stderr.write(
        `\nchaos seed ${seed}, ${((Date.now() - t0) / 1000).toFixed(0)} s:\n${report.table}\n${JSON.stringify(report.figures)}\n`,
      );
      assert.ok(
        report.ok,
        `invariants failed (repeat with CHAOS_SEED=${seed} or npm run chaos -- --seed ${seed}):\n${report.table}`,
      );
      ok = true;
    } finally {
      // a failed run keeps its logs and chaos-run.json for a look
      if (ok) rmSync(dataDir, { recursive: true, force: true });
      else process.stderr.write(`[chaos] logs kept in ${dataDir}/logs\n`);
    }
  });
});
