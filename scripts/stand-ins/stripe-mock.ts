// stripe-mock: Stripe's own API mock, which the Stripe client is pointed at (STRIPE_API_URL, through
// scripts/stand-ins/stripe-checkout.ts) when no STRIPE_SECRET_KEY is given.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, openSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  ABORT_GRACE_MS,
  cacheDir,
  goBinary,
  goEnv,
  onPath,
  portOpen,
  runTool,
  stopProcess,
  waitFor,
  type Log,
  type RunningService,
} from './process';

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
  await waitFor('stripe-mock', 60_000, () => portOpen(opts.port), {
    proc,
    signal: opts.signal,
    logFile: opts.logFile,
  }).catch(async (err: unknown) => {
    await stop(ABORT_GRACE_MS); // waitFor stopped the process; this also removes its socket file
    throw err;
  });
  return { url: `http://127.0.0.1:${opts.port}`, stop: () => stop(5_000) };
}
