// `npm start` stopped during its start-up: Ctrl-C (SIGINT to the whole process group, as a terminal sends it) as
// soon as the API answers /healthz, before the worker polls. Every wait of the start-up must end at once and every
// process must be gone within seconds (it used to take over two minutes: the readiness wait ran to its 120 s limit
// and the embedded PostgreSQL's stop waited forever for a server that had already exited).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../scripts/dev-services';

const ROOT = path.resolve(__dirname, '../..');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('npm start: Ctrl-C during start-up', function () {
  this.timeout(180_000);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'start-stop-'));
  // as root, PostgreSQL runs as the postgres user, which must be able to reach its cluster folder
  chmodSync(dataDir, 0o755);
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('stops every process within seconds', async () => {
    const port = await freePort();
    const env: Record<string, string> = { ...(process.env as Record<string, string>) };
    // Its own PostgreSQL, Temporal dev server and stripe-mock, as on a developer's machine.
    for (const k of ['DATABASE_URL', 'TEMPORAL_ADDRESS', 'STRIPE_SECRET_KEY', 'STRIPE_API_URL']) delete env[k];
    Object.assign(env, {
      DATA_DIR: dataDir,
      SEED_ON_START: 'false',
      PORT: String(port),
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      EMBEDDED_PG_PORT: String(await freePort()),
      TEMPORAL_DEV_PORT: String(await freePort()),
      TEMPORAL_DEV_UI_PORT: String(await freePort()),
      LOG_LEVEL: 'warn',
    });
    let output = '';
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'scripts/start.ts')], {
      env,
      cwd: ROOT,
      detached: true, // its own process group, signalled as a terminal signals it
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (d) => (output += d));
    child.stderr!.on('data', (d) => (output += d));
    const pgid = child.pid!;
    try {
      const until = Date.now() + 150_000;
      for (;;) {
        if (child.exitCode !== null) throw new Error(`npm start exited early:\n${output}`);
        if (Date.now() > until) throw new Error(`the API never answered /healthz:\n${output}`);
        const ok = await fetch(`http://127.0.0.1:${port}/healthz`).then(
          (r) => r.ok,
          () => false,
        );
        if (ok) break;
        await sleep(100);
      }
      const t0 = Date.now();
      process.kill(-pgid, 'SIGINT');
      while (groupAlive(pgid) && Date.now() - t0 < 60_000) await sleep(100);
      const seconds = (Date.now() - t0) / 1000;
      assert.ok(!groupAlive(pgid), `processes still running 60 s after Ctrl-C:\n${output}`);
      assert.ok(seconds < 30, `everything stopped only after ${seconds} s`);
      assert.match(output, /\[start\] stopped/);
      assert.doesNotMatch(output, /did not become ready/);
    } finally {
      if (groupAlive(pgid)) process.kill(-pgid, 'SIGKILL');
    }
  });
});
