// Process helpers shared by the local stand-ins (scripts/stand-ins/{postgres,temporal,minio,stripe-mock}.ts): ports,
// readiness waits, stopping a child process, building a Go tool into the cache, finding binaries.
// Every wait here (a server becoming ready, a `go install` build) takes an optional AbortSignal: when it aborts, the
// wait ends at once, the processes this step started are stopped (bounded), and the call rejects with the signal's
// reason.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, fstatSync, openSync, readSync } from 'node:fs';
import { createConnection } from 'node:net';
import os from 'node:os';
import path from 'node:path';

export interface RunningService {
  stop(): Promise<void>;
}

export type Log = (msg: string) => void;

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
export function sleepMs(ms: number, signal?: AbortSignal, unref = true): Promise<void> {
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
export const ABORT_GRACE_MS = 5_000;

/**
 * The last `maxLines` lines of a log file (of its last 8 KiB at most); '' when there is none. What a server that
 * stopped at start-up printed last is usually why.
 */
export function logTail(file: string, maxLines = 20): string {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const size = fstatSync(fd).size;
    const buf = Buffer.alloc(Math.min(size, 8192));
    readSync(fd, buf, 0, buf.length, size - buf.length);
    const lines = buf.toString('utf8').split('\n');
    if (buf.length < size) lines.shift(); // a line cut by the window's start
    return lines
      .filter((l) => l.trim() !== '')
      .slice(-maxLines)
      .join('\n');
  } catch {
    return '';
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** A server process that ended before it was ready: how it ended, and the end of its log (read when made). */
export class ExitedBeforeReady extends Error {
  readonly tail: string;

  constructor(
    readonly what: string,
    readonly code: number | null,
    readonly signalName: NodeJS.Signals | null,
    readonly logFile?: string,
  ) {
    const tail = logFile ? logTail(logFile) : '';
    const how = code !== null ? `with code ${code}` : `on signal ${signalName}`;
    const log = !logFile
      ? ''
      : tail
        ? `; the end of its log (${logFile}):\n${tail.replace(/^/gm, '  | ')}`
        : `; its log (${logFile}) is empty`;
    super(`${what} exited ${how} before it was ready${log}`);
    this.name = 'ExitedBeforeReady';
    this.tail = tail;
  }
}

/**
 * Waits until `probe` answers true, `deadlineMs` has passed, `signal` aborts or `proc` (the server being waited for)
 * ends. A server that ended rejects with ExitedBeforeReady, which quotes the end of `logFile`; one that was not ready
 * in time, or whose start was cancelled, is stopped before the call rejects.
 */
export async function waitFor(
  what: string,
  deadlineMs: number,
  probe: () => Promise<boolean>,
  opts: { proc?: ChildProcess; signal?: AbortSignal; logFile?: string } = {},
): Promise<void> {
  const { proc, signal } = opts;
  const until = Date.now() + deadlineMs;
  try {
    while (Date.now() < until) {
      signal?.throwIfAborted();
      if (proc && (proc.exitCode !== null || proc.signalCode !== null))
        throw new ExitedBeforeReady(what, proc.exitCode, proc.signalCode, opts.logFile);
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
export function runTool(
  cmd: string,
  args: string[],
  opts: { env: NodeJS.ProcessEnv; timeoutMs: number; signal?: AbortSignal; cwd?: string },
): Promise<{ status: number | null; signal: NodeJS.Signals | null }> {
  const { signal } = opts;
  signal?.throwIfAborted();
  return new Promise((resolve, reject) => {
    const proc = spawn(cmd, args, {
      env: opts.env,
      cwd: opts.cwd,
      stdio: ['ignore', 'inherit', 'inherit'],
      detached: true,
    });
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
export function versionWorks(bin: string, expect: RegExp, signal?: AbortSignal): Promise<boolean> {
  signal?.throwIfAborted();
  return new Promise((resolve, reject) => {
    execFile(bin, ['--version'], { encoding: 'utf8', timeout: 20_000, signal }, (err, stdout) => {
      if (signal?.aborted) return reject(signal.reason);
      resolve(!err && expect.test(stdout));
    });
  });
}

export function goBinary(): string | undefined {
  return onPath('go') ?? (existsSync('/usr/local/go/bin/go') ? '/usr/local/go/bin/go' : undefined);
}

export const goEnv = (bin: string) => ({ ...process.env, GOBIN: bin, GOTOOLCHAIN: 'local', GOFLAGS: '-mod=mod' });

/** `work`'s outcome, or a rejection with the signal's reason as soon as `signal` aborts (work is not stopped). */
export function untilAborted<T>(work: Promise<T>, signal?: AbortSignal): Promise<T> {
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

export function onPath(bin: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir || dir.includes('node_modules')) continue;
    const candidate = path.join(dir, bin);
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}
