// `npm run chaos`: the chaos suite (docs/chaos.md). Two APIs and two workers on their own PostgreSQL and
// Temporal dev server, a bounded load, faults on a seeded schedule, then the invariants as a table. Exit code 1 when
// any invariant fails.
//
//   npm run chaos                          a run with a random seed (printed)
//   npm run chaos -- --seed 42             repeat the schedule and choices of seed 42
//   npm run chaos -- --duration 60 --rounds 1 --api-clients 3 --chat-clients 1
//   npm run chaos -- --s3                  files in MinIO (built once into ~/.cache/apparel-mockup) instead of disk
//   npm run chaos -- --keep                keep the data folder (.data/chaos: logs, PostgreSQL, Temporal database)
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { runChaos } from '../test/chaos/harness';
import { randomSeed } from '../test/chaos/rng';
import { freePort, resolveMinio, startMinio } from './dev-services';

const say = (m: string) => process.stderr.write(`[chaos] ${m}\n`);

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      seed: { type: 'string' },
      duration: { type: 'string', default: '180' },
      rounds: { type: 'string' },
      'api-clients': { type: 'string', default: '4' },
      'chat-clients': { type: 'string', default: '1' },
      settle: { type: 'string', default: '180' },
      s3: { type: 'boolean', default: false },
      keep: { type: 'boolean', default: false },
    },
  });
  const seed = values.seed !== undefined ? Number(values.seed) : randomSeed();
  if (!Number.isInteger(seed) || seed < 0) throw new Error(`--seed must be a non-negative integer, got ${values.seed}`);
  const durationMs = Number(values.duration) * 1000;
  const rounds = values.rounds ? Number(values.rounds) : Math.max(1, Math.round(durationMs / 60_000));
  const dataDir = path.resolve(__dirname, '..', '.data', 'chaos');
  rmSync(dataDir, { recursive: true, force: true });
  mkdirSync(dataDir, { recursive: true });
  let minio: Awaited<ReturnType<typeof startMinio>> | undefined;
  try {
    let s3;
    if (values.s3) {
      minio = await startMinio({
        bin: await resolveMinio({ log: say }),
        dir: path.join(dataDir, 'minio'),
        port: await freePort(),
        consolePort: await freePort(),
        user: 'chaos',
        password: 'chaos-secret-key',
        logFile: path.join(dataDir, 'logs', 'minio.log'),
      });
      s3 = { endpoint: minio.endpoint, accessKeyId: 'chaos', secretAccessKey: 'chaos-secret-key' };
    }
    const report = await runChaos({
      seed,
      durationMs,
      rounds,
      apiClients: Number(values['api-clients']),
      chatClients: Number(values['chat-clients']),
      settleMs: Number(values.settle) * 1000,
      dataDir,
      s3,
      say,
    });
    process.stdout.write(
      `\nchaos run, seed ${report.seed}: ${report.ok ? 'every invariant held' : 'INVARIANTS FAILED'}\n\n`,
    );
    process.stdout.write(report.table + '\n\n');
    process.stdout.write(`faults:\n${report.faults.map((f) => `  ${f.at} ${f.what}`).join('\n')}\n\n`);
    process.stdout.write(`figures: ${JSON.stringify(report.figures, null, 2)}\n`);
    if (!report.ok) process.stdout.write(`\nrepeat with: npm run chaos -- --seed ${report.seed}\n`);
    const out = path.resolve(__dirname, '..', 'bench', 'results', 'chaos.json');
    mkdirSync(path.dirname(out), { recursive: true });
    writeFileSync(out, JSON.stringify(report, null, 2) + '\n');
    return report.ok ? 0 : 1;
  } finally {
    await minio?.stop();
    if (!values.keep) rmSync(dataDir, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    say(`failed: ${err?.stack ?? err}`);
    process.exit(1);
  },
);
