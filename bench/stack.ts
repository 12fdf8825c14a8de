// The stack under benchmark, started like `npm start` does (scripts/dev-services.ts): embedded PostgreSQL and the
// Temporal dev server (state in a file, as npm start keeps it) in their own data folder and on free ports, so a
// running `npm start` is not disturbed; migrations and seed; then the worker and the API as child processes with
// the same entry points as npm start. Their JSON log lines are kept (request durations, the activity's per-step
// timings) and their memory is read from /proc/<pid>/status.
// startCluster runs several APIs (behind a small load balancer for PUBLIC_BASE_URL) and workers on one PostgreSQL
// and one Temporal server, each process killable and restartable, and PostgreSQL and Temporal restartable: the
// scale-out benchmark (bench/scale.ts) and the chaos suite (test/chaos/) use it; startBenchStack is one of each.
import { spawn, type ChildProcess } from 'node:child_process';
import {
  createWriteStream,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
  type WriteStream,
} from 'node:fs';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { createSql } from '../db/client';
import { migrate } from '../db/migrate';
import { seed } from '../db/seed';
import { loadConfig } from '../lib/config';
import { createLogger } from '../lib/log';
import { createStorage } from '../lib/storage';
import {
  cacheDir,
  freePort,
  IMAGE_PROCESS_MALLOC_ENV,
  resolveTemporalCli,
  startEmbeddedPostgres,
  startTemporalDev,
  stopProcess,
  type RunningService,
} from '../scripts/dev-services';

const ROOT = path.resolve(__dirname, '..');

/** Limits lifted for the run: the benchmark measures the service, not its rate limiter refusing the load. */
export const LIFTED_LIMITS: Record<string, string> = {
  RATE_LIMIT_PER_MINUTE: '10000000',
  RATE_LIMIT_PER_HOUR: '10000000',
  RATE_LIMIT_CONCURRENCY: '10000',
  RATE_LIMIT_GENERATE_PER_MINUTE: '10000000',
  RATE_LIMIT_ANALYZE_PER_MINUTE: '10000000',
  RATE_LIMIT_GARMENTS_PER_MINUTE: '10000000',
  RATE_LIMIT_UPLOAD_PER_MINUTE: '10000000',
  RATE_LIMIT_PREVIEW_PER_MINUTE: '10000000',
  AUTH_SIGNUPS_PER_IP: '10000000',
  // the benchmark account uploads ~90 distinct 2400x3000 designs (~12 MB each with their prepared levels)
  STORAGE_QUOTA_BYTES: String(64 * 1024 ** 3),
};

export type LogLine = Record<string, unknown> & { msg?: string; time?: string };

/** Log lines of one child process, written to a file and kept in memory when they matter to the benchmark. */
export class LogTap {
  readonly kept: LogLine[] = [];
  private readonly file: WriteStream;
  private readonly listeners = new Set<(l: LogLine) => void>();
  constructor(
    file: string,
    private readonly keep: (l: LogLine) => boolean,
  ) {
    mkdirSync(path.dirname(file), { recursive: true });
    this.file = createWriteStream(file, { flags: 'w' });
  }
  attach(stream: NodeJS.ReadableStream): void {
    createInterface({ input: stream }).on('line', (line) => {
      this.file.write(line + '\n');
      if (!line.startsWith('{')) return;
      try {
        const l = JSON.parse(line) as LogLine;
        if (this.keep(l)) this.kept.push(l);
        for (const f of this.listeners) f(l);
      } catch {
        /* not a JSON line */
      }
    });
  }
  /** Calls `f` with every JSON line from now on. */
  listen(f: (l: LogLine) => void): void {
    this.listeners.add(f);
  }
  close(): void {
    this.file.end();
  }
}

/** Resident memory of a process from /proc: current, and the peak since start or since resetPeak(). */
export function memoryOf(pid: number): { rssMiB: number; hwmMiB: number } | null {
  try {
    const s = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(s)?.[1] ?? NaN);
    return { rssMiB: Math.round(kb('VmRSS') / 102.4) / 10, hwmMiB: Math.round(kb('VmHWM') / 102.4) / 10 };
  } catch {
    return null;
  }
}

