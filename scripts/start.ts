// `npm start`: PostgreSQL (DATABASE_URL or embedded), Temporal (TEMPORAL_ADDRESS or the dev server with its
// state in DATA_DIR), migrations, seed data, then the worker and the API as child processes. Ctrl-C stops
// everything this script started, in reverse order; during the start-up it also cancels the step under way (a server
// becoming ready, a build, the readiness wait), which stops whatever that step had started.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { createSql } from '../db/client';
import { migrate } from '../db/migrate';
import { seed } from '../db/seed';
import { ConfigError, loadConfig } from '../lib/config';
import { createLogger } from '../lib/log';
import { createStorage } from '../lib/storage';
import { startDevShopForStart } from './stand-ins/dev-shop-start';
import { resolveMailpit, startMailpit } from './stand-ins/mailpit';
import { startStripeCheckout } from './stand-ins/stripe-checkout';
import {
  freePort,
  IMAGE_PROCESS_MALLOC_ENV,
  portOpen,
  resolveStripeMock,
  resolveTemporalCli,
  startStripeMock,
  STRIPE_MOCK_SECRET_KEY,
  startEmbeddedPostgres,
  startTemporalDev,
  stopProcess,
  type RunningService,
} from './dev-services';

const ROOT = path.resolve(__dirname, '..');
/** How long one stand-in server (PostgreSQL, Temporal, stripe-mock, the dev shop) may take to stop. */
const SERVICE_STOP_MS = 20_000;
/** How long a cancelled start-up step may take to stop what it started (a first initdb is let finish). */
const STEP_STOP_MS = 20_000;
/** stripe-mock's usual port; another free one when it is taken. */
const STRIPE_MOCK_PORT = 12111;
/** The local hosted checkout and portal in front of stripe-mock; another free one when it is taken. */
const STRIPE_CHECKOUT_PORT = 12110;
/** Mailpit's usual SMTP and inbox ports; other free ones when they are taken. */
const MAILPIT_SMTP_PORT = 1025;
const MAILPIT_HTTP_PORT = 8025;
/** The worker's Prometheus endpoint under `npm start` (WORKER_METRICS_ADDRESS overrides it). */
const WORKER_METRICS_PORT = 9465;
const say = (msg: string) => process.stderr.write(`[start] ${msg}\n`);

