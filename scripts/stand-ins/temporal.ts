// The Temporal CLI and its dev server (`temporal server start-dev`), which `npm start`, the tests and the benchmarks
// run when no TEMPORAL_ADDRESS is given.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, openSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { SEARCH_ATTRIBUTES } from '../../lib/search-attributes';
import {
  cacheDir,
  goBinary,
  goEnv,
  onPath,
  portOpen,
  runTool,
  stopProcess,
  untilAborted,
  versionWorks,
  waitFor,
  type Log,
  type RunningService,
} from './process';

export const TEMPORAL_CLI_VERSION = 'v1.5.1';
const FALLBACK_VERSIONS = ['v1.5.1', 'v1.4.1', 'v1.3.0'];

function works(bin: string, signal?: AbortSignal): Promise<boolean> {
  return versionWorks(bin, /temporal version/i, signal);
}

/**
 * Finds a `temporal` CLI: TEMPORAL_CLI_PATH, then PATH, then our cache, then builds it with `go install` into the
 * cache (no replace directives in these tags, so go install works), then the SDK's own download.
 */
export async function resolveTemporalCli(opts: { cliPath?: string; log: Log; signal?: AbortSignal }): Promise<string> {
  const { signal } = opts;
  if (opts.cliPath) {
    if (!(await works(opts.cliPath, signal)))
      throw new Error(`TEMPORAL_CLI_PATH=${opts.cliPath} is not a working temporal CLI`);
    return opts.cliPath;
  }
  const fromPath = onPath('temporal');
  if (fromPath && (await works(fromPath, signal))) return fromPath;
  for (const v of FALLBACK_VERSIONS) {
    const cached = path.join(cacheDir(), `temporal-${v.slice(1)}`, 'temporal');
    if (existsSync(cached) && (await works(cached, signal))) return cached;
  }
  const go = goBinary();
  if (go) {
    for (const v of FALLBACK_VERSIONS) {
      const bin = path.join(cacheDir(), `temporal-${v.slice(1)}`);
      mkdirSync(bin, { recursive: true });
      opts.log(`building the Temporal CLI ${v} with go install into ${bin} (one time, several minutes)`);
      const r = await runTool(go, ['install', `github.com/temporalio/cli/cmd/temporal@${v}`], {
        env: goEnv(bin),
        timeoutMs: 40 * 60_000,
        signal,
      });
      const built = path.join(bin, 'temporal');
      if (r.status === 0 && existsSync(built) && (await works(built, signal))) return built;
      opts.log(`go install of temporal ${v} failed (exit ${r.status ?? r.signal})`);
    }
  }
  try {
    // Last resort, on machines with internet: let the SDK download a CLI release into our cache.
    const downloaded = await sdkDownload(path.join(cacheDir(), 'sdk-download'), opts.log, signal);
    if (downloaded) return downloaded;
  } catch (err) {
    if (signal?.aborted) throw err;
    opts.log(`the SDK could not download the Temporal CLI: ${(err as Error).message}`);
  }
  throw new Error(
    'No Temporal CLI found: install Go (>= 1.24) so `GOTOOLCHAIN=local go install github.com/temporalio/cli/cmd/temporal@v1.5.1` can build it, put `temporal` on PATH, set TEMPORAL_CLI_PATH, or set TEMPORAL_ADDRESS to an existing server.',
  );
}

async function sdkDownload(dir: string, log: Log, signal?: AbortSignal): Promise<string | undefined> {
  signal?.throwIfAborted();
  // The SDK downloads only while starting a server: start one, stop it, then use the cached binary it left. Its
  // download cannot be cancelled: a stop request stops waiting for it, and the server it starts is torn down
  // whenever it comes.
  log(`trying the Temporal SDK's download of the CLI into ${dir}`);
  const { TestWorkflowEnvironment } = await import('@temporalio/testing');
  const starting = TestWorkflowEnvironment.createLocal({
    server: { executable: { type: 'cached-download', downloadDir: dir } },
  });
  if (signal) signal.addEventListener('abort', () => void starting.then((env) => env.teardown()).catch(() => {}));
  const env = await untilAborted(starting, signal);
  await env.teardown();
  signal?.throwIfAborted();
  const candidates = readdirSync(dir)
    .map((f) => path.join(dir, f))
    .filter((f) => /temporal/i.test(path.basename(f)));
  for (const f of candidates) if (await works(f, signal)) return f;
  return undefined;
}