/** Resets the kernel's peak-RSS counter (VmHWM) of a process we own, so a phase's peak can be read after it. */
export function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

export interface BenchStack {
  baseUrl: string;
  databaseUrl: string;
  temporalAddress: string;
  namespace: string;
  dataDir: string;
  pids: { worker?: number; api?: number; apis?: number[] };
  apiLog?: LogTap;
  /**
   * A second API on the same database, Temporal and worker with the rate limits lifted (LIFTED_LIMITS), when the
   * benchmark started the stack: `baseUrl` then serves as `npm start` does, every limit on.
   */
  lifted?: { baseUrl: string; pid?: number; log: LogTap };
  workerLog?: LogTap;
  /** true when the benchmark started the stack (and so may stop it) */
  owned: boolean;
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitForReady(baseUrl: string, children: ChildProcess[], ms = 180_000): Promise<void> {
  const until = Date.now() + ms;
  let last = '';
  while (Date.now() < until) {
    for (const c of children)
      if (c.exitCode !== null)
        throw new Error(`a child process exited with code ${c.exitCode} during start-up (see the logs)`);
    try {
      const res = await fetch(`${baseUrl}/readyz`);
      if (res.ok) return;
      last = `${res.status} ${await res.text()}`;
    } catch (err) {
      last = (err as Error).message;
    }
    await sleep(300);
  }
  throw new Error(`the API was not ready within ${ms / 1000} s: ${last}`);
}

/** One API or worker process of a cluster: the same entry points as npm start, killed and started again at will. */
export class AppProcess {
  proc: ChildProcess | undefined;
  /** exits the cluster did not ask for: a crash (`afterStart`) or a failed start, with the time and the exit status */
  readonly unplannedExits: { at: number; code: number | null; signal: string | null; afterStart: boolean }[] = [];
  private planned = false;
  private readyWaiters: (() => void)[] = [];
  private started = false;
  private restartTimer: NodeJS.Timeout | undefined;
  private supervising = true;

  constructor(
    readonly name: string,
    readonly kind: 'api' | 'worker',
    private readonly env: Record<string, string>,
    readonly log: LogTap,
    /** the API's own port (APIs only) */
    readonly port: number | undefined,
    /** start it again after an exit nobody asked for, as a process manager would */
    private readonly supervise: boolean,
    private readonly say: (m: string) => void,
  ) {
    log.listen((l) => {
      if (l.msg === 'worker started' || l.msg === 'api listening') {
        this.started = true;
        for (const w of this.readyWaiters.splice(0)) w();
      }
    });
  }

  /** The API's own address (APIs only). */
  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get pid(): number | undefined {
    return this.proc?.pid;
  }

  get running(): boolean {
    return !!this.proc && this.proc.exitCode === null && this.proc.signalCode === null;
  }

  /** Spawns the process (again); `ready()` resolves once it says it is listening or polling. */
  spawn(): void {
    if (this.running) return;
    clearTimeout(this.restartTimer);
    this.planned = false;
    this.started = false;
    const flags = (process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean); // experiments (bench/run.ts)
    const proc = spawn(process.execPath, [...flags, '--import', 'tsx', path.join(ROOT, this.kind, 'main.ts')], {
      env: this.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.log.attach(proc.stdout!);
    this.log.attach(proc.stderr!);
    proc.once('exit', (code, signal) => {
      if (this.planned || !this.supervising) return;
      this.unplannedExits.push({ at: Date.now(), code, signal, afterStart: this.started });
      if (!this.supervise) return;
      this.say(`${this.name} exited on its own (code ${code}, signal ${signal}); starting it again in 1 s`);
      this.restartTimer = setTimeout(() => this.spawn(), 1000);
    });
    this.proc = proc;
  }

  /** Resolves when the current process has started (log line), rejects after `ms`. */
  async ready(ms = 180_000): Promise<void> {
    if (this.started && this.running) return;
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        new Promise<void>((r) => this.readyWaiters.push(r)),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`${this.name} did not start within ${ms / 1000} s`)), ms);
        }),
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Sends `signal` (SIGKILL by default: no graceful shutdown, nothing flushed) and waits for the exit. */
  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    clearTimeout(this.restartTimer);
    if (!this.proc || !this.running) return;
    this.planned = true;
    await stopProcess(this.proc, this.name, signal === 'SIGKILL' ? 0 : 20_000, signal);
  }

  /** Graceful stop for good (SIGTERM, SIGKILL after 20 s); no supervision afterwards. */
  async stop(): Promise<void> {
    this.supervising = false;
    await this.kill('SIGTERM');
  }
}