async function main(): Promise<void> {
  const config = loadConfig();
  const log = createLogger({ level: config.logLevel, base: { service: 'start' } });
  const services: RunningService[] = [];
  const children: { name: string; proc: ChildProcess }[] = [];
  let stopping = false;
  let ready = false;
  // Every wait of the start-up watches this: a stop request ends the start-up at once, not after a timeout.
  const startup = new AbortController();
  const { signal } = startup;
  // The start-up step under way; a cancelled one stops what it started before it settles.
  let step: Promise<unknown> = Promise.resolve();
  const track = <T>(p: Promise<T>): Promise<T> => {
    step = p.catch(() => {});
    return p;
  };

  const stopAll = async (code: number) => {
    if (stopping) return;
    stopping = true;
    startup.abort(new Error('stop requested'));
    say('stopping...');
    const settled = await Promise.race([
      step.then(() => true),
      new Promise<false>((r) => setTimeout(() => r(false), STEP_STOP_MS).unref()),
    ]);
    if (!settled) say(`the start-up step under way did not end within ${STEP_STOP_MS / 1000} s; leaving it`);
    // API first (no new work), then the worker (finishes or hands back its tasks), then the servers. Before the
    // service was ready there is no work in flight: children get a short grace, not the worker's 35 s.
    const grace = ready ? 35_000 : 5_000;
    for (const c of [...children].reverse()) await stopProcess(c.proc, c.name, grace);
    for (const s of [...services].reverse()) {
      const stopped = await Promise.race([
        s.stop().then(
          () => true,
          (e: unknown) => (say(`stop failed: ${e}`), true),
        ),
        new Promise<false>((r) => setTimeout(() => r(false), SERVICE_STOP_MS).unref()),
      ]);
      if (!stopped) say(`a service did not stop within ${SERVICE_STOP_MS / 1000} s; leaving it`);
    }
    say('stopped');
    process.exit(code);
  };
  process.on('SIGINT', () => void stopAll(0));
  process.on('SIGTERM', () => void stopAll(0));

  try {
    let databaseUrl = config.databaseUrl;
    if (!databaseUrl) {
      say(
        `starting embedded PostgreSQL on 127.0.0.1:${config.embeddedPgPort} (data in ${path.join(config.dataDir, 'pg')})`,
      );
      const pg = await track(
        startEmbeddedPostgres({
          dir: path.join(config.dataDir, 'pg'),
          port: config.embeddedPgPort,
          database: 'mockups',
          log: say,
          signal,
        }),
      );
      services.push(pg);
      databaseUrl = pg.url;
    }
    if (stopping) return;

    let temporalAddress = config.temporal.address;
    let temporalUi = config.temporal.uiUrl;
    if (!temporalAddress) {
      const cli = await track(resolveTemporalCli({ cliPath: config.temporal.cliPath, log: say, signal }));
      say(
        `starting Temporal dev server on 127.0.0.1:${config.temporal.devPort} (state in ${path.join(config.dataDir, 'temporal.db')})`,
      );
      const t = await track(
        startTemporalDev({
          cli,
          port: config.temporal.devPort,
          uiPort: config.temporal.devUiPort,
          dbFile: path.join(config.dataDir, 'temporal.db'),
          logFile: path.join(config.dataDir, 'logs', 'temporal.log'),
          log: say,
          signal,
        }),
      );
      services.push(t);
      temporalAddress = t.address;
      temporalUi = t.uiUrl;
    }
    if (stopping) return;

    const sql = createSql(databaseUrl, { max: 4 });
    try {
      const applied = await migrate(sql, say);
      if (applied.length === 0) say('database schema is up to date');
      if (config.seedOnStart) {
        say('seeding the garment catalogue (renders blanks on first run)...');
        const r = await seed({ sql, storage: createStorage(config), log });
        say(`catalogue ready: ${r.garments} garments, ${r.blanksRendered} blank images rendered`);
      }
    } finally {
      await sql.end();
    }
    if (stopping) return;

    // Storefront: no SHOPIFY_API_KEY → the local development shop (a stand-in, not Shopify) and its credentials.
    const devShop = config.shopify.apiKey ? null : await startDevShopForStart(config, say);
    if (devShop) services.push(devShop.service);

    // Payments: no STRIPE_SECRET_KEY → stripe-mock (Stripe's own API mock) on 127.0.0.1 behind the local hosted
    // checkout and portal (a development stand-in), and the client pointed at that.
    let stripeEnv: Record<string, string> = {};
    let stripeMockUrl: string | undefined;
    if (!config.payments.secretKey) {
      const port = (await portOpen(STRIPE_MOCK_PORT)) ? await freePort() : STRIPE_MOCK_PORT;
      const bin = await track(resolveStripeMock({ log: say, signal }));
      const mock = await track(
        startStripeMock({ bin, port, logFile: path.join(config.dataDir, 'logs', 'stripe-mock.log'), signal }),
      );
      services.push(mock);
      stripeMockUrl = mock.url;
      stripeEnv = { STRIPE_SECRET_KEY: STRIPE_MOCK_SECRET_KEY, STRIPE_API_URL: mock.url };
      // It signs what it sends with the webhook secret (generated into DATA_DIR unless given).
      if (config.payments.webhookSecret) {
        const local = await startStripeCheckout({
          upstream: mock.url,
          webhookSecret: config.payments.webhookSecret,
          port: (await portOpen(STRIPE_CHECKOUT_PORT)) ? 0 : STRIPE_CHECKOUT_PORT,
          stateFile: path.join(config.dataDir, 'stripe-checkout-state.json'),
        });
        services.push(local);
        stripeEnv.STRIPE_API_URL = local.url;
      }
    }
    if (stopping) return;

    // Mail: no SMTP_URL → Mailpit (a real SMTP server with a web inbox) on 127.0.0.1, messages kept in DATA_DIR.
    let mailEnv: Record<string, string> = {};
    let mailpitInbox: string | undefined;
    if (!config.mail.smtpUrl) {
      const bin = await track(resolveMailpit({ log: say, signal }));
      const mailpit = await track(
        startMailpit({
          bin,
          smtpPort: (await portOpen(MAILPIT_SMTP_PORT)) ? undefined : MAILPIT_SMTP_PORT,
          httpPort: (await portOpen(MAILPIT_HTTP_PORT)) ? undefined : MAILPIT_HTTP_PORT,
          dbFile: path.join(config.dataDir, 'mailpit.db'),
          logFile: path.join(config.dataDir, 'logs', 'mailpit.log'),
          signal,
        }),
      );
      services.push(mailpit);
      mailEnv = { SMTP_URL: mailpit.smtpUrl };
      mailpitInbox = mailpit.httpUrl;
    }
    if (stopping) return;

    // The worker's Prometheus endpoint (docs/operations.md): 127.0.0.1:9465 unless that port is taken or one is given.
    const workerMetrics =
      config.workerMetricsAddress ??
      `127.0.0.1:${(await portOpen(WORKER_METRICS_PORT)) ? await freePort() : WORKER_METRICS_PORT}`;
    const env = {
      ...process.env,
      ...stripeEnv,
      ...mailEnv,
      WORKER_METRICS_ADDRESS: workerMetrics,
      ...(config.payments.webhookSecret ? { STRIPE_WEBHOOK_SECRET: config.payments.webhookSecret } : {}),
      DATABASE_URL: databaseUrl,
      TEMPORAL_ADDRESS: temporalAddress,
      DATA_DIR: config.dataDir,
      APP_SECRET: config.appSecret,
      ...(config.shopify.tokenKey ? { TOKEN_ENCRYPTION_KEY: config.shopify.tokenKey.toString('base64') } : {}),
      ...devShop?.env,
    };
    for (const name of ['worker', 'api'] as const) {
      // glibc malloc tuned for image work (IMAGE_PROCESS_MALLOC_ENV says why); the caller's environment wins
      const childEnv = { ...IMAGE_PROCESS_MALLOC_ENV, ...env };
      const proc = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, name, 'main.ts')], {
        env: childEnv,
        stdio: ['ignore', 'inherit', 'inherit'],
      });
      children.push({ name, proc });
      proc.on('exit', (code, signal) => {
        if (stopping) return;
        say(`${name} exited unexpectedly (code ${code}, signal ${signal}): stopping everything`);
        void stopAll(1);
      });
    }

    await waitForReady(config.port, signal);
    ready = true;
    say('');
    say(`Dashboard    ${config.publicBaseUrl}/`);
    say(`API          ${config.publicBaseUrl}/api/v1   (health: ${config.publicBaseUrl}/readyz)`);
    say(`API docs     ${config.publicBaseUrl}/docs   (OpenAPI: ${config.publicBaseUrl}/api/v1/openapi.json)`);
    say(`Temporal UI  ${temporalUi ?? '(not available: set TEMPORAL_UI_URL for an external server)'}`);
    say(`Temporal     ${temporalAddress}, task queue ${config.temporal.taskQueue}`);
    say(`Metrics      API ${config.publicBaseUrl}/metrics   worker http://${workerMetrics}/metrics`);
    if (config.tracing.endpoint) say(`Traces       OTLP to ${config.tracing.endpoint}`);
    if (stripeMockUrl && stripeEnv.STRIPE_API_URL !== stripeMockUrl) {
      say(`Payments     STRIPE_SECRET_KEY is unset: a local DEVELOPMENT STAND-IN for Stripe, no real payments`);
      say(`  checkout   ${stripeEnv.STRIPE_API_URL}/checkout/<session>  and portal  .../portal/<session>: Billing in`);
      say(`             the dashboard leads there; Pay sends the signed events Stripe would (stripe-mock behind it:`);
      say(`             ${stripeMockUrl}); npm run stripe:event sends single events`);
    } else if (stripeMockUrl)
      say(`Payments     against stripe-mock at ${stripeMockUrl} (no webhook secret: no local checkout)`);
    else say(`Payments     Stripe${config.payments.apiUrl ? ` at ${config.payments.apiUrl}` : ''}`);
    if (config.payments.webhookSecret && !process.env.STRIPE_WEBHOOK_SECRET)
      say(`Stripe       webhook signing secret ${config.payments.webhookSecret} (generated into ${config.dataDir})`);
    say(
      mailpitInbox
        ? `Mail         SMTP_URL is unset: Mailpit receives every mail; inbox at ${mailpitInbox}`
        : `Mail         SMTP at ${new URL(config.mail.smtpUrl!).host} (SMTP_URL), from ${config.mail.from}`,
    );
    const chatProviders = [config.chat.gemini.apiKey && 'Gemini', config.chat.openai.apiKey && 'OpenAI'].filter(
      Boolean,
    );
    say(
      `Design chat  POST /api/chat with ${chatProviders.length ? chatProviders.join(', then ') : 'the built-in local renderer (no GEMINI_API_KEY or OPENAI_API_KEY)'}`,
    );
    say('Press Ctrl-C to stop.');
  } catch (err) {
    if (stopping) return; // the stop request ended the start-up; stopAll reports
    say(err instanceof ConfigError ? err.message : `failed: ${(err as Error).message}`);
    await stopAll(1);
  }
}

async function waitForReady(port: number, signal: AbortSignal): Promise<void> {
  const until = Date.now() + 120_000;
  let last = '';
  while (Date.now() < until) {
    signal.throwIfAborted();
    try {
      const res = await fetch(`http://127.0.0.1:${port}/readyz`, {
        signal: AbortSignal.any([signal, AbortSignal.timeout(5000)]),
      });
      if (res.ok) return;
      last = await res.text();
    } catch (err) {
      signal.throwIfAborted();
      last = (err as Error).message;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`the API did not become ready within 120 s: ${last}`);
}

main().catch((err) => {
  say(err instanceof ConfigError ? err.message : `failed: ${err?.stack ?? err}`);
  process.exit(1);
});