/**
 * Dynamic configuration of the dev server (`--dynamic-config-value`), measured with bench/payments.ts (see
 * docs/payments.md):
 * - The CLI forces a search-attribute and namespace cache refresh on every read, so that attributes added at run time
 *   are usable at once. That cost each workflow start and task about eight reads of the cluster metadata and the
 *   namespace on the dev server's single SQLite connection, which every other persistence call waits behind. Without
 *   it, attributes given with `--search-attribute` are there from the start, and one added at run time is usable
 *   after the namespace cache's refresh (2 s), which ensureSearchAttributes (lib/temporal.ts) waits for.
 * - One write partition per task queue (default four): a task written to a partition where no poller waits was
 *   forwarded to the root partition or stored in SQLite and read back; one worker process polls every queue, so all
 *   tasks now go to the root partition and mostly meet a waiting poll. The four read partitions stay, so that tasks
 *   a data folder from before this setting still holds in the other partitions are delivered.
 * Together they are most of what raised the rate of applied Stripe events from ~30/s to ~60-70/s on 2 cores.
 * - The transfer queue's reads at up to 1000 a second (default 20 per history shard; the dev server has one shard).
 *   A workflow's first task reaches the task queue through that queue, and so does each workflow's close: past ~10
 *   generations a second (two transfer tasks each) its reader was throttled and a new workflow's task waited 30-50
 *   ms before any worker could poll it, in every generate call (bench/run.ts, docs/benchmarks.md). A read finds
 *   every task written since the last one (up to 100), so under load reads stay fewer than tasks.
 */
export const TEMPORAL_DEV_DYNAMIC_CONFIG: Record<string, string | number | boolean> = {
  'system.forceSearchAttributesCacheRefreshOnRead': false,
  'matching.numTaskqueueWritePartitions': 1,
  'history.transferProcessorMaxPollRPS': 1000,
};

/** The command line of `temporal server start-dev` as npm start, the tests and the benchmarks run it. */
export function temporalDevArgs(opts: {
  port: number;
  uiPort?: number;
  dbFile?: string;
  /** registered at start (default: all of ours; tests of run-time registration leave some out) */
  searchAttributes?: Record<string, string>;
}): string[] {
  const args = ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(opts.port), '--log-level', 'warn'];
  if (opts.uiPort) args.push('--ui-port', String(opts.uiPort));
  else args.push('--headless');
  if (opts.dbFile) {
    // Write-ahead log with synchronous=NORMAL: commits survive the dev server (or anything else) crashing; only an
    // operating-system crash can lose the last few. SQLite's default (rollback journal, fsync on every commit) made
    // each workflow start and workflow task completion wait on the disk: ~25 ms more per generation (measured in
    // README, "Benchmark"). A deployment runs a real Temporal cluster (docker-compose.yml), not this.
    args.push(
      '--db-filename',
      opts.dbFile,
      '--sqlite-pragma',
      'journal_mode=wal',
      '--sqlite-pragma',
      'synchronous=normal',
    );
  }
  for (const [name, type] of Object.entries(opts.searchAttributes ?? SEARCH_ATTRIBUTES))
    args.push('--search-attribute', `${name}=${type}`);
  for (const [key, value] of Object.entries(TEMPORAL_DEV_DYNAMIC_CONFIG))
    args.push('--dynamic-config-value', `${key}=${JSON.stringify(value)}`);
  return args;
}

/**
 * Starts `temporal server start-dev`. With `dbFile` workflows survive a restart. Waits for the gRPC port with its
 * own deadline (the SDK's built-in start gives it only a few seconds, too little on a busy 2-core machine). A server
 * that does not become ready, or whose start `signal` cancels, is stopped before the call rejects.
 */
export async function startTemporalDev(opts: {
  cli: string;
  port: number;
  uiPort?: number;
  dbFile?: string;
  searchAttributes?: Record<string, string>;
  logFile: string;
  log: Log;
  signal?: AbortSignal;
}): Promise<RunningService & { address: string; uiUrl?: string; kill(): Promise<void> }> {
  opts.signal?.throwIfAborted();
  if (await portOpen(opts.port)) {
    throw new Error(
      `Port ${opts.port} is already in use: stop what listens there, set TEMPORAL_DEV_PORT, or set TEMPORAL_ADDRESS to use that server`,
    );
  }
  if (opts.dbFile) mkdirSync(path.dirname(opts.dbFile), { recursive: true });
  const args = temporalDevArgs(opts);
  mkdirSync(path.dirname(opts.logFile), { recursive: true });
  const out = openSync(opts.logFile, 'a');
  opts.signal?.throwIfAborted();
  const proc = spawn(opts.cli, args, { stdio: ['ignore', out, out], detached: false });
  await waitFor('Temporal dev server', 120_000, () => portOpen(opts.port), { proc, signal: opts.signal });
  return {
    address: `127.0.0.1:${opts.port}`,
    uiUrl: opts.uiPort ? `http://localhost:${opts.uiPort}` : undefined,
    stop: () => stopProcess(proc, 'Temporal dev server', 15_000),
    // SIGKILL, for the chaos suite: nothing flushed beyond what SQLite's write-ahead log already holds
    kill: () => stopProcess(proc, 'Temporal dev server', 0, 'SIGKILL'),
  };
}
