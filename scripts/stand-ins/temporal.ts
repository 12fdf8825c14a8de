// The Temporal CLI and its dev server (`temporal server start-dev`), which `npm start`, the tests and the benchmarks
// run when no TEMPORAL_ADDRESS is given.
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, createReadStream, existsSync, mkdirSync, openSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { SEARCH_ATTRIBUTES } from '../../lib/search-attributes';
import {
  cacheDir,
  ExitedBeforeReady,
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

/**
 * The dev server keeps its state in SQLite through modernc.org/sqlite, on one connection. The driver the CLI's tags
 * pin (v1.34.1 in v1.5.1) leaks a query's rows when the query's context ends just as its first row comes: the
 * statement stays active, so the interrupt SQLite got for it is never cleared, and every later statement on that one
 * connection fails with `interrupted (9)`. A client call cancelled or past its deadline at that moment leaves the
 * server answering `GetNamespace operation failed. Error interrupted (9)` to everything until it restarts (it
 * happened in a CI run; test/integration/temporal-dev-server.test.ts reproduces it within seconds). v1.40.1 closes
 * those rows, v1.42.2 no longer interrupts a later, unrelated query, and v1.51.0 keeps an in-memory database's
 * connection after an interrupt (the tests' server is in memory). So the CLI is built against this driver version;
 * v1.59.0 is the last that builds with Go 1.25.
 */
export const TEMPORAL_SQLITE_DRIVER = 'v1.59.0';
const SAFE_SQLITE_DRIVER = 'v1.51.0';

function works(bin: string, signal?: AbortSignal): Promise<boolean> {
  return versionWorks(bin, /temporal version/i, signal);
}

/** Whether a modernc.org/sqlite version leaves the dev server usable after a cancelled call (see above). */
export function sqliteDriverIsSafe(version: string | undefined): boolean {
  const v = /^v(\d+\.\d+\.\d+)/.exec(version ?? '')?.[1];
  // dotted numbers compared part by part as numbers (1.100.0 after 1.51.0)
  return v !== undefined && v.localeCompare(SAFE_SQLITE_DRIVER.slice(1), 'en', { numeric: true }) >= 0;
}

/**
 * The modernc.org/sqlite version a Go binary was built with, from the module list Go writes into every binary
 * (`dep\tmodernc.org/sqlite\tv1.34.1\t...`, what `go version -m` prints); undefined when it has none.
 */
export async function sqliteDriverOf(bin: string): Promise<string | undefined> {
  const needle = Buffer.from('\tmodernc.org/sqlite\t');
  const version = (buf: Buffer, at: number) =>
    /^v\d+\.\d+\.\d+[^\s]*/.exec(buf.subarray(at + needle.length, at + needle.length + 32).toString('latin1'))?.[0];
  let carry = Buffer.alloc(0);
  for await (const chunk of createReadStream(bin, { highWaterMark: 8 << 20 }) as AsyncIterable<Buffer>) {
    const buf = Buffer.concat([carry, chunk]);
    const at = buf.indexOf(needle);
    if (at >= 0 && at + needle.length + 32 <= buf.length) return version(buf, at);
    // keep what a needle (and its version) cut by the chunk's end needs
    carry = buf.subarray(at >= 0 ? at : Math.max(0, buf.length - needle.length - 32));
  }
  const at = carry.indexOf(needle);
  return at >= 0 ? version(carry, at) : undefined;
}

/** The folder of our build of CLI `version` against the pinned driver. */
const pinnedDir = (version: string) =>
  path.join(cacheDir(), `temporal-${version.slice(1)}-sqlite-${TEMPORAL_SQLITE_DRIVER.slice(1)}`);

/**
 * Builds CLI `version` with the pinned SQLite driver into `dir`: a throwaway module that requires both (Go's minimal
 * version selection takes the higher driver; the CLI's own go.mod has no replace directives to lose), then `go build`.
 */
async function buildPinned(go: string, version: string, dir: string, log: Log, signal?: AbortSignal) {
  const src = path.join(dir, 'src');
  mkdirSync(src, { recursive: true });
  writeFileSync(path.join(src, 'go.mod'), 'module apparel-mockup/temporal-dev\n\ngo 1.25\n');
  const opts = { env: { ...goEnv(dir), GOWORK: 'off' }, timeoutMs: 40 * 60_000, signal, cwd: src };
  log(
    `building the Temporal CLI ${version} with modernc.org/sqlite ${TEMPORAL_SQLITE_DRIVER} into ${dir} (one time, several minutes)`,
  );
  const got = await runTool(
    go,
    ['get', `github.com/temporalio/cli/cmd/temporal@${version}`, `modernc.org/sqlite@${TEMPORAL_SQLITE_DRIVER}`],
    opts,
  );
  if (got.status !== 0) return got;
  return runTool(go, ['build', '-o', path.join(dir, 'temporal'), 'github.com/temporalio/cli/cmd/temporal'], opts);
}

/**
 * Finds a `temporal` CLI: TEMPORAL_CLI_PATH (as given, with a warning if its SQLite driver has the interrupt bug),
 * then one on PATH whose driver is safe, then our cached build, then builds one (CLI tag + pinned driver) into the
 * cache. Only if no build is possible: an older cache entry or the SDK's download, with the same warning.
 */
export async function resolveTemporalCli(opts: { cliPath?: string; log: Log; signal?: AbortSignal }): Promise<string> {
  const { signal, log } = opts;
  const warnUnsafe = async (bin: string) => {
    const driver = await sqliteDriverOf(bin);
    if (!sqliteDriverIsSafe(driver))
      log(
        `warning: ${bin} is built with modernc.org/sqlite ${driver ?? '(unknown)'}: a cancelled call can leave its dev server answering "interrupted (9)" to everything until restarted (${SAFE_SQLITE_DRIVER} or later fixes it; see docs/development.md)`,
      );
  };
  if (opts.cliPath) {
    if (!(await works(opts.cliPath, signal)))
      throw new Error(`TEMPORAL_CLI_PATH=${opts.cliPath} is not a working temporal CLI`);
    await warnUnsafe(opts.cliPath);
    return opts.cliPath;
  }
  const fromPath = onPath('temporal');
  if (fromPath && (await works(fromPath, signal))) {
    if (sqliteDriverIsSafe(await sqliteDriverOf(fromPath))) return fromPath;
    log(`not using ${fromPath}: its SQLite driver has the interrupt bug (docs/development.md)`);
  }
  for (const v of FALLBACK_VERSIONS) {
    const cached = path.join(pinnedDir(v), 'temporal');
    if (existsSync(cached) && (await works(cached, signal))) return cached;
  }
  const go = goBinary();
  if (go) {
    for (const v of FALLBACK_VERSIONS) {
      const dir = pinnedDir(v);
      const r = await buildPinned(go, v, dir, log, signal);
      const built = path.join(dir, 'temporal');
      if (r.status === 0 && existsSync(built) && (await works(built, signal))) return built;
      log(
        `the build of temporal ${v} with modernc.org/sqlite ${TEMPORAL_SQLITE_DRIVER} failed (exit ${r.status ?? r.signal})`,
      );
    }
  }
  // No build: what an earlier version of this script installed (`go install` of the tag as it is), then the SDK.
  for (const v of FALLBACK_VERSIONS) {
    const cached = path.join(cacheDir(), `temporal-${v.slice(1)}`, 'temporal');
    if (existsSync(cached) && (await works(cached, signal))) {
      await warnUnsafe(cached);
      return cached;
    }
  }
  try {
    // Last resort, on machines with internet: let the SDK download a CLI release into our cache.
    const downloaded = await sdkDownload(path.join(cacheDir(), 'sdk-download'), log, signal);
    if (downloaded) {
      await warnUnsafe(downloaded);
      return downloaded;
    }
  } catch (err) {
    if (signal?.aborted) throw err;
    log(`the SDK could not download the Temporal CLI: ${(err as Error).message}`);
  }
  throw new Error(
    `No Temporal CLI found: install Go (>= 1.25) so that the Temporal CLI ${TEMPORAL_CLI_VERSION} can be built with modernc.org/sqlite ${TEMPORAL_SQLITE_DRIVER} (docs/development.md), put \`temporal\` on PATH, set TEMPORAL_CLI_PATH, or set TEMPORAL_ADDRESS to an existing server.`,
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

/** How many times startTemporalDev starts a dev server that ends before it is ready. */
export const TEMPORAL_DEV_START_ATTEMPTS = 3;

/**
 * Starts `temporal server start-dev`. With `dbFile` workflows survive a restart. Waits for the gRPC port with its
 * own deadline (the SDK's built-in start gives it only a few seconds, too little on a busy 2-core machine). A server
 * that ends before it is ready (a CI run once saw exit code 2, a Go panic, with nothing to tell why) is logged with
 * the end of its log and started again, up to TEMPORAL_DEV_START_ATTEMPTS times; the last failure rejects with that
 * log's end. A server that is not ready in time, or whose start `signal` cancels, is stopped before the call rejects.
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
  let proc: ChildProcess;
  try {
    for (let attempt = 1; ; attempt++) {
      opts.signal?.throwIfAborted();
      proc = spawn(opts.cli, args, { stdio: ['ignore', out, out], detached: false });
      try {
        await waitFor('Temporal dev server', 120_000, () => portOpen(opts.port), {
          proc,
          signal: opts.signal,
          logFile: opts.logFile,
        });
        break;
      } catch (err) {
        if (!(err instanceof ExitedBeforeReady) || attempt >= TEMPORAL_DEV_START_ATTEMPTS) throw err;
        opts.log(`${err.message}\nstarting it again (attempt ${attempt + 1} of ${TEMPORAL_DEV_START_ATTEMPTS})`);
      }
    }
  } finally {
    closeSync(out); // the server holds its own copy
  }
  const server = proc;
  return {
    address: `127.0.0.1:${opts.port}`,
    uiUrl: opts.uiPort ? `http://localhost:${opts.uiPort}` : undefined,
    stop: () => stopProcess(server, 'Temporal dev server', 15_000),
    // SIGKILL, for the chaos suite: nothing flushed beyond what SQLite's write-ahead log already holds
    kill: () => stopProcess(server, 'Temporal dev server', 0, 'SIGKILL'),
  };
}
