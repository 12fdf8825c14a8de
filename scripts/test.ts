// `npm test`: one PostgreSQL and one Temporal dev server for the whole run (started here unless DATABASE_URL /
// TEMPORAL_ADDRESS are set), migrations and seed data once, then mocha in a child process. Everything started
// here is stopped when mocha ends, fails, or the run is interrupted.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { createSql } from '../db/client';
import { migrate } from '../db/migrate';
import { seed } from '../db/seed';
import { loadConfig } from '../lib/config';
import { createLogger } from '../lib/log';
import { createStorage } from '../lib/storage';
import {
  cacheDir,
  freePort,
  resolveStripeMock,
  startStripeMock,
  STRIPE_MOCK_SECRET_KEY,
  resolveChromium,
  resolveMinio,
  resolveTemporalCli,
  startEmbeddedPostgres,
  startMinio,
  startTemporalDev,
  type RunningService,
} from './dev-services';
import { resolveMailpit, startMailpit } from './stand-ins/mailpit';
import { startStripeCheckout } from './stand-ins/stripe-checkout';

const say = (msg: string) => process.stderr.write(`[test] ${msg}\n`);

async function main(): Promise<number> {
  const started: RunningService[] = [];
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'mockup-test-'));
  // mkdtemp makes the folder private to us; the embedded server runs as its own `postgres` user when we are root.
  chmodSync(tmp, 0o755);
  const cleanups: (() => Promise<void>)[] = [];
  let interrupted = false;
  // A stop request ends whichever start-up wait is running (a server, a build) at once.
  const startup = new AbortController();
  const { signal } = startup;
  const onSignal = () => {
    interrupted = true;
    startup.abort(new Error('interrupted'));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  try {
    const base = loadConfig(process.env, { NODE_ENV: 'test', DATA_DIR: path.join(tmp, 'data') });
    const env: Record<string, string> = {
      NODE_ENV: 'test',
      DATA_DIR: base.dataDir,
      APP_SECRET: base.appSecret,
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
    };

    // PostgreSQL: a fresh database for this run, on the given server or on a throw-away embedded cluster.
    if (process.env.DATABASE_URL) {
      const dbName = `mockups_test_${process.pid}_${Date.now()}`;
      const admin = postgres(process.env.DATABASE_URL, { max: 1, onnotice: () => {} });
      await admin.unsafe(`create database ${dbName}`);
      await admin.end();
      const url = new URL(process.env.DATABASE_URL);
      url.pathname = `/${dbName}`;
      env.DATABASE_URL = url.toString();
      cleanups.push(async () => {
        const a = postgres(process.env.DATABASE_URL!, { max: 1, onnotice: () => {} });
        await a.unsafe(`drop database if exists ${dbName} with (force)`).catch(() => {});
        await a.end();
      });
      say(`using DATABASE_URL with a fresh database ${dbName}`);
    } else {
      let port = await freePort();
      while (port === 5432) port = await freePort();
      const pg = await startEmbeddedPostgres({
        dir: path.join(tmp, 'pg'),
        port,
        database: 'mockups_test',
        log: say,
        signal,
      });
      started.push(pg);
      env.DATABASE_URL = pg.url;
      say(`embedded PostgreSQL on port ${port}`);
    }
    if (interrupted) return 130;

    // Temporal: the given server, or a dev server (in memory, no UI) for this run.
    if (process.env.TEMPORAL_ADDRESS) {
      env.TEMPORAL_ADDRESS = process.env.TEMPORAL_ADDRESS;
      say(`using TEMPORAL_ADDRESS ${env.TEMPORAL_ADDRESS}`);
    } else {
      const cli = await resolveTemporalCli({ cliPath: base.temporal.cliPath, log: say, signal });
      const t = await startTemporalDev({
        cli,
        port: await freePort(),
        logFile: path.join(tmp, 'temporal.log'),
        log: say,
        signal,
      });
      started.push(t);
      env.TEMPORAL_ADDRESS = t.address;
      say(`Temporal dev server at ${t.address}`);
    }
    if (interrupted) return 130;

    // MinIO: a real S3 server for the storage tests (test/integration/s3-storage.test.ts), built once into the cache.
    {
      const minio = await startMinio({
        bin: await resolveMinio({ log: say, signal }),
        dir: path.join(tmp, 'minio'),
        port: await freePort(),
        consolePort: await freePort(),
        user: 'mockups-test',
        password: 'mockups-test-secret',
        logFile: path.join(tmp, 'minio.log'),
        signal,
      });
      started.push(minio);
      env.TEST_S3_ENDPOINT = minio.endpoint;
      env.TEST_S3_ACCESS_KEY_ID = 'mockups-test';
      env.TEST_S3_SECRET_ACCESS_KEY = 'mockups-test-secret';
      say(`MinIO at ${minio.endpoint}`);
    }
    if (interrupted) return 130;

    // Stripe as `npm start` has it: stripe-mock (Stripe's own API mock) behind the local hosted checkout and portal
    // (scripts/stand-ins/stripe-checkout.ts), which every test's API reaches through STRIPE_API_URL. Its Pay and
    // portal actions send signed events to the API that created the session (the origin of its success_url or
    // return_url: each test file's own API). Tests also sign events themselves.
    env.STRIPE_WEBHOOK_SECRET = `whsec_test_${randomBytes(18).toString('hex')}`;
    if (!process.env.STRIPE_SECRET_KEY) {
      const stripeMock = await startStripeMock({
        bin: await resolveStripeMock({ log: say, signal }),
        port: await freePort(),
        logFile: path.join(tmp, 'stripe-mock.log'),
        signal,
      });
      started.push(stripeMock);
      const checkout = await startStripeCheckout({
        upstream: stripeMock.url,
        webhookSecret: env.STRIPE_WEBHOOK_SECRET,
      });
      started.push(checkout);
      env.STRIPE_SECRET_KEY = STRIPE_MOCK_SECRET_KEY;
      env.STRIPE_API_URL = checkout.url;
      env.STRIPE_MOCK_URL = stripeMock.url;
      say(`stripe-mock at ${stripeMock.url}, the local checkout and portal in front of it at ${checkout.url}`);
    }
    if (interrupted) return 130;

    // Mail: Mailpit receives what the service sends over SMTP; tests read it through its HTTP API (MAILPIT_URL).
    {
      const mailpit = await startMailpit({
        bin: await resolveMailpit({ log: say, signal }),
        logFile: path.join(tmp, 'mailpit.log'),
        signal,
      });
      started.push(mailpit);
      env.SMTP_URL = mailpit.smtpUrl;
      env.MAILPIT_URL = mailpit.httpUrl;
      say(`Mailpit at ${mailpit.smtpUrl}, its inbox and API at ${mailpit.httpUrl}`);
    }
    if (interrupted) return 130;

    const config = loadConfig({ ...process.env, ...env });
    const sql = createSql(env.DATABASE_URL!, { max: 4 });
    try {
      await migrate(sql);
      const t0 = Date.now();
      await seed({
        sql,
        storage: createStorage(config),
        log: createLogger({ level: 'warn' }),
        renderCacheDir: path.join(cacheDir(), 'blanks'),
      });
      say(`migrated and seeded in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    } finally {
      await sql.end();
    }

    const args = process.argv.slice(2);
    const specs = args.length > 0 ? args : ['test/**/*.test.ts'];
    // The dashboard's browser tests (test/browser/) drive Debian's chromium with playwright-core: installed here
    // when missing, and its path handed to mocha.
    if (specs.some((s) => s.includes('*') || s.startsWith('test/browser') || s.includes('/browser/'))) {
      env.CHROMIUM_PATH = resolveChromium({ log: say });
      say(`Chromium at ${env.CHROMIUM_PATH}`);
    }
    return await new Promise<number>((resolve) => {
      const child = spawn(
        process.execPath,
        [
          '--import',
          'tsx',
          require.resolve('mocha/bin/mocha.js'),
          '--reporter',
          path.join(__dirname, '../test/helpers/summary-reporter.ts'),
          ...specs,
        ],
        { stdio: 'inherit', env: { ...process.env, ...env } },
      );
      const forward = (sig: NodeJS.Signals) => child.kill(sig);
      process.on('SIGINT', forward);
      process.on('SIGTERM', forward);
      child.on('exit', (code, sig) => resolve(code ?? (sig ? 130 : 1)));
    });
  } catch (err) {
    if (signal.aborted) return 130; // a stop request cancelled the start-up
    throw err;
  } finally {
    for (const c of cleanups.reverse()) await c().catch((e) => say(`cleanup failed: ${e}`));
    for (const s of started.reverse()) await s.stop().catch((e) => say(`stop failed: ${e}`));
    rmSync(tmp, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    say(`failed: ${err?.stack ?? err}`);
    process.exit(1);
  },
);
