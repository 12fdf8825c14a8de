// The chaos suite: the real stack in its external mode (its own embedded PostgreSQL and Temporal dev server
// with a database file, two API processes and two worker processes: bench/stack.ts startCluster), a bounded load
// (test/chaos/load.ts) and faults on a seeded schedule (test/chaos/schedule.ts): a worker SIGKILLed and started again,
// an API SIGKILLed and started again, the Temporal dev server SIGKILLed and started again on the same database file,
// PostgreSQL restarted, the callback receiver answering 500 for a while. Afterwards everything is given time to
// settle and the invariants (test/chaos/invariants.ts) are checked. `npm run chaos` (scripts/chaos.ts) and the
// CI-sized run in test/chaos/chaos.test.ts both call runChaos.
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { startCluster, type Cluster } from '../../bench/stack';
import { createSql, type Sql } from '../../db/client';
import { grantTokens } from '../../db/ledger';
import { S3Storage } from '../../lib/storage';
import { startDevShop, type DevShop } from '../../scripts/stand-ins/shopify-shop';
import { resolveStripeMock, startStripeMock } from '../../scripts/dev-services';
import { startStripeCheckout } from '../../scripts/stand-ins/stripe-checkout';
import { inboundEventsSweep, maintenanceSweep } from '../../workflows';
import {
  checkChat,
  checkGenerations,
  checkHttp,
  checkLedger,
  checkProcesses,
  checkServed,
  checkShopify,
  checkStripe,
  checkWebhooks,
  checkWorkflows,
  completedRuns,
  formatTable,
  inFlightCounts,
  type InvariantResult,
  type Window,
} from './invariants';
import {
  apiClient,
  chatClient,
  designPng,
  Http,
  newLedger,
  randomPassword,
  shopifySender,
  stripeSender,
  type ChaosAccount,
  type Garment,
  type LoadContext,
} from './load';
import { sleep, waitUpTo } from '../helpers/wait';
import { startReceiver, type Receiver } from './receiver';
import { createRng } from './rng';
import { planFaults, type Fault } from './schedule';

export interface ChaosOptions {
  seed: number;
  /** how long the load runs, in ms */
  durationMs: number;
  /** fault rounds (each: every process fault once, one receiver outage) */
  rounds: number;
  /** API clients (generations) and chat users */
  apiClients: number;
  chatClients: number;
  /** how long to wait, at most, for everything to settle after the load */
  settleMs: number;
  dataDir: string;
  /** s3: a bucket of its own on this S3 server (MinIO) instead of local disk */
  s3?: { endpoint: string; accessKeyId: string; secretAccessKey: string };
  say: (m: string) => void;
}

export interface ChaosReport {
  seed: number;
  ok: boolean;
  invariants: InvariantResult[];
  table: string;
  /** what happened when: relative to the start of the load, and the wall-clock time (to match the logs) */
  faults: { at: string; what: string; time: string }[];
  figures: {
    loadSeconds: number;
    totalSeconds: number;
    settleSeconds: number;
    requests: number;
    generationsAccepted: number;
    chatJobs: number;
    stripeEvents: number;
    shopifyWebhooks: number;
    callbackAttempts: number;
    unplannedExits: string[];
  };
}

/** Rate limits of the run: high enough for the load's own keys, low where the probes measure them. */
const CHAOS_LIMITS: Record<string, string> = {
  RATE_LIMIT_PER_MINUTE: '600',
  RATE_LIMIT_PER_HOUR: '100000',
  RATE_LIMIT_CONCURRENCY: '20',
  RATE_LIMIT_GENERATE_PER_MINUTE: '400',
  RATE_LIMIT_ANALYZE_PER_MINUTE: '60',
  RATE_LIMIT_GARMENTS_PER_MINUTE: '20',
  RATE_LIMIT_UPLOAD_PER_MINUTE: '20',
  AUTH_SIGNUPS_PER_IP: '100000',
  AUTH_LOGIN_FAILURES_PER_IP: '100000',
  CHAT_RATE_PER_MINUTE: '10',
};
const GARMENTS_LIMIT = 20;
const CHAT_LIMIT = 10;

