// Metrics and traces of real processes: the API (api/main.ts) and the worker (worker/main.ts) run as child
// processes, as in production, with the worker's Prometheus endpoint on WORKER_METRICS_ADDRESS and both exporting
// spans to an OTLP/HTTP receiver in this test (the API as http/json, the worker as http/protobuf). A generation, a
// chat job, a Stripe event and a Shopify webhook go through them; then both metric endpoints are scraped, and the
// spans of one traced POST /api/v1/generate are followed from the API through the workflow to the callback.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { APP_METRICS } from '../../lib/metrics';
import { API_METRICS } from '../../api/metrics';
import { DEFAULT_CHAT_MODEL, MODEL_COST } from '../../lib/chat/types';
import { loadConfig } from '../../lib/config';
import { randomSuffix } from '../../lib/ids';
import { createStorage, fileUrl } from '../../lib/storage';
import { freePort } from '../../scripts/dev-services';
import { signBody } from '../../scripts/stand-ins/shopify-shop';
import { postEvent, signedEvent } from '../../scripts/stand-ins/stripe-events';
import { startFakeGemini, type FakeProvider } from '../helpers/fake-image-providers';
import { account, http } from '../helpers/http';
import { startOtlpReceiver, type OtlpReceiver } from '../helpers/otlp-receiver';
import { packCheckoutSession } from '../helpers/payments';
import { alertExpressions, dashboardExpressions, metricNames } from '../helpers/promql';
import { sleep, waitUpTo } from '../helpers/wait';

const ROOT = path.resolve(__dirname, '../..');
const METRICS_TOKEN = `metrics-${randomBytes(16).toString('hex')}`;
const SHOPIFY_SECRET = `shopify-secret-${randomSuffix(16)}`;

/** Parses Prometheus text: every sample as name, labels, value. */
function samples(text: string): { name: string; labels: Record<string, string>; value: number }[] {
  const out = [];
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)/.exec(line);
    if (!m) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!;
    out.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return out;
}

/** The sum of a metric's samples whose labels include `match`. */
function total(text: string, name: string, match: Record<string, string> = {}): number {
  return samples(text)
    .filter((s) => s.name === name && Object.entries(match).every(([k, v]) => s.labels[k] === v))
    .reduce((n, s) => n + s.value, 0);
}

/** An address of this machine that is not loopback, if it has one. */
function nonLoopbackAddress(): string | undefined {
  for (const list of Object.values(os.networkInterfaces()))
    for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  return undefined;
}

