// MinIO: S3 for the tests and for STORAGE_DRIVER=s3 locally.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, openSync } from 'node:fs';
import path from 'node:path';
import {
  cacheDir,
  goBinary,
  goEnv,
  onPath,
  runTool,
  stopProcess,
  versionWorks,
  waitFor,
  type Log,
  type RunningService,
} from './process';

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
  await waitFor('MinIO', 60_000, live, { proc, signal, logFile: opts.logFile });
  return { endpoint, stop: () => stopProcess(proc, 'MinIO', 10_000) };
}
