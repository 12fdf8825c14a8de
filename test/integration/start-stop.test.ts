// `npm start` stopped during its start-up. Every wait of the start-up must end at once and every process it started
// must be gone within seconds, whichever phase the stop request comes in and however it comes: Ctrl-C (SIGINT to the
// whole process group, as a terminal sends it) or a stop request to the start script alone (SIGTERM to its pid, as
// `kill` or npm forwarding a signal sends it), which the servers it started never see themselves.
// It used to take over two minutes after /healthz (the readiness wait ran to its 120 s limit and the embedded
// PostgreSQL's stop waited forever for a server that had already exited), and a stop request to the script alone
// while a server was starting left that server running.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../scripts/dev-services';
import { waitUpTo } from '../helpers/wait';

const ROOT = path.resolve(__dirname, '../..');
/** Generous: the machine is loaded. The old start-up took 130 s after a Ctrl-C, or never stopped a starting server. */
const GONE_WITHIN_MS = 60_000;

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

interface Case {
  name: string;
  /** true once the start-up has reached the phase to interrupt */
  reached(output: string, port: number): Promise<boolean>;
  /** Ctrl-C: SIGINT to the process group; kill: SIGTERM to the start script alone */
  how: 'ctrl-c' | 'kill';
}

const CASES: Case[] = [
  {
    name: 'Ctrl-C while PostgreSQL is starting',
    reached: async (out) => /starting embedded PostgreSQL/.test(out),
    how: 'ctrl-c',
  },
  {
    name: 'a stop request to the start script alone while the PostgreSQL cluster is being initialized',
    reached: async (out) => /initializing PostgreSQL cluster/.test(out),
    how: 'kill',
  },
  {
    name: 'a stop request to the start script alone while Temporal is starting (PostgreSQL already up)',
    reached: async (out) => /starting Temporal dev server/.test(out),
    how: 'kill',
  },
  {
    name: 'Ctrl-C as soon as the API answers /healthz, before the worker polls',
    reached: (_out, port) =>
      fetch(`http://127.0.0.1:${port}/healthz`).then(
        (r) => r.ok,
        () => false,
      ),
    how: 'ctrl-c',
  },
];

describe('npm start: stopped during start-up', function () {
  this.timeout(240_000);
  const dirs: string[] = [];
  after(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  for (const c of CASES) {
    it(`stops every process within seconds: ${c.name}`, async () => {
      // an empty DATA_DIR each time, as on a first run
      const dataDir = mkdtempSync(path.join(os.tmpdir(), 'start-stop-'));
      dirs.push(dataDir);
      // as root, PostgreSQL runs as the postgres user, which must be able to reach its cluster folder
      chmodSync(dataDir, 0o755);
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
        const reached = await waitUpTo(
          () => {
            if (child.exitCode !== null) throw new Error(`npm start exited early:\n${output}`);
            return c.reached(output, port);
          },
          { ms: 150_000, every: 20 },
        );
        if (!reached) throw new Error(`npm start never reached the phase:\n${output}`);
        const t0 = Date.now();
        if (c.how === 'ctrl-c') process.kill(-pgid, 'SIGINT');
        else process.kill(pgid, 'SIGTERM');
        await waitUpTo(() => !groupAlive(pgid), { ms: GONE_WITHIN_MS, every: 100 });
        const seconds = (Date.now() - t0) / 1000;
        assert.ok(
          !groupAlive(pgid),
          `processes still running ${GONE_WITHIN_MS / 1000} s after the stop request (${c.how}):\n${output}`,
        );
        console.log(`      (${c.how}: every process gone ${seconds.toFixed(1)} s after the stop request)`);
        assert.match(output, /\[start\] stopped/);
        assert.doesNotMatch(output, /did not become ready|a service did not stop/);
      } finally {
        if (groupAlive(pgid)) process.kill(-pgid, 'SIGKILL');
      }
    });
  }
});