export async function runChaos(opts: ChaosOptions): Promise<ChaosReport> {
  const { say } = opts;
  const T0 = Date.now();
  const rng = createRng(opts.seed);
  const plan = planFaults(rng.fork('faults'), {
    durationMs: opts.durationMs,
    rounds: opts.rounds,
    apis: 2,
    workers: 2,
  });
  say(`seed ${opts.seed} (repeat with --seed ${opts.seed}); ${plan.length} faults planned:`);
  for (const f of plan) say(`  +${(f.atMs / 1000).toFixed(1)} s ${describe(f)}`);

  const stripeSecret = `whsec_chaos_${randomBytes(16).toString('hex')}`;
  // A pack's grant reads its session's line items from Stripe: stripe-mock behind the local checkout stand-in.
  const stripeMock = await startStripeMock({
    bin: await resolveStripeMock({ log: say }),
    port: 12_400 + Math.floor(Math.random() * 400),
    logFile: path.join(opts.dataDir, 'stripe-mock.log'),
  });
  const stripeLocal = await startStripeCheckout({ upstream: stripeMock.url, webhookSecret: stripeSecret });
  const shopSecret = `chaos-shop-secret-${randomBytes(12).toString('hex')}`;
  const secrets = new Map<string, string>();
  let shop: DevShop | undefined;
  let receiver: Receiver | undefined;
  let cluster: Cluster | undefined;
  let sql: Sql | undefined;
  let connection: Connection | undefined;
  try {
    shop = await startDevShop({ apiKey: 'chaos-app', apiSecret: shopSecret });
    receiver = await startReceiver(secrets);
    const storageEnv: Record<string, string> = {};
    if (opts.s3) {
      const bucket = `chaos-${opts.seed}-${randomBytes(3).toString('hex')}`;
      const s3 = { bucket, region: 'us-east-1', forcePathStyle: true, ...opts.s3 };
      await new S3Storage(s3).ensureBucket();
      Object.assign(storageEnv, {
        STORAGE_DRIVER: 's3',
        S3_ENDPOINT: opts.s3.endpoint,
        S3_BUCKET: bucket,
        S3_FORCE_PATH_STYLE: 'true',
        S3_ACCESS_KEY_ID: opts.s3.accessKeyId,
        S3_SECRET_ACCESS_KEY: opts.s3.secretAccessKey,
      });
      say(`storage: S3 bucket ${bucket} on ${opts.s3.endpoint}`);
    }
    cluster = await startCluster({
      dataDir: opts.dataDir,
      say,
      apis: 2,
      workers: 2,
      supervise: true,
      limits: CHAOS_LIMITS,
      env: {
        LOG_LEVEL: 'info',
        ALLOW_PRIVATE_URLS: 'true',
        STRIPE_WEBHOOK_SECRET: stripeSecret,
        STRIPE_SECRET_KEY: 'sk_test_123',
        STRIPE_API_URL: stripeLocal.url,
        SHOPIFY_API_KEY: 'chaos-app',
        SHOPIFY_API_SECRET: shopSecret,
        SHOPIFY_SHOP_BASE_URL: shop.url,
        TOKEN_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
        // callbacks retried every few seconds at most, so a receiver outage ends in retries within the run
        WEBHOOK_RETRY_INITIAL: '1s',
        WEBHOOK_RETRY_MAX_INTERVAL: '4s',
        GENERATE_SYNC_TIMEOUT_MS: '15000',
        CHAT_SYNC_TIMEOUT_MS: '20000',
        // generations orphaned by a killed API are recovered by the maintenance sweep this run starts itself
        GENERATION_ORPHAN_AFTER: '20s',
        // and so are chat jobs (the chat-jobs sweep, every minute): a chat request cut off by a killed API between the
        // job's insert and its workflow's start leaves a job no workflow will finish, failed and refunded within the settle
        CHAT_ORPHAN_AFTER: '20s',
        ...storageEnv,
      },
      keepLog: (l) => l.level === 'error',
    });
    const c = cluster;
    sql = createSql(c.databaseUrl, { max: 4 });
    const http = new Http(
      c.apis.map((a) => a.url),
      c.baseUrl,
    );

    // ------------------------------------------------------------ accounts, designs, the shop
    say(`setting up ${opts.apiClients} API clients, ${opts.chatClients} chat users and the probes`);
    const mk = async (i: number, label: string): Promise<ChaosAccount> => {
      const api = i % 2;
      const email = `chaos-${label}-${randomBytes(4).toString('hex')}@example.test`;
      const s = await must(http.call(api, 'POST', '/api/auth/signup', { json: { email, password: randomPassword() } }));
      const cookie = s
        .headers!.getSetCookie()
        .find((x) => x.includes('_session='))!
        .split(';')[0]!;
      const k = await must(http.call(api, 'POST', '/api/v1/keys', { cookie, json: { name: `chaos ${label}` } }));
      const w = await must(http.call(api, 'GET', '/api/v1/webhooks/secret', { cookie }));
      const userId = s.body.user.id as string;
      secrets.set(userId, w.body.secret);
      await grantTokens(sql!, { userId, source: 'payg_purchase', amount: 400, reference: `chaos-seed:${userId}` });
      return { userId, email, cookie, key: k.body.key, webhookSecret: w.body.secret };
    };
    const apiAccounts = await Promise.all(Array.from({ length: opts.apiClients }, (_, i) => mk(i, `api${i}`)));
    const chatAccounts = await Promise.all(
      Array.from({ length: opts.chatClients }, (_, i) => mk(i + opts.apiClients, `chat${i}`)),
    );
    const list = await must(
      http.call(0, 'GET', '/api/v1/garments?category=t-shirts&limit=1', { key: apiAccounts[0]!.key }),
    );
    const garment = list.body.garments[0] as Garment;
    for (const [i, a] of apiAccounts.entries()) {
      const png = await designPng(rng.fork(`design-${i}`));
      const up = await must(
        http.call(i % 2, 'POST', '/api/v1/upload', {
          key: a.key,
          json: { imageData: `data:image/png;base64,${png.toString('base64')}` },
        }),
      );
      a.designUrl = up.body.url;
    }
    const shopDomain = `chaos-${randomBytes(3).toString('hex')}.myshopify.com`;
    await connectShop(http, shop, apiAccounts[0]!, shopDomain, c.baseUrl);
    say(`shop ${shopDomain} connected; load for ${opts.durationMs / 1000} s`);

    // ------------------------------------------------------------ load and faults
    const ledger = newLedger();
    const windows: Window[] = [];
    const faultLog: ChaosReport['faults'] = [];
    const loadStart = Date.now();
    let settleDeadline = loadStart + opts.durationMs + opts.settleMs;
    const ctx: LoadContext = {
      http,
      ledger,
      receiverUrl: receiver.url,
      garment,
      endAt: loadStart + opts.durationMs,
      deliverUntil: () => settleDeadline,
    };
    const clients = [
      ...apiAccounts.map((a, i) => apiClient(ctx, a, rng.fork(`api-client-${i}`))),
      ...chatAccounts.map((a, i) => chatClient(ctx, a, rng.fork(`chat-client-${i}`))),
    ];
    const senders = [
      stripeSender(ctx, [...apiAccounts, ...chatAccounts], stripeSecret, rng.fork('stripe')),
      shopifySender(ctx, shopDomain, shopSecret, rng.fork('shopify')),
    ];
    const note = (what: string) => {
      const at = `+${((Date.now() - loadStart) / 1000).toFixed(1)} s`;
      faultLog.push({ at, what, time: new Date().toISOString() });
      say(`${at} ${what}`);
    };
    const lanes = [
      runLane(
        plan.filter((f) => f.kind !== 'receiver-down'),
        loadStart,
        (f) => inject(c, receiver!, f, windows, note),
      ),
      runLane(
        plan.filter((f) => f.kind === 'receiver-down'),
        loadStart,
        (f) => inject(c, receiver!, f, windows, note),
      ),
    ];
    await Promise.all([...clients, ...lanes]);
    const inFlight = (await Promise.all(senders)).flat();
    const loadEnd = Date.now();
    note('load over');
    for (const p of [...c.apis, ...c.workers])
      if (!p.running) {
        note(`${p.name} was down at the end of the load: starting it`);
        p.spawn();
      }
    await Promise.all([...c.apis, ...c.workers].map((p) => p.ready()));

    // ------------------------------------------------------------ rate limits across both APIs (database up)
    const probes = await probeRateLimits(http, await mk(99, 'probe'));

    // ------------------------------------------------------------ settle
    connection = await Connection.connect({ address: c.temporalAddress });
    const client = new Client({ connection, namespace: c.namespace });
    settleDeadline = Date.now() + opts.settleMs;
    const users = [...apiAccounts, ...chatAccounts].map((a) => a.userId);
    await settle(sql, client, c, users, inFlight, () => settleDeadline, say);
    const settled = Date.now();

    // ------------------------------------------------------------ invariants
    const runs = await completedRuns(client);
    const invariants = [
      await checkGenerations(sql, users, ledger),
      await checkLedger(sql, users),
      await checkWebhooks(sql, users, receiver.attempts, ledger),
      await checkStripe(sql, ledger, runs),
      await checkShopify(sql, ledger, runs),
      await checkChat(sql, ledger),
      await checkWorkflows(client, runs),
      checkHttp(http.records, windows, loadStart),
      checkProcesses(
        [...c.apis, ...c.workers].flatMap((p) => p.unplannedExits.map((e) => ({ name: p.name, ...e }))),
        windows,
        loadStart,
      ),
      probes,
      await checkServed(sql, users, c.baseUrl, ledger),
    ];
    const table = formatTable(invariants);
    // everything the invariants were computed from, next to the processes' logs, for looking into a failed seed
    writeFileSync(
      path.join(opts.dataDir, 'logs', 'chaos-run.json'),
      JSON.stringify({
        seed: opts.seed,
        loadStart,
        windows,
        faults: faultLog,
        http: http.records,
        callbacks: receiver.attempts,
        stripe: ledger.stripe,
        shopify: ledger.shopify,
      }) + '\n',
    );
    const unplannedExits = [...c.apis, ...c.workers].flatMap((p) =>
      p.unplannedExits.map((e) => `${p.name} +${((e.at - loadStart) / 1000).toFixed(1)} s code ${e.code}`),
    );
    return {
      seed: opts.seed,
      ok: invariants.every((i) => i.ok),
      invariants,
      table,
      faults: faultLog,
      figures: {
        loadSeconds: Math.round((loadEnd - loadStart) / 100) / 10,
        settleSeconds: Math.round((settled - loadEnd) / 100) / 10,
        totalSeconds: Math.round((Date.now() - T0) / 100) / 10,
        requests: http.records.length,
        generationsAccepted: ledger.generations.size,
        chatJobs: ledger.chat.accepted,
        stripeEvents: ledger.stripe.length,
        shopifyWebhooks: ledger.shopify.length,
        callbackAttempts: receiver.attempts.length,
        unplannedExits,
      },
    };
  } finally {
    await connection?.close().catch(() => {});
    await sql?.end({ timeout: 5 }).catch(() => {});
    await cluster?.stop().catch((e) => say(`stopping the cluster failed: ${e}`));
    await stripeLocal.stop();
    await stripeMock.stop();
    await receiver?.stop();
    await shop?.stop();
  }
}

