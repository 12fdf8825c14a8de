// Finds Prometheus's `promtool` (it checks deploy/prometheus/alerts.yml): PROMTOOL_PATH, then PATH, then our tool
// cache, else builds it once with `go install` into ~/.cache/apparel-mockup/promtool-<version>/ (as the Temporal
// CLI and MinIO are, scripts/dev-services.ts). Prometheus 3.x is tagged v0.3xx.y in Go modules (3.16.0 =
// v0.316.0); this one builds with the local Go toolchain (GOTOOLCHAIN=local, Go >= 1.24).
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { cacheDir } from '../stand-ins/process';

export const PROMTOOL_VERSION = 'v0.316.0';
const MODULE = `github.com/prometheus/prometheus/cmd/promtool@${PROMTOOL_VERSION}`;
/** A first build downloads Prometheus's module graph and compiles it: minutes on a loaded 2-core machine. */
const BUILD_TIMEOUT_MS = 40 * 60_000;

function onPath(bin: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir || dir.includes('node_modules')) continue;
    const candidate = path.join(dir, bin);
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

/** `promtool --version` exits 0 within 20 s. */
function works(bin: string): Promise<boolean> {
  return new Promise((resolve) => {
    execFile(bin, ['--version'], { timeout: 20_000 }, (err) => resolve(!err));
  });
}

/** Runs `go install` in its own process group, ended with its compilers on timeout or when `signal` aborts. */
function goInstall(go: string, gobin: string, signal?: AbortSignal): Promise<number | null> {
  signal?.throwIfAborted();
  return new Promise((resolve, reject) => {
    const proc = spawn(go, ['install', MODULE], {
      env: { ...process.env, GOBIN: gobin, GOTOOLCHAIN: 'local', GOFLAGS: '-mod=mod' },
      stdio: ['ignore', 'inherit', 'inherit'],
      detached: true,
    });
    const stop = () => {
      try {
        process.kill(-proc.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    };
    const limit = setTimeout(stop, BUILD_TIMEOUT_MS);
    signal?.addEventListener('abort', stop, { once: true });
    proc.once('error', (err) => {
      clearTimeout(limit);
      reject(err);
    });
    proc.once('exit', (code) => {
      clearTimeout(limit);
      signal?.removeEventListener('abort', stop);
      if (signal?.aborted) reject(signal.reason);
      else resolve(code);
    });
  });
}

export async function resolvePromtool(opts: { log: (msg: string) => void; signal?: AbortSignal }): Promise<string> {
  const dir = path.join(cacheDir(), `promtool-${PROMTOOL_VERSION}`);
  const cached = path.join(dir, 'promtool');
  for (const c of [process.env.PROMTOOL_PATH, onPath('promtool'), cached])
    if (c && existsSync(c) && (await works(c))) return c;
  const go = onPath('go') ?? (existsSync('/usr/local/go/bin/go') ? '/usr/local/go/bin/go' : undefined);
  if (!go)
    throw new Error(
      `No promtool found: install Go (>= 1.24) so \`GOTOOLCHAIN=local go install ${MODULE}\` can build it, put promtool on PATH, or set PROMTOOL_PATH`,
    );
  mkdirSync(dir, { recursive: true });
  opts.log(`building promtool ${PROMTOOL_VERSION} with go install into ${dir} (one time, several minutes)`);
  const code = await goInstall(go, dir, opts.signal);
  if (code === 0 && existsSync(cached) && (await works(cached))) return cached;
  throw new Error(`go install ${MODULE} failed (exit ${code})`);
}
