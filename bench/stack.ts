// The stack under benchmark, started like `npm start` does (scripts/dev-services.ts): embedded PostgreSQL and the
// Temporal dev server (state in a file, as npm start keeps it) in their own data folder and on free ports, so a
// running `npm start` is not disturbed; migrations and seed; then the worker and the API as child processes with
// the same entry points as npm start. Their JSON log lines are kept (request durations, the activity's per-step
// timings) and their memory is read from /proc/<pid>/status.
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
};

export type LogLine = Record<string, unknown> & { msg?: string; time?: string };

/** Log lines of one child process, written to a file and kept in memory when they matter to the benchmark. */
export class LogTap {
  readonly kept: LogLine[] = [];
  private readonly file: WriteStream;
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
      } catch {
        /* not a JSON line */
      }
    });
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
  pids: { worker?: number; api?: number };
  apiLog?: LogTap;
  workerLog?: LogTap;
  /** true when the benchmark started the stack (and so may stop it) */
  owned: boolean;
  stop(): Promise<void>;
}

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
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error(`the API was not ready within ${ms / 1000} s: ${last}`);
}

/** Starts the whole stack for the benchmark in `dataDir` (Temporal history is started fresh each run). */
export async function startBenchStack(opts: {
  dataDir: string;
  say: (m: string) => void;
  workerEnv?: Record<string, string>;
  temporalInMemory?: boolean;
}): Promise<BenchStack> {
  const { dataDir, say } = opts;
  mkdirSync(dataDir, { recursive: true });
  const services: RunningService[] = [];
  const children: { name: string; proc: ChildProcess }[] = [];
  const logs: { api?: LogTap; worker?: LogTap } = {};
  const stop = async () => {
    for (const c of [...children].reverse()) await stopProcess(c.proc, c.name, 20_000);
    logs.api?.close();
    logs.worker?.close();
    for (const s of [...services].reverse()) await s.stop().catch((e) => say(`stop failed: ${e}`));
  };
  try {
    let pgPort = await freePort();
    while (pgPort === 5432) pgPort = await freePort();
    say(`embedded PostgreSQL on 127.0.0.1:${pgPort} (cluster in ${path.join(dataDir, 'pg')})`);
    const pg = await startEmbeddedPostgres({
      dir: path.join(dataDir, 'pg'),
      port: pgPort,
      database: 'mockups',
      log: say,
    });
    services.push(pg);

    const cli = await resolveTemporalCli({ log: say });
    const temporalPort = await freePort();
    const dbFile = opts.temporalInMemory ? undefined : path.join(dataDir, 'temporal.db');
    if (dbFile) rmSync(dbFile, { force: true }); // a fresh history per run: the numbers do not depend on earlier runs
    say(
      `Temporal dev server on 127.0.0.1:${temporalPort} (${dbFile ? `state in ${dbFile}, as npm start keeps it` : 'in memory'})`,
    );
    const t = await startTemporalDev({
      cli,
      port: temporalPort,
      dbFile,
      logFile: path.join(dataDir, 'logs', 'temporal.log'),
      log: say,
    });
    services.push(t);

    const apiPort = await freePort();
    const baseUrl = `http://127.0.0.1:${apiPort}`;
    const env: Record<string, string> = {
      ...(process.env as Record<string, string>),
      NODE_ENV: 'development',
      LOG_LEVEL: 'info',
      DATABASE_URL: pg.url,
      TEMPORAL_ADDRESS: t.address,
      DATA_DIR: dataDir,
      HOST: '127.0.0.1',
      PORT: String(apiPort),
      PUBLIC_BASE_URL: baseUrl,
      TEMPORAL_TASK_QUEUE: 'mockups',
      ...LIFTED_LIMITS,
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

    logs.api = new LogTap(path.join(dataDir, 'logs', 'api.log'), (l) => l.msg === 'request' || l.level === 'error');
    logs.worker = new LogTap(
      path.join(dataDir, 'logs', 'worker.log'),
      (l) => l.msg === 'mockup rendered' || l.level === 'error',
    );
    for (const name of ['worker', 'api'] as const) {
      // as npm start (scripts/start.ts): glibc malloc tuned for image work unless the environment says otherwise
      const childEnv = { ...IMAGE_PROCESS_MALLOC_ENV, ...env, ...(name === 'worker' ? opts.workerEnv : {}) };
      const proc = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, name, 'main.ts')], {
        env: childEnv,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      logs[name]!.attach(proc.stdout!);
      logs[name]!.attach(proc.stderr!);
      children.push({ name, proc });
    }
    say('waiting for the worker and the API (the worker bundles the workflows first)');
    await waitForReady(
      baseUrl,
      children.map((c) => c.proc),
    );
    return {
      baseUrl,
      databaseUrl: pg.url,
      temporalAddress: t.address,
      namespace: config.temporal.namespace,
      dataDir,
      pids: { worker: children[0]!.proc.pid, api: children[1]!.proc.pid },
      apiLog: logs.api,
      workerLog: logs.worker,
      owned: true,
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
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
    `using the running stack at ${baseUrl}; its rate limits must be lifted (RATE_LIMIT_* env) or the load phases get 429s`,
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

/** CPU ms of every process below `root` (this benchmark), grouped: worker, api, temporal, postgres, bench, other. */
export function cpuByGroup(pids: BenchStack['pids']): Record<string, number> {
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
      const s = readFileSync(`/proc/${e}/stat`, 'utf8');
      const close = s.lastIndexOf(')');
      const comm = s.slice(s.indexOf('(') + 1, close);
      const f = s.slice(close + 2).split(' ');
      procs.push({
        pid: Number(e),
        ppid: Number(f[1]),
        comm,
        cpuMs: ((Number(f[11]) + Number(f[12])) * 1000) / CLK_TCK,
      });
    } catch {
      /* gone */
    }
  }
  const children = new Map<number, typeof procs>();
  for (const p of procs) (children.get(p.ppid) ?? children.set(p.ppid, []).get(p.ppid)!).push(p);
  const out: Record<string, number> = { worker: 0, api: 0, temporal: 0, postgres: 0, bench: 0 };
  const walk = (pid: number) => {
    for (const c of children.get(pid) ?? []) {
      const g =
        c.pid === pids.worker
          ? 'worker'
          : c.pid === pids.api
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
