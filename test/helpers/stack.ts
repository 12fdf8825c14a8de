// The real stack for integration tests: the run's PostgreSQL and Temporal server (started by scripts/test.ts),
// a Worker on a task queue unique to the test file, and the API listening on a random port. Tests talk HTTP.
import { spawn, type ChildProcess } from 'node:child_process';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Client, Connection, WorkflowNotFoundError } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import {
  bundleWorkflowCode,
  makeTelemetryFilterString,
  NativeConnection,
  Runtime,
  type Worker,
  type WorkflowBundle,
} from '@temporalio/worker';
import type { Activities } from '../../activities';
import { createApp } from '../../api/app';
import type { AppDeps } from '../../api/context';
import { createSql, type Sql } from '../../db/client';
import { loadConfig, type Config, type Env } from '../../lib/config';
import { randomSuffix } from '../../lib/ids';
import { createLogger, type Logger } from '../../lib/log';
import { createStorage, fileUrl, type Storage } from '../../lib/storage';
import { createWorkers } from '../../worker/create-worker';
import { sleep, waitUpTo } from './wait';

let bundlePromise: Promise<WorkflowBundle> | undefined;
let sharedSql: Sql | undefined;
let runtimeInstalled = false;

/** Workflows are bundled once per test run and shared by every Worker. */
export function workflowBundle(): Promise<WorkflowBundle> {
  bundlePromise ??= bundleWorkflowCode({
    workflowsPath: require.resolve('../../workflows'),
    logger: quietBundlerLogger,
  });
  return bundlePromise;
}

const quietBundlerLogger = {
  log: () => {},
  trace: () => {},
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: (m: string) => process.stderr.write(`[bundler] ${m}\n`),
};

/** Temporal's own logs only for errors: the test output stays readable. Call before creating any Worker. */
export function installQuietRuntime(): void {
  if (runtimeInstalled) return;
  // The SDK's native logs (e.g. poll retries while a test stops the Temporal server) go to that logger too.
  Runtime.install({
    logger: quietBundlerLogger,
    telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: 'ERROR' }), forward: {} } },
  });
  runtimeInstalled = true;
}

/**
 * For workflow tests with mocked activities: a worker connection and a client to the run's Temporal server, opened
 * in a `before` hook and closed in an `after` hook of the calling suite. Read the fields inside tests.
 */
export function useTemporalConnections(): { connection: NativeConnection; client: Client } {
  const conns = {} as { connection: NativeConnection; client: Client };
  let clientConnection: Connection | undefined;
  before(async () => {
    installQuietRuntime();
    conns.connection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS! });
    clientConnection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
    conns.client = new Client({ connection: clientConnection });
  });
  after(async () => {
    await conns.connection?.close();
    await clientConnection?.close();
  });
  return conns;
}

// Test files share a few keys across many calls; only the rate-limit tests run with the real (or lowered) limits.
const LIFTED_LIMITS = {
  RATE_LIMIT_PER_MINUTE: '1000000',
  RATE_LIMIT_PER_HOUR: '1000000',
  RATE_LIMIT_CONCURRENCY: '1000',
  RATE_LIMIT_GENERATE_PER_MINUTE: '1000000',
  RATE_LIMIT_ANALYZE_PER_MINUTE: '1000000',
  RATE_LIMIT_GARMENTS_PER_MINUTE: '1000000',
  RATE_LIMIT_UPLOAD_PER_MINUTE: '1000000',
  RATE_LIMIT_PREVIEW_PER_MINUTE: '1000000',
  AUTH_LOGIN_FAILURES_PER_EMAIL: '1000000',
  AUTH_LOGIN_FAILURES_PER_IP: '1000000',
  AUTH_SIGNUPS_PER_IP: '1000000',
  // every test file calls from 127.0.0.1: the per-IP account-change windows are tested with their defaults in
  // test/integration/account-safety.test.ts
  AUTH_EMAIL_CHANGES_PER_HOUR: '1000000',
  AUTH_PASSWORD_CHANGES_PER_HOUR: '1000000',
  AUTH_DELETIONS_PER_HOUR: '1000000',
  AUTH_EXPORTS_PER_HOUR: '1000000',
} as const;

export function testSql(): Sql {
  if (!process.env.DATABASE_URL) throw new Error('DATABASE_URL is not set: run the tests with `npm test`');
  sharedSql ??= createSql(process.env.DATABASE_URL, { max: 20 });
  return sharedSql;
}