describe('observability: /metrics, the worker Prometheus endpoint, and traces across the processes', function () {
  this.timeout(300_000);
  let api: ChildProcess | undefined;
  let worker: ChildProcess | undefined;
  let otlp: OtlpReceiver;
  let gemini: FakeProvider;
  let receiver: Server;
  const callbacks: { headers: IncomingHttpHeaders; body: string }[] = [];
  const logs: Record<string, unknown>[] = [];
  let baseUrl: string;
  let workerMetricsUrl: string;
  let external: string | undefined;
  let apiPort: number;

  const scrapeApi = async () => {
    const res = await fetch(`${baseUrl}/metrics`);
    assert.equal(res.status, 200);
    return res.text();
  };
  const scrapeWorker = async () => {
    const res = await fetch(workerMetricsUrl);
    assert.equal(res.status, 200);
    return res.text();
  };

  before(async () => {
    otlp = await startOtlpReceiver();
    gemini = await startFakeGemini('obs-gemini-key');
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        callbacks.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));

    apiPort = await freePort();
    external = nonLoopbackAddress();
    // bound on every interface when this machine has another address, so a non-loopback caller can be tested
    const host = external ? '0.0.0.0' : '127.0.0.1';
    baseUrl = `http://127.0.0.1:${apiPort}`;
    const workerMetrics = `127.0.0.1:${await freePort()}`;
    workerMetricsUrl = `http://${workerMetrics}/metrics`;
    const common = {
      ...process.env,
      TEMPORAL_TASK_QUEUE: `test-observability-${randomSuffix(6)}`,
      PUBLIC_BASE_URL: baseUrl,
      ALLOW_PRIVATE_URLS: 'true',
      LOG_LEVEL: 'info',
      // the suite's accounts all sign up from 127.0.0.1 on one database: the signup limit is not under test here
      AUTH_SIGNUPS_PER_IP: '1000000',
      RATE_LIMIT_PER_MINUTE: '100000',
      RATE_LIMIT_GENERATE_PER_MINUTE: '100000',
      GEMINI_API_KEY: gemini.apiKey,
      GEMINI_BASE_URL: gemini.baseUrl,
      SHOPIFY_API_KEY: 'obs-shopify-key',
      SHOPIFY_API_SECRET: SHOPIFY_SECRET,
      TOKEN_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
      OTEL_BSP_SCHEDULE_DELAY: '100',
    };
    const run = (name: 'api' | 'worker', env: Record<string, string>) => {
      const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, name, 'main.ts')], {
        cwd: ROOT,
        env: { ...common, ...env },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let rest = '';
      child.stdout!.on('data', (c: Buffer) => {
        const parts = (rest + c.toString('utf8')).split('\n');
        rest = parts.pop()!;
        for (const line of parts) {
          try {
            logs.push({ process: name, ...(JSON.parse(line) as Record<string, unknown>) });
          } catch {
            // not a log line
          }
        }
      });
      return child;
    };
    api = run('api', {
      PORT: String(apiPort),
      HOST: host,
      METRICS_TOKEN,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    });
    worker = run('worker', {
      WORKER_METRICS_ADDRESS: workerMetrics,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
    });
    // ready: the API answers /readyz (which includes a polling worker) and the worker's endpoint answers
    const up = (url: string) =>
      fetch(url).then(
        (r) => r.ok,
        () => false,
      );
    const ready = await waitUpTo(
      async () => {
        if ((await up(`${baseUrl}/readyz`)) && (await up(workerMetricsUrl))) return true;
        if (api!.exitCode !== null || worker!.exitCode !== null) throw new Error('a child process exited');
        return false;
      },
      { ms: 180_000, every: 250 },
    );
    if (!ready) throw new Error('the API and worker processes did not become ready');
  });

  after(async () => {
    for (const p of [api, worker]) if (p && p.exitCode === null && p.signalCode === null) p.kill('SIGTERM');
    await Promise.all(
      [api, worker].map((p) =>
        p && p.exitCode === null && p.signalCode === null
          ? new Promise((r) => {
              p.once('exit', r);
              setTimeout(() => {
                p.kill('SIGKILL');
              }, 15_000).unref();
            })
          : undefined,
      ),
    );
    receiver?.close();
    await gemini?.stop();
    await otlp?.stop();
  });

  /** A generation request with a new design of ours and a callback to the receiver. */
  async function generationRequest(key: string) {
    const list = await http(baseUrl, 'GET', '/api/v1/garments?category=t-shirts&limit=1', { key });
    const garment = list.body.garments[0];
    const config = loadConfig(process.env);
    const designKey = `test-designs/${randomSuffix()}.png`;
    const design = await sharp({
      create: { width: 400, height: 400, channels: 4, background: { r: 200, g: 20, b: 40, alpha: 1 } },
    })
      .png()
      .toBuffer();
    await createStorage(config).put(designKey, design, 'image/png');
    return {
      designUrl: fileUrl({ ...config, publicBaseUrl: baseUrl }, designKey),
      garmentId: garment.id,
      garmentImageUrl: garment.colors[0].imageUrl,
      webhookUrl: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`,
    };
  }

  /** Starts a generation; resolves with its finished resource. */
  async function generate(key: string, headers: Record<string, string> = {}) {
    const res = await http(baseUrl, 'POST', '/api/v1/generate', { key, headers, json: await generationRequest(key) });
    assert.ok(res.status === 200 || res.status === 202, res.text);
    const id: string = res.body.id;
    const finished = await waitUpTo(
      async () => {
        const got = await http(baseUrl, 'GET', `/api/v1/generations/${id}`, { key });
        return (got.body.status === 'completed' || got.body.status === 'failed') && got.body;
      },
      { ms: 120_000, every: 200 },
    );
    if (!finished) throw new Error(`generation ${id} did not finish`);
    return finished;
  }

  /** The callback mentioning generation `id` among those after the first `before`, once it came (30 s at most). */
  const callbackAfter = (before: number, id: string) =>
    waitUpTo(() => callbacks.slice(before).find((c) => String(c.body).includes(id)), { ms: 30_000, every: 100 });

  it('counts a generation, a chat job, a Stripe event and a Shopify webhook on the two endpoints', async () => {
    const acct = await account(baseUrl);
    const [apiBefore, workerBefore] = [await scrapeApi(), await scrapeWorker()];

    const gen = await generate(acct.key);
    assert.equal(gen.status, 'completed', JSON.stringify(gen));

    const chat = await http(baseUrl, 'POST', '/api/chat', {
      cookie: acct.cookie,
      json: { prompt: 'A small lighthouse logo in navy blue' },
    });
    assert.equal(chat.status, 200, chat.text);

    const config = loadConfig(process.env);
    const pack = config.payments.tokenPacks.at(-1)!;
    const session = await packCheckoutSession(baseUrl, acct, pack);
    const event = signedEvent(config.payments.webhookSecret!, 'checkout.session.completed', session);
    assert.equal((await postEvent(`${baseUrl}/api/payments/webhook`, event)).status, 200);

    const body = JSON.stringify({ id: 1, name: 'obs-shop' });
    const shopify = await http(baseUrl, 'POST', '/api/storefront/webhooks/orders', {
      headers: {
        'content-type': 'application/json',
        'x-shopify-topic': 'app/uninstalled',
        'x-shopify-shop-domain': `obs-${randomSuffix(8)}.myshopify.com`,
        'x-shopify-webhook-id': `wh-${randomSuffix(10)}`,
        'x-shopify-api-version': '2026-10',
        'x-shopify-hmac-sha256': signBody(SHOPIFY_SECRET, body),
      },
      body,
    });
    assert.equal(shopify.status, 200, shopify.text);

    // the inbound events are applied by workflows after the answer: wait for the worker's counters
    const moved = (before: string, after: string, name: string, labels: Record<string, string> = {}) =>
      total(after, name, labels) - total(before, name, labels);
    let w = '';
    await waitUpTo(
      async () => {
        w = await scrapeWorker();
        return (
          moved(workerBefore, w, APP_METRICS.stripeEvents, { type: 'checkout.session.completed' }) >= 1 &&
          moved(workerBefore, w, APP_METRICS.shopifyWebhooks, { topic: 'app/uninstalled', outcome: 'processed' }) >=
            1 &&
          moved(workerBefore, w, APP_METRICS.webhookDeliveries, { outcome: 'delivered' }) >= 1
        );
      },
      { ms: 60_000, every: 250 },
    );
    const count = (n: string) => `${n}_count`;
    assert.equal(moved(workerBefore, w, count(APP_METRICS.generationDuration), { outcome: 'completed' }), 1);
    assert.equal(
      moved(workerBefore, w, count(APP_METRICS.chatJobDuration), { provider: 'gemini', outcome: 'completed' }),
      1,
    );
    assert.equal(moved(workerBefore, w, APP_METRICS.providerRequests, { provider: 'gemini', outcome: 'ok' }), 1);
    assert.ok(moved(workerBefore, w, APP_METRICS.webhookDeliveries, { outcome: 'delivered', attempt: '1' }) >= 1);
    assert.equal(moved(workerBefore, w, APP_METRICS.tokens, { direction: 'grant' }), pack.tokens);
    assert.equal(moved(workerBefore, w, APP_METRICS.stripeEvents, { type: 'checkout.session.completed' }), 1);
    assert.equal(
      moved(workerBefore, w, APP_METRICS.shopifyWebhooks, { topic: 'app/uninstalled', outcome: 'processed' }),
      1,
    );
    // the SDK's own metrics on the same endpoint
    assert.ok(
      samples(w).some((s) => s.name.startsWith('temporal_')),
      'temporal_* metrics',
    );

    const a = await scrapeApi();
    const route = (r: string, method: string) => ({ route: r, method });
    assert.ok(moved(apiBefore, a, `${API_METRICS.requestDuration}_count`, route('/api/v1/generate', 'POST')) >= 1);
    assert.ok(
      moved(apiBefore, a, `${API_METRICS.requestDuration}_count`, route('/api/v1/generations/:generationId', 'GET')) >=
        1,
    );
    assert.ok(moved(apiBefore, a, `${API_METRICS.requestDuration}_count`, route('/api/chat', 'POST')) >= 1);
    assert.ok(moved(apiBefore, a, `${API_METRICS.requestDuration}_count`, route('/api/payments/webhook', 'POST')) >= 1);
    // both debits are taken by the API in the request's transaction: the generation's token and the chat model's cost
    assert.equal(
      moved(apiBefore, a, API_METRICS.tokens, { direction: 'debit' }),
      1 + MODEL_COST[DEFAULT_CHAT_MODEL],
      'the generation and chat debits',
    );
    assert.equal(moved(workerBefore, w, APP_METRICS.tokens, { direction: 'debit' }), 0, 'no debit in the worker');
    assert.ok(samples(a).some((s) => s.name === API_METRICS.inFlight));
    assert.ok(
      samples(a).some((s) => s.name === 'process_cpu_user_seconds_total'),
      "Node's process metrics",
    );

    // `route` is a pattern: no label value holds an id, a raw path or a query
    const routes = new Set(
      samples(a)
        .filter((s) => s.labels.route !== undefined)
        .map((s) => s.labels.route!),
    );
    assert.ok(routes.size >= 4, [...routes].join(', '));
    for (const r of routes) {
      assert.doesNotMatch(r, /(gen|job|thr|msg|usr|key|upl|dlv)_[a-z0-9]/, r);
      assert.doesNotMatch(r, /\?/, r);
      assert.ok(r === '(unmatched)' || r.startsWith('/'), r);
    }
  });

  it('counts idempotent replays by route and rate-limit refusals by limit', async () => {
    const acct = await account(baseUrl);
    const before = await scrapeApi();
    const json = await generationRequest(acct.key);
    const headers = { 'idempotency-key': `obs-${randomSuffix(12)}` };
    const first = await http(baseUrl, 'POST', '/api/v1/generate', { key: acct.key, headers, json });
    const second = await http(baseUrl, 'POST', '/api/v1/generate', { key: acct.key, headers, json });
    assert.equal(second.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(second.body.id, first.body.id);
    // the chat limit (CHAT_RATE_PER_MINUTE, 10) counts every request, even one refused for its body
    const refusals: number[] = [];
    for (let i = 0; i < 11; i++)
      refusals.push((await http(baseUrl, 'POST', '/api/chat', { cookie: acct.cookie, json: {} })).status);
    assert.deepEqual(refusals, [...Array<number>(10).fill(400), 429]);
    const after = await scrapeApi();
    const moved = (name: string, labels: Record<string, string>) =>
      total(after, name, labels) - total(before, name, labels);
    assert.equal(moved(API_METRICS.idempotentReplays, { route: '/api/v1/generate' }), 1);
    assert.equal(moved(API_METRICS.rateLimited, {}), 1);
    const limits = samples(after).filter((s) => s.name === API_METRICS.rateLimited);
    for (const l of limits) assert.doesNotMatch(l.labels.limit!, /(usr|key)_[a-z0-9]/);
  });

  it('answers /metrics to loopback callers, to others only with the token, and 404 otherwise', async () => {
    assert.equal((await fetch(`${baseUrl}/metrics`)).status, 200);
    // a client behind a proxy on this machine (TRUST_PROXY=loopback, the default): its address is not loopback
    const forwarded = { 'x-forwarded-for': '203.0.113.7' };
    const refused = await fetch(`${baseUrl}/metrics`, { headers: forwarded });
    assert.equal(refused.status, 404);
    const unknown = await fetch(`${baseUrl}/no-such-page`, { headers: forwarded });
    assert.equal((await refused.text()).replace('/metrics', '/no-such-page'), await unknown.text(), 'the ordinary 404');
    const wrong = await fetch(`${baseUrl}/metrics`, { headers: { ...forwarded, authorization: 'Bearer nope' } });
    assert.equal(wrong.status, 404);
    const token = await fetch(`${baseUrl}/metrics`, {
      headers: { ...forwarded, authorization: `Bearer ${METRICS_TOKEN}` },
    });
    assert.equal(token.status, 200);
    assert.match(await token.text(), /http_request_duration_seconds_bucket/);
    // a caller on another interface of this machine, when it has one: not loopback either
    if (external) {
      const direct = await fetch(`http://${external}:${apiPort}/metrics`);
      assert.equal(direct.status, 404);
      const withToken = await fetch(`http://${external}:${apiPort}/metrics`, {
        headers: { authorization: `Bearer ${METRICS_TOKEN}` },
      });
      assert.equal(withToken.status, 200);
    }
    // and it is no part of the API's document
    const doc = await http(baseUrl, 'GET', '/api/v1/openapi.json');
    assert.equal(doc.body.paths['/metrics'], undefined);
  });

  it("continues a caller's unsampled traceparent under our sampler, and passes no baggage on", async () => {
    const acct = await account(baseUrl);
    const traceId = randomBytes(16).toString('hex');
    const before = callbacks.length;
    const gen = await generate(acct.key, {
      // the caller's flag says "not sampled": whether it is recorded is our sampler's call (always_on here)
      traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-00`,
      baggage: 'user.secret=baggage-must-not-travel',
    });
    assert.equal(gen.status, 'completed');
    const callback = await callbackAfter(before, gen.id);
    assert.ok(callback, 'the callback arrived');
    assert.equal(callback.headers.baggage, undefined, 'no baggage in the outgoing callback');
    assert.match(String(callback.headers.traceparent), new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
    await waitUpTo(() => otlp.spans.some((s) => s.traceId === traceId && s.service.endsWith('api')), {
      ms: 30_000,
      every: 100,
    });
    assert.ok(
      otlp.spans.some((s) => s.traceId === traceId),
      'the trace was recorded though the caller said not sampled',
    );
  });

  it('keeps one-time tokens and key-like query parameters out of span attributes and logs', async () => {
    const token = `tok${randomBytes(16).toString('hex')}`;
    const key = `key${randomBytes(16).toString('hex')}`;
    const page = await fetch(`${baseUrl}/reset-password?token=${token}`, { redirect: 'manual' });
    assert.equal(page.status, 302);
    const api = await fetch(`${baseUrl}/api/v1/garments?limit=1&api_key=${key}`);
    assert.equal(api.status, 401);
    // both requests' server spans are exported (batched every 100 ms)
    const exported = () => otlp.bodies.filter((b) => b.includes('/reset-password') && b.includes('REDACTED'));
    await waitUpTo(() => exported().length > 0, { ms: 30_000, every: 100 });
    assert.ok(exported().length > 0, 'the dashboard request was traced, its query redacted');
    await sleep(500);
    for (const secret of [token, key]) {
      assert.ok(!otlp.bodies.some((b) => b.includes(secret)), `${secret.slice(0, 3)}… in an exported span`);
      assert.ok(!logs.some((l) => JSON.stringify(l).includes(secret)), `${secret.slice(0, 3)}… in a log line`);
    }
    assert.ok(
      otlp.bodies.some((b) => b.includes('limit=1&api_key=REDACTED')),
      'other parameters stay',
    );
  });

  it('follows one traced POST /api/v1/generate through the API, the workflow, its activities and the callback', async () => {
    const acct = await account(baseUrl);
    const traceId = randomBytes(16).toString('hex');
    const parent = randomBytes(8).toString('hex');
    const before = callbacks.length;
    const gen = await generate(acct.key, { traceparent: `00-${traceId}-${parent}-01` });
    assert.equal(gen.status, 'completed');

    // the callback request carries the same trace
    const callback = await callbackAfter(before, gen.id);
    assert.ok(callback, 'the callback arrived');
    assert.match(String(callback.headers.traceparent), new RegExp(`^00-${traceId}-[0-9a-f]{16}-0[01]$`));

    // spans from both processes under that trace id (the exporters batch: wait for them)
    const names = () => otlp.spans.filter((s) => s.traceId === traceId);
    const want = (s: { name: string; service: string }) =>
      s.name.startsWith('RunActivity:') && s.service.endsWith('worker');
    // every span's parent is in the trace once the last workflow (the callback's) has ended and been exported
    const complete = () => {
      const got = names();
      const known = new Set(got.map((s) => s.spanId));
      return (
        got.some(want) &&
        got.some((s) => s.name.startsWith('RunWorkflow:')) &&
        got.every((s) => s.parentSpanId === parent || known.has(s.parentSpanId))
      );
    };
    await waitUpTo(complete, { ms: 30_000, every: 200 });
    const spans = names();
    const services = new Set(spans.map((s) => s.service));
    assert.ok(services.has('apparel-mockup-api'), [...services].join(', '));
    assert.ok(services.has('apparel-mockup-worker'), [...services].join(', '));
    const byName = (p: string) => spans.filter((s) => s.name.startsWith(p));
    assert.ok(byName('StartWorkflow:generation').length >= 1, spans.map((s) => s.name).join(', '));
    assert.ok(byName('RunWorkflow:generation').length >= 1, spans.map((s) => s.name).join(', '));
    assert.ok(byName('RunActivity:').length >= 1, spans.map((s) => s.name).join(', '));
    // each process's encoding made it: the API's as JSON, the worker's as protobuf
    assert.ok(spans.some((s) => s.service === 'apparel-mockup-api' && s.encoding === 'json'));
    assert.ok(spans.some((s) => s.service === 'apparel-mockup-worker' && s.encoding === 'protobuf'));
    // one tree: the API's server span continues the caller's parent, and every other span's parent is in the trace
    const ids = new Set(spans.map((s) => s.spanId));
    assert.ok(spans.some((s) => s.parentSpanId === parent && s.service === 'apparel-mockup-api'));
    const orphans = spans.filter((s) => s.parentSpanId !== parent && !ids.has(s.parentSpanId));
    assert.deepEqual(
      orphans.map((s) => `${s.service} ${s.name}`),
      [],
      'spans whose parent is not in the trace',
    );
    // the workflow run is a child of the API's StartWorkflow span
    const start = byName('StartWorkflow:generation')[0]!;
    assert.ok(byName('RunWorkflow:generation').some((s) => s.parentSpanId === start.spanId));

    // log lines written inside the traced request and the traced activity carry the trace's ids
    const line = (proc: string, msg: string) =>
      logs.find((l) => l.process === proc && l.msg === msg && l.generationId === gen.id);
    for (const [proc, msg] of [
      ['api', 'generation started'],
      ['worker', 'mockup rendered'],
    ] as const) {
      const l = line(proc, msg);
      assert.ok(l, `${proc} logged ${msg}`);
      assert.equal(l.traceId, traceId, `${proc}: ${JSON.stringify(l)}`);
      assert.ok(ids.has(String(l.spanId)), `${proc}: its spanId is a span of the trace`);
    }
  });

  it('exports every metric the alert rules and the Grafana dashboard name', async () => {
    const scraped = new Set([...samples(await scrapeApi()), ...samples(await scrapeWorker())].map((s) => s.name));
    // counters and histograms appear once something was recorded: the ones this run did not move are declared
    const histograms = [APP_METRICS.generationDuration, APP_METRICS.chatJobDuration, API_METRICS.requestDuration];
    const declared = new Set<string>([
      ...Object.values(APP_METRICS),
      ...Object.values(API_METRICS),
      ...histograms.flatMap((h) => [`${h}_bucket`, `${h}_count`, `${h}_sum`]),
    ]);
    const exported = (n: string) => scraped.has(n) || declared.has(n) || n === 'up'; // `up`: Prometheus's own
    const rules = alertExpressions();
    const panels = dashboardExpressions();
    assert.ok(rules.length >= 8 && panels.length >= 10, `${rules.length} rules, ${panels.length} panel queries`);
    for (const [what, exprs] of [
      ['alert rule', rules],
      ['dashboard panel', panels],
    ] as const)
      for (const e of exprs) {
        const names = metricNames(e);
        assert.ok(names.length > 0, `${what} names no metric: ${e}`);
        for (const n of names) assert.ok(exported(n), `${what} names ${n}, which nothing exports: ${e}`);
      }
    // and the check can fail
    assert.ok(!exported('mockup_no_such_metric_total'));
  });
});