const describe = (f: Fault) =>
  f.kind === 'kill-worker'
    ? `SIGKILL worker-${f.target! + 1}, start it again after ${f.downMs} ms`
    : f.kind === 'kill-api'
      ? `SIGKILL api-${f.target! + 1}, start it again after ${f.downMs} ms`
      : f.kind === 'restart-temporal'
        ? `SIGKILL the Temporal dev server, start it again on its database file after ${f.downMs} ms`
        : f.kind === 'restart-postgres'
          ? `stop PostgreSQL, start it again after ${f.downMs} ms`
          : `callback receiver answers 500 for ${f.downMs} ms`;

async function must(p: Promise<import('./load').Reply>) {
  const r = await p;
  if (r.status === null || r.status >= 400)
    throw new Error(`setup request failed: ${r.status ?? r.error} ${JSON.stringify(r.body)}`);
  return r;
}

/** Runs faults one after another, each not before its planned time. */
async function runLane(faults: Fault[], start: number, run: (f: Fault) => Promise<void>): Promise<void> {
  for (const f of faults) {
    const wait = start + f.atMs - Date.now();
    if (wait > 0) await sleep(wait);
    await run(f);
  }
}

async function inject(
  c: Cluster,
  receiver: Receiver,
  f: Fault,
  windows: Window[],
  note: (m: string) => void,
): Promise<void> {
  const from = Date.now();
  switch (f.kind) {
    case 'kill-worker': {
      const w = c.workers[f.target!]!;
      note(`SIGKILL ${w.name} (pid ${w.pid})`);
      await w.kill();
      await sleep(f.downMs);
      w.spawn();
      await w.ready();
      note(`${w.name} started again (pid ${w.pid})`);
      windows.push({ what: 'worker killed', from, to: Date.now() });
      return;
    }
    case 'kill-api': {
      const a = c.apis[f.target!]!;
      note(`SIGKILL ${a.name} (pid ${a.pid})`);
      await a.kill();
      await sleep(f.downMs);
      a.spawn();
      await a.ready();
      note(`${a.name} started again (pid ${a.pid})`);
      windows.push({ what: 'api killed', api: f.target!, from, to: Date.now() });
      return;
    }
    case 'restart-temporal': {
      note('SIGKILL the Temporal dev server');
      await c.restartTemporal(f.downMs);
      note('Temporal dev server started again on its database file');
      windows.push({ what: 'Temporal restart', from, to: Date.now() + 2000 });
      return;
    }
    case 'restart-postgres': {
      note('stopping PostgreSQL');
      await c.restartPostgres(f.downMs);
      note('PostgreSQL started again');
      // 5 s after it is back: the pool reconnects within a second (db/client.ts). A pooled connection idle since before
      // the restart used to fail its first query after reconnecting with the restart's stale 57P01, up to the pool's
      // idle timeout (30 s) later: the driver patch (scripts/patch-postgres.cjs) clears that error on close
      windows.push({ what: 'PostgreSQL restart', from, to: Date.now() + 5_000 });
      return;
    }
    case 'receiver-down': {
      note(`callback receiver answers 500 for ${f.downMs} ms`);
      receiver.failing = true;
      await sleep(f.downMs);
      receiver.failing = false;
      note('callback receiver answers 200 again');
      windows.push({ what: 'receiver failing', from, to: Date.now() });
      return;
    }
  }
}