export interface Stack {
  baseUrl: string;
  config: Config;
  sql: Sql;
  storage: Storage;
  client: Client;
  taskQueue: string;
  /** the environment the stack was started with besides the run's (StackOptions.env) */
  env: Partial<Record<keyof Env, string>>;
  /** the Worker on taskQueue (the one on the template queue, config.templates.taskQueue, runs beside it) */
  worker?: Worker;
  /** Starts (or restarts) the worker on this stack's task queue, with some activities replaced if given. */
  startWorker(activityOverrides?: Partial<Activities>): Promise<void>;
  /** Stops the worker, letting in-flight activities be cut off after `graceMs`. */
  stopWorker(): Promise<void>;
  stop(): Promise<void>;
}

export interface StackOptions {
  /** Start a Worker on the stack's task queue (default true). */
  worker?: boolean;
  env?: Partial<Record<keyof Env, string>>;
  log?: Logger;
}

/** One stack per test file: call in before(), stop in after(). */
export async function startStack(name: string, opts: StackOptions = {}): Promise<Stack> {
  installQuietRuntime();
  const taskQueue = `test-${name}-${randomSuffix(6)}`;
  const config = loadConfig(process.env, { TEMPORAL_TASK_QUEUE: taskQueue, PORT: '0', ...LIFTED_LIMITS, ...opts.env });
  const log = opts.log ?? createLogger({ level: (process.env.LOG_LEVEL as 'warn') ?? 'warn', base: { test: name } });
  const sql = testSql();
  const storage = createStorage(config);
  const connection = await Connection.connect({ address: config.temporal.address! });
  const client = new Client({ connection, namespace: config.temporal.namespace });

  const server: Server = await new Promise((resolve) => {
    const s = createApp({ config, sql, storage, temporal: client, log }).listen(0, '127.0.0.1', () => resolve(s));
  });
  const port = (server.address() as AddressInfo).port;
  const baseUrl = `http://127.0.0.1:${port}`;
  // URLs in responses must point at this server.
  config.publicBaseUrl = baseUrl;

  let nativeConnection: NativeConnection | undefined;
  let running: Promise<unknown> | undefined;
  let others: Worker[] = [];
  const stack: Stack = {
    baseUrl,
    config,
    sql,
    storage,
    client,
    taskQueue,
    env: { ...opts.env },
    async startWorker(activityOverrides?: Partial<Activities>) {
      nativeConnection ??= await NativeConnection.connect({ address: config.temporal.address! });
      const [worker, ...rest] = await createWorkers({
        connection: nativeConnection,
        taskQueue,
        config,
        sql,
        storage,
        log,
        temporal: client,
        workflowBundle: await workflowBundle(),
        shutdownGraceTime: '1 second',
        ...(activityOverrides ? { activityOverrides } : {}),
      });
      stack.worker = worker!;
      others = rest;
      running = Promise.all([worker!, ...rest].map((w) => w.run()));
      // Wait until the server has seen the worker poll (what /readyz reports), so tests do not race its start.
      await waitUpTo(
        async () => {
          if (worker!.getState() !== 'RUNNING') return false;
          const q = await client.workflowService.describeTaskQueue({
            namespace: config.temporal.namespace,
            taskQueue: { name: taskQueue, kind: temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
            taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
          });
          return (q.pollers ?? []).length > 0;
        },
        { ms: 20_000, every: 50 },
      );
    },
    async stopWorker() {
      if (!stack.worker) return;
      for (const w of [stack.worker, ...others]) if (w.getState() === 'RUNNING') w.shutdown();
      await running?.catch(() => {});
      stack.worker = undefined;
      others = [];
      running = undefined;
    },
    async stop() {
      await stack.stopWorker();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      await nativeConnection?.close();
      await connection.close();
    },
  };
  if (opts.worker !== false) await stack.startWorker();
  return stack;
}

/** A design image put straight into the stack's storage (as an upload's file would be); its URL for designUrl. */
export async function storeDesign(stack: Pick<Stack, 'storage' | 'config'>, png: Buffer): Promise<string> {
  const key = `test-designs/${randomSuffix()}.png`;
  await stack.storage.put(key, png, 'image/png');
  return fileUrl(stack.config, key);
}

/** Terminates the workflows a test started (those still running; the others are left as they are). */
export async function terminateStarted(client: Client, workflowIds: Iterable<string>): Promise<void> {
  for (const id of workflowIds)
    await client.workflow
      .getHandle(id)
      .terminate('test done')
      .catch(() => {});
}

/**
 * A Temporal client for an API process whose Temporal is down: every call fails the way the SDK fails when the
 * server cannot be reached (gRPC status 14, UNAVAILABLE).
 */
export function unreachableTemporal(): Client {
  const fail = async () => {
    throw Object.assign(new Error('14 UNAVAILABLE: No connection established'), { code: 14 });
  };
  return {
    workflow: { start: fail, getHandle: () => ({ result: fail, describe: fail }) },
    withDeadline: (_deadline: number | Date, fn: () => Promise<unknown>) => fn(),
  } as unknown as Client;
}

/**
 * The result of a workflow that is started after an answer (inbound events): waits for it to exist, then for its
 * result.
 */
export async function workflowResultWhenStarted<T = unknown>(
  client: Client,
  workflowId: string,
  ms = 30_000,
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    try {
      return (await client.workflow.getHandle(workflowId).result()) as T;
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError) || Date.now() > end) throw err;
      await sleep(50);
    }
  }
}

