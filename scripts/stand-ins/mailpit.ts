// Mailpit (github.com/axllent/mailpit): a real SMTP server with a web inbox and an HTTP API, for `npm start` without
// SMTP_URL and for the tests, which read the mails the service sent through its API. Not a code path of the product:
// the service only ever speaks SMTP to SMTP_URL.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, openSync } from 'node:fs';
import path from 'node:path';
import {
  cacheDir,
  freePort,
  goBinary,
  goEnv,
  portOpen,
  runTool,
  stopProcess,
  waitFor,
  type Log,
  type RunningService,
} from './process';

export const MAILPIT_VERSION = 'v1.33.1';
const MAILPIT_MODULE = `github.com/axllent/mailpit@${MAILPIT_VERSION}`;

/**
 * Finds a `mailpit` binary (MAILPIT_PATH, our cache) or builds it once into
 * `~/.cache/apparel-mockup/mailpit-v1.33.1/` with `GOTOOLCHAIN=local go install` (a few minutes the first time).
 */
export async function resolveMailpit(opts: { log: Log; signal?: AbortSignal }): Promise<string> {
  const binDir = path.join(cacheDir(), `mailpit-${MAILPIT_VERSION}`);
  const cached = path.join(binDir, 'mailpit');
  for (const c of [process.env.MAILPIT_PATH, cached]) if (c && existsSync(c)) return c;
  const go = goBinary();
  if (!go)
    throw new Error('No Mailpit found: install Go (>= 1.24) so it can be built, or set MAILPIT_PATH or SMTP_URL');
  mkdirSync(binDir, { recursive: true });
  opts.log(`building Mailpit ${MAILPIT_VERSION} with go install into ${binDir} (one time, a few minutes)`);
  const r = await runTool(go, ['install', MAILPIT_MODULE], {
    env: goEnv(binDir),
    timeoutMs: 40 * 60_000,
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
  if (r.status === 0 && existsSync(cached)) return cached;
  throw new Error(`go install ${MAILPIT_MODULE} failed (exit ${r.status ?? r.signal})`);
}

export interface RunningMailpit extends RunningService {
  /** `smtp://127.0.0.1:<port>`: what SMTP_URL is set to. */
  smtpUrl: string;
  /** The web inbox and the HTTP API (`/api/v1/messages`, `/api/v1/message/<id>`). */
  httpUrl: string;
}

/**
 * Starts Mailpit with SMTP and HTTP on 127.0.0.1 (free ports unless given); ready when its /readyz answers 200.
 * Messages are kept in `dbFile` when given (npm start), else in a temporary database it deletes on exit (tests).
 * A server that does not become ready, or whose start `signal` cancels, is stopped before the call rejects.
 */
export async function startMailpit(opts: {
  bin: string;
  smtpPort?: number;
  httpPort?: number;
  dbFile?: string;
  logFile: string;
  signal?: AbortSignal;
}): Promise<RunningMailpit> {
  const { signal } = opts;
  signal?.throwIfAborted();
  const smtpPort = opts.smtpPort ?? (await freePort());
  const httpPort = opts.httpPort ?? (await freePort());
  mkdirSync(path.dirname(opts.logFile), { recursive: true });
  if (opts.dbFile) mkdirSync(path.dirname(opts.dbFile), { recursive: true });
  const out = openSync(opts.logFile, 'a');
  const args = [
    '--smtp',
    `127.0.0.1:${smtpPort}`,
    '--listen',
    `127.0.0.1:${httpPort}`,
    // a local inbox: any credentials in SMTP_URL are accepted, over plain SMTP
    '--smtp-auth-accept-any',
    '--smtp-auth-allow-insecure',
    // keep every message (the default drops all but the newest 500)
    '--max',
    '0',
    // offline: no look at GitHub for a newer release
    '--disable-version-check',
    ...(opts.dbFile ? ['--database', opts.dbFile] : []),
  ];
  const proc = spawn(opts.bin, args, { stdio: ['ignore', out, out] });
  const httpUrl = `http://127.0.0.1:${httpPort}`;
  const ready = async () => {
    if (!(await portOpen(smtpPort))) return false;
    try {
      const timeout = AbortSignal.timeout(1000);
      const res = await fetch(`${httpUrl}/readyz`, { signal: signal ? AbortSignal.any([signal, timeout]) : timeout });
      return res.ok;
    } catch {
      return false;
    }
  };
  await waitFor('Mailpit', 30_000, ready, { proc, signal, logFile: opts.logFile });
  return {
    smtpUrl: `smtp://127.0.0.1:${smtpPort}`,
    httpUrl,
    stop: () => stopProcess(proc, 'Mailpit', 5_000),
  };
}