/**
 * A small round-robin HTTP load balancer in this process, in front of several APIs: what PUBLIC_BASE_URL points at
 * when a cluster has more than one API (file URLs, OAuth redirects). A backend that refuses the connection is
 * skipped for the next one, as a load balancer's health check would.
 */
export async function startBalancer(
  backends: () => string[],
): Promise<{ url: string; stop(): Promise<void>; served: Map<string, number> }> {
  let next = 0;
  const served = new Map<string, number>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const list = backends();
      const attempt = (tries: number) => {
        if (tries >= list.length || list.length === 0) {
          if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
          res.end('no API answered');
          return;
        }
        const target = new URL(list[next++ % list.length]!);
        const out = httpRequest(
          {
            host: target.hostname,
            port: target.port,
            method: req.method,
            path: req.url,
            headers: { ...req.headers, host: target.host },
          },
          (up) => {
            served.set(target.origin, (served.get(target.origin) ?? 0) + 1);
            res.writeHead(up.statusCode ?? 502, up.headers);
            up.pipe(res);
          },
        );
        out.on('error', (err: NodeJS.ErrnoException) => {
          if (err.code === 'ECONNREFUSED' && !res.headersSent) attempt(tries + 1);
          else res.destroy();
        });
        out.end(body);
      };
      attempt(0);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    served,
    stop: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

export interface ClusterOptions {
  dataDir: string;
  say: (m: string) => void;
  /** API processes (default 1); with more than one, PUBLIC_BASE_URL is a load balancer in this process */
  apis?: number;
  /** worker processes (default 1), all on the same task queue */
  workers?: number;
  /** environment of every API and worker on top of the defaults (after `limits`) */
  env?: Record<string, string>;
  /** environment of the workers only */
  workerEnv?: Record<string, string>;
  /** each worker with its Prometheus endpoint on a free port, as npm start gives it (default true; workerEnv wins) */
  workerMetrics?: boolean;
  /** rate limits for the run (default LIFTED_LIMITS) */
  limits?: Record<string, string>;
  /**
   * More APIs with environments of their own on top of the cluster's (e.g. other limits), each on its own port, not
   * behind the load balancer; PUBLIC_BASE_URL stays the cluster's, so file URLs are the same on all of them.
   */
  extraApis?: { name: string; env: Record<string, string> }[];
  temporalInMemory?: boolean;
  /** start a process again after an exit the cluster did not ask for (default false) */
  supervise?: boolean;
  /** log lines kept in memory (default: request lines, rendered mockups and errors) */
  keepLog?: (l: LogLine, kind: 'api' | 'worker') => boolean;
}

/** Several APIs and workers on one PostgreSQL and one Temporal dev server, each of which can be restarted. */
export interface Cluster {
  /** PUBLIC_BASE_URL: the only API, or the load balancer in front of them */
  baseUrl: string;
  databaseUrl: string;
  temporalAddress: string;
  namespace: string;
  taskQueue: string;
  dataDir: string;
  apis: AppProcess[];
  workers: AppProcess[];
  /** the `extraApis`, in order */
  extraApis: AppProcess[];
  /** the environment every process was started with */
  env: Record<string, string>;
  /** stops PostgreSQL (fast shutdown: connections are cut), waits `downMs`, starts it again on the same cluster */
  restartPostgres(downMs: number): Promise<void>;
  /** SIGKILLs the Temporal dev server, waits `downMs`, starts it again on the same database file and port */
  restartTemporal(downMs: number): Promise<void>;
  stop(): Promise<void>;
}

const DEFAULT_KEEP = (l: LogLine, kind: 'api' | 'worker') =>
  (kind === 'api' ? l.msg === 'request' : l.msg === 'mockup rendered') || l.level === 'error';

/** Starts PostgreSQL (embedded, in dataDir/pg), the Temporal dev server, migrations and seed, then the processes. */
export async function startCluster(opts: ClusterOptions): Promise<Cluster> {
  const { dataDir, say } = opts;
  const nApis = opts.apis ?? 1;
  const nWorkers = opts.workers ?? 1;
  mkdirSync(dataDir, { recursive: true });
  const services: { stop(): Promise<void> }[] = [];
  const processes: AppProcess[] = [];
  const logs: LogTap[] = [];
  let balancer: Awaited<ReturnType<typeof startBalancer>> | undefined;
  let pg: RunningService & { url: string };
  let temporalServer: Awaited<ReturnType<typeof startTemporalDev>>;
  const stop = async () => {
    for (const p of [...processes].reverse()) await p.stop();
    for (const l of logs) l.close();
    await balancer?.stop();
    for (const s of [...services].reverse()) await s.stop().catch((e) => say(`stop failed: ${e}`));
  };
  try {
    let pgPort = await freePort();
    while (pgPort === 5432) pgPort = await freePort();
    const pgOpts = { dir: path.join(dataDir, 'pg'), port: pgPort, database: 'mockups', log: say };
    say(`embedded PostgreSQL on 127.0.0.1:${pgPort} (cluster in ${pgOpts.dir})`);
    pg = await startEmbeddedPostgres(pgOpts);
    services.push({ stop: () => pg.stop() });

    const cli = await resolveTemporalCli({ log: say });
    const temporalPort = await freePort();
    const dbFile = opts.temporalInMemory ? undefined : path.join(dataDir, 'temporal.db');
    if (dbFile) for (const f of [dbFile, `${dbFile}-wal`, `${dbFile}-shm`]) rmSync(f, { force: true }); // fresh history
    say(
      `Temporal dev server on 127.0.0.1:${temporalPort} (${dbFile ? `state in ${dbFile}, as npm start keeps it` : 'in memory'})`,
    );
    const temporalOpts = {
      cli,
      port: temporalPort,
      dbFile,
      logFile: path.join(dataDir, 'logs', 'temporal.log'),
      log: say,
    };
    temporalServer = await startTemporalDev(temporalOpts);
    services.push({ stop: () => temporalServer.stop() });

    const extras = opts.extraApis ?? [];
    const apiPorts = await Promise.all(Array.from({ length: nApis + extras.length }, () => freePort()));
    const apiUrls = apiPorts.map((p) => `http://127.0.0.1:${p}`);
    if (nApis > 1) {
      const extraNames = new Set(extras.map((x) => x.name));
      balancer = await startBalancer(() =>
        processes.filter((p) => p.kind === 'api' && p.running && !extraNames.has(p.name)).map((p) => p.url),
      );
      say(`load balancer in front of ${nApis} APIs at ${balancer.url}`);
    }
    const baseUrl = balancer?.url ?? apiUrls[0]!;
    const taskQueue = opts.env?.TEMPORAL_TASK_QUEUE ?? 'mockups';
    const env: Record<string, string> = {
      ...(process.env as Record<string, string>),
      NODE_ENV: 'development',
      LOG_LEVEL: 'info',
      DATABASE_URL: pg.url,
      TEMPORAL_ADDRESS: temporalServer.address,
      DATA_DIR: dataDir,
      HOST: '127.0.0.1',
      PUBLIC_BASE_URL: baseUrl,
      TEMPORAL_TASK_QUEUE: taskQueue,
      ...(opts.limits ?? LIFTED_LIMITS),
      ...opts.env,
    };
    delete env.TEMPORAL_UI_URL;
    const config = loadConfig(env);
    env.APP_SECRET = config.appSecret;

    const sql = createSql(pg.url, { max: 4 });
    try {
      await migrate(sql);
      const t0 = Date.now();
      const r = await seed({
        sql,
        storage: createStorage(config),
        log: createLogger({ level: 'warn' }),
        renderCacheDir: path.join(cacheDir(), 'blanks'),
      });
      say(`migrated and seeded in ${((Date.now() - t0) / 1000).toFixed(1)} s (${r.blanksRendered} blanks rendered)`);
    } finally {
      await sql.end();
    }

    const keep = opts.keepLog ?? DEFAULT_KEEP;
    const workerMetricsPorts = await Promise.all(Array.from({ length: nWorkers }, () => freePort()));
    const make = (
      kind: 'api' | 'worker',
      i: number,
      n: number,
      extra?: { name: string; env: Record<string, string> },
    ) => {
      const name = extra?.name ?? (n > 1 ? `${kind}-${i + 1}` : kind);
      const log = new LogTap(path.join(dataDir, 'logs', `${name}.log`), (l) => keep(l, kind));
      logs.push(log);
      // as npm start (scripts/start.ts): glibc malloc tuned for image work unless the environment says otherwise
      const childEnv = {
        ...IMAGE_PROCESS_MALLOC_ENV,
        ...env,
        // the worker's Prometheus endpoint, as npm start gives it (the SDK's metrics and ours are then recorded)
        ...(kind === 'worker' && opts.workerMetrics !== false
          ? { WORKER_METRICS_ADDRESS: `127.0.0.1:${workerMetricsPorts[i]}` }
          : {}),
        ...(kind === 'api' ? { PORT: String(apiPorts[i]) } : opts.workerEnv),
        ...extra?.env,
      };
      const p = new AppProcess(
        name,
        kind,
        childEnv,
        log,
        kind === 'api' ? apiPorts[i] : undefined,
        !!opts.supervise,
        say,
      );
      processes.push(p);
      return p;
    };
    const workers = Array.from({ length: nWorkers }, (_, i) => make('worker', i, nWorkers));
    const apis = Array.from({ length: nApis }, (_, i) => make('api', i, nApis));
    const extraApis = extras.map((x, i) => make('api', nApis + i, nApis, x));
    for (const p of [...workers, ...apis, ...extraApis]) p.spawn();
    say(
      `waiting for ${nWorkers} worker(s) and ${nApis + extraApis.length} API(s) (each worker bundles the workflows first)`,
    );
    await Promise.all([...workers, ...apis, ...extraApis].map((p) => p.ready()));
    await waitForReady(
      apiUrls[0]!,
      processes.map((p) => p.proc!),
    );
    return {
      baseUrl,
      databaseUrl: pg.url,
      temporalAddress: temporalServer.address,
      namespace: config.temporal.namespace,
      taskQueue,
      dataDir,
      apis,
      workers,
      extraApis,
      env,
      async restartPostgres(downMs: number) {
        await pg.stop();
        await sleep(downMs);
        pg = await startEmbeddedPostgres(pgOpts);
      },
      async restartTemporal(downMs: number) {
        await temporalServer.kill();
        await sleep(downMs);
        temporalServer = await startTemporalDev(temporalOpts);
      },
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** Starts the whole stack for the benchmark in `dataDir` (Temporal history is started fresh each run). */
export async function startBenchStack(opts: {
  dataDir: string;
  say: (m: string) => void;
  workerEnv?: Record<string, string>;
  temporalInMemory?: boolean;
  /**
   * The API as `npm start` serves (every rate limit at its default) and a second API with the limits lifted
   * (`lifted`), both on the same database, Temporal server and worker. Without it: one API, limits lifted.
   */
  limitsOn?: boolean;
}): Promise<BenchStack> {
  const c = await startCluster({
    ...opts,
    apis: 1,
    workers: 1,
    ...(opts.limitsOn ? { limits: {}, extraApis: [{ name: 'api-lifted', env: LIFTED_LIMITS }] } : {}),
  });
  const lifted = c.extraApis[0];
  return {
    baseUrl: c.baseUrl,
    databaseUrl: c.databaseUrl,
    temporalAddress: c.temporalAddress,
    namespace: c.namespace,
    dataDir: c.dataDir,
    lifted: lifted && { baseUrl: lifted.url, pid: lifted.pid, log: lifted.log },
    pids: {
      worker: c.workers[0]!.pid,
      api: c.apis[0]!.pid,
      apis: [c.apis[0]!.pid, lifted?.pid].filter((p): p is number => p !== undefined),
    },
    apiLog: c.apis[0]!.log,
    workerLog: c.workers[0]!.log,
    owned: true,
    stop: () => c.stop(),
  };
}

/** A stack someone else runs (BENCH_BASE_URL): DATABASE_URL and TEMPORAL_ADDRESS are needed for tokens and history. */
export function externalStack(say: (m: string) => void): BenchStack {
  const baseUrl = process.env.BENCH_BASE_URL!.replace(/\/+$/, '');
  const databaseUrl = process.env.DATABASE_URL;
  const temporalAddress = process.env.TEMPORAL_ADDRESS;
  if (!databaseUrl || !temporalAddress) {
    throw new Error(
      'BENCH_BASE_URL needs DATABASE_URL (to grant the benchmark account its tokens) and TEMPORAL_ADDRESS (workflow histories) of that stack',
    );
  }
  const pid = (v: string | undefined) => (v && /^\d+$/.test(v) ? Number(v) : undefined);
  say(
    `using the running stack at ${baseUrl}; its rate limits must be lifted (RATE_LIMIT_* env) or the load phases get 429s, and STORAGE_QUOTA_BYTES raised to a few GiB or the uploads get 413s`,
  );
  return {
    baseUrl,
    databaseUrl,
    temporalAddress,
    namespace: process.env.TEMPORAL_NAMESPACE ?? 'default',
    dataDir: '',
    pids: { worker: pid(process.env.BENCH_WORKER_PID), api: pid(process.env.BENCH_API_PID) },
    owned: false,
    stop: async () => {},
  };
}

// ------------------------------------------------------------------ CPU accounting

const CLK_TCK = 100; // Linux USER_HZ

/** A process's or thread's /proc stat file (`/proc/<pid>/stat`, `/proc/<pid>/task/<tid>/stat`): its parent, name and
 * CPU ms (user + system). Throws when it is gone. */
export function readProcStat(file: string): { ppid: number; comm: string; cpuMs: number } {
  const s = readFileSync(file, 'utf8');
  const close = s.lastIndexOf(')');
  const f = s.slice(close + 2).split(' ');
  return {
    ppid: Number(f[1]),
    comm: s.slice(s.indexOf('(') + 1, close),
    cpuMs: ((Number(f[11]) + Number(f[12])) * 1000) / CLK_TCK,
  };
}

/**
 * CPU ms of every process below this one (the benchmark), grouped: worker, api, temporal, postgres, bench. `pids`
 * names the worker and API processes (one each, or lists of them for a cluster).
 */
export function cpuByGroup(pids: BenchStack['pids'] & { workers?: number[]; apis?: number[] }): Record<string, number> {
  const workers = new Set([...(pids.workers ?? []), ...(pids.worker ? [pids.worker] : [])]);
  const apis = new Set([...(pids.apis ?? []), ...(pids.api ? [pids.api] : [])]);
  const procs: { pid: number; ppid: number; comm: string; cpuMs: number }[] = [];
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return {};
  }
  for (const e of entries) {
    if (!/^\d+$/.test(e)) continue;
    try {
      procs.push({ pid: Number(e), ...readProcStat(`/proc/${e}/stat`) });
    } catch {
      /* gone */
    }
  }
  const children = new Map<number, typeof procs>();
  for (const p of procs) (children.get(p.ppid) ?? children.set(p.ppid, []).get(p.ppid)!).push(p);
  const out: Record<string, number> = { worker: 0, api: 0, temporal: 0, postgres: 0, bench: 0 };
  const walk = (pid: number) => {
    for (const c of children.get(pid) ?? []) {
      const g = workers.has(c.pid)
        ? 'worker'
        : apis.has(c.pid)
          ? 'api'
          : /temporal/.test(c.comm)
            ? 'temporal'
            : /postgres|postmaster/.test(c.comm)
              ? 'postgres'
              : 'bench';
      out[g] = (out[g] ?? 0) + c.cpuMs;
      walk(c.pid);
    }
  };
  const self = procs.find((p) => p.pid === process.pid);
  out.bench = self?.cpuMs ?? 0;
  walk(process.pid);
  return out;
}

/** Machine-wide CPU ms (busy, all cores) from /proc/stat. */
export function machineBusyMs(): number {
  try {
    const f = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    const total = f.reduce((a, b) => a + b, 0);
    const idle = (f[3] ?? 0) + (f[4] ?? 0);
    return ((total - idle) * 1000) / CLK_TCK;
  } catch {
    return NaN;
  }
}