/**
 * An object a suite names before its `before` hook made it: `ref` reads (and writes) through to the value given to
 * `set`, so a suite can declare `const stack = useStack(...)` at the top and use it in its tests; reading it before
 * the hook ran throws.
 */
export function lateBound<T extends object>(what: string): { ref: T; set(value: T): void; get(): T | undefined } {
  let target: T | undefined;
  const real = (): T => {
    if (!target) throw new Error(`${what} is used before the before() hook made it`);
    return target;
  };
  const ref = new Proxy({} as T, {
    get: (_, key) => Reflect.get(real(), key),
    set: (_, key, v) => Reflect.set(real(), key, v),
    has: (_, key) => Reflect.has(real(), key),
    // so that `{ ...ref }` copies the value's own fields
    ownKeys: () => Reflect.ownKeys(real()),
    getOwnPropertyDescriptor: (_, key) => {
      const d = Reflect.getOwnPropertyDescriptor(real(), key);
      return d && { ...d, configurable: true };
    },
  });
  return { ref, set: (v) => void (target = v), get: () => target };
}

/** One stack for the calling suite: started in its `before` hook, stopped in its `after` hook. */
export function useStack(name: string, opts: StackOptions = {}): Stack {
  const s = lateBound<Stack>(`the stack '${name}'`);
  before(async () => s.set(await startStack(name, opts)));
  after(async () => s.get()?.stop());
  return s.ref;
}

const ROOT = path.resolve(__dirname, '../..');

/**
 * The real worker process (worker/main.ts) on the stack's task queue, with the run's environment and `env` (often
 * `stack.env`, the stack's own): what a crash test kills mid-work. Its output goes nowhere but its errors.
 */
export function spawnWorkerProcess(
  stack: Pick<Stack, 'taskQueue' | 'baseUrl'>,
  env: Partial<Record<keyof Env, string>> = {},
): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'worker/main.ts')], {
    cwd: ROOT,
    env: {
      ...process.env,
      ...env,
      TEMPORAL_TASK_QUEUE: stack.taskQueue,
      PUBLIC_BASE_URL: stack.baseUrl,
      ALLOW_PRIVATE_URLS: 'true',
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

/** Kills a process without warning (SIGKILL) and waits until it is gone. */
export async function killNow(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await exited;
}

/**
 * Serves a second API on the stack (its database, storage and config) with another Temporal client while `run` runs
 * with its base URL: one whose connection is closed (the frontend down), unreachableTemporal(), or one whose answers
 * are lost.
 */
export function withApiOn<T>(stack: Stack, temporal: Client, run: (baseUrl: string) => Promise<T>): Promise<T> {
  return withApp({ ...stack, temporal, log: createLogger({ level: 'error' }) }, run);
}

/**
 * Serves another API (createApp) made of `deps` on a port of its own while `run` runs with its base URL: a database
 * that fails, a production config, a log the test reads.
 */
export async function withApp<T>(deps: AppDeps, run: (baseUrl: string) => Promise<T>): Promise<T> {
  const app = createApp(deps);
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  try {
    return await run(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  } finally {
    server.closeAllConnections();
    server.close();
  }
}