/** install → the dev shop approves → the callback on an API: an active connection whose webhooks we send. */
async function connectShop(http: Http, shop: DevShop, acct: ChaosAccount, shopDomain: string, baseUrl: string) {
  const install = await must(
    http.call(0, 'POST', '/api/storefront/connect/install', { cookie: acct.cookie, json: { shop: shopDomain } }),
  );
  const approve = await shop.approve(install.body.url);
  const location = approve.location;
  if (approve.status !== 302 || !location?.startsWith(baseUrl))
    throw new Error(`the dev shop answered ${approve.status}`);
  // the callback in the installing user's session
  const cb = await http.call(1, 'GET', location.slice(baseUrl.length), { cookie: acct.cookie });
  if (cb.status !== 302) throw new Error(`the OAuth callback answered ${cb.status}: ${JSON.stringify(cb.body)}`);
}

/**
 * Limits held across both APIs, with the database up: a fresh key's garment listings (limit 20 a minute) and a
 * fresh user's chat requests (10 a minute, counted whatever their outcome), alternated between the two APIs,
 * admit exactly the limit.
 */
async function probeRateLimits(http: Http, acct: ChaosAccount): Promise<InvariantResult> {
  const v: string[] = [];
  const garments = [];
  for (let i = 0; i < GARMENTS_LIMIT + 8; i++)
    garments.push((await http.call(i % 2, 'GET', '/api/v1/garments?limit=1', { key: acct.key })).status);
  const chat = [];
  for (let i = 0; i < CHAT_LIMIT + 4; i++)
    chat.push((await http.call(i % 2, 'POST', '/api/chat', { cookie: acct.cookie, json: { prompt: 'short' } })).status);
  const gOk = garments.filter((s) => s === 200).length;
  const g429 = garments.filter((s) => s === 429).length;
  const cOk = chat.filter((s) => s === 400).length;
  const c429 = chat.filter((s) => s === 429).length;
  if (gOk !== GARMENTS_LIMIT || g429 !== 8)
    v.push(`garments: ${gOk} admitted, ${g429} refused (${garments.join(' ')})`);
  if (cOk !== CHAT_LIMIT || c429 !== 4) v.push(`chat: ${cOk} admitted, ${c429} refused (${chat.join(' ')})`);
  return {
    name: 'rate limits held across both APIs',
    ok: v.length === 0,
    checked: `garments ${gOk}/${GARMENTS_LIMIT + 8} admitted (limit ${GARMENTS_LIMIT}), chat ${cOk}/${CHAT_LIMIT + 4} (limit ${CHAT_LIMIT}), alternating APIs`,
    violations: v,
  };
}

/**
 * Waits until nothing is in flight: generations and chat jobs finished, callbacks delivered, inbound events
 * processed, every sender acknowledged, no workflow running. Starts the sweeps the schedules would start later
 * (inbound events older than 15 s; generations orphaned by a killed API) so the run need not wait for them.
 */
async function settle(
  sql: Sql,
  client: Client,
  c: Cluster,
  users: string[],
  inFlight: Promise<void>[],
  deadline: () => number,
  say: (m: string) => void,
): Promise<void> {
  let sendersDone = false;
  void Promise.all(inFlight).then(() => (sendersDone = true));
  let lastSweep = 0;
  let sweeps = 0;
  let last = '';
  const settled = await waitUpTo(
    async () => {
      const s = await inFlightCounts(sql, users);
      let open = 0;
      for await (const w of client.workflow.list({ query: 'ExecutionStatus = "Running"' }))
        if (!/^(maintenance-sweep|inbound-events-sweep|chat-jobs-sweep|chaos-)/.test(w.workflowId)) open++;
      const state = `${s.gens} generations unfinished, ${s.jobs} chat jobs running, ${s.deliveries} callbacks pending, ${s.stripe + s.shopify} inbound events waiting, ${open} workflows open, senders ${sendersDone ? 'done' : 'redelivering'}`;
      if (state !== last) say(`settling: ${state}`);
      last = state;
      if (s.gens + s.jobs + s.deliveries + s.stripe + s.shopify + open === 0 && sendersDone) return true;
      if ((s.stripe + s.shopify > 0 || s.gens > 0) && Date.now() - lastSweep > 20_000) {
        // what the inbound-events-sweep (every minute) and maintenance-sweep (hourly) schedules would do
        lastSweep = Date.now();
        sweeps++;
        await Promise.all([
          client.workflow.start(inboundEventsSweep, {
            workflowId: `chaos-inbound-sweep-${sweeps}`,
            taskQueue: c.taskQueue,
            args: [],
          }),
          client.workflow.start(maintenanceSweep, {
            workflowId: `chaos-maintenance-sweep-${sweeps}`,
            taskQueue: c.taskQueue,
            args: [],
          }),
        ]).catch((err) => say(`starting the sweeps failed: ${err}`));
      }
      return false;
    },
    { ms: deadline() - Date.now(), every: 1000 },
  );
  if (!settled) say(`settling: gave up after the deadline (${last})`);
}
