import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createWebhookActivities } from '../../activities/webhooks';
import { timeId } from '../../lib/ids';
import { createLogger } from '../../lib/log';
import { generationCompletedPayload, generationFailedPayload } from '../../lib/webhooks/types';
import { parseSignatureHeader, verifyWebhookSignature } from '../../lib/webhooks/signature';
import type { WebhookDeliveryInput } from '../../lib/webhooks/types';
import { webhookDelivery } from '../../workflows/webhook-delivery';
import * as inspect from '../helpers/db-inspect';
import { account, http } from '../helpers/http';
import { startStack, type Stack } from '../helpers/stack';

// Small numbers so retries happen in well under a second and a whole retry window passes in a few seconds.
const FAST_WEBHOOKS = {
  WEBHOOK_TIMEOUT_MS: '500',
  WEBHOOK_RETRY_INITIAL: '200ms',
  WEBHOOK_RETRY_MAX_INTERVAL: '1s',
  WEBHOOK_RETRY_WINDOW: '5s',
};

interface Received {
  headers: IncomingHttpHeaders;
  body: Buffer;
  at: number;
}

/** What the receiver does with request number n (1-based): answer with a status, or never answer. */
type Behavior = (n: number) => number | 'hang';

interface Receiver {
  url: string;
  requests: Received[];
  close(): Promise<void>;
}

async function startReceiver(behavior: Behavior): Promise<Receiver> {
  const requests: Received[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests.push({ headers: req.headers, body: Buffer.concat(chunks), at: Date.now() });
      const what = behavior(requests.length);
      if (what === 'hang') return;
      res.writeHead(what, { 'content-type': 'text/plain' }).end(what < 300 ? 'ok' : 'nope');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks/mockups`,
    requests,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

function completedInput(generationId: string, accountId: string, url: string): WebhookDeliveryInput {
  const payload = generationCompletedPayload({
    id: generationId,
    mockupUrl: `https://cdn.example.com/${generationId}.jpg`,
    tokensUsed: 1,
    completedAt: new Date(),
  });
  return { generationId, accountId, url, event: payload.event, payload: { ...payload } };
}

async function deliver(stack: Stack, input: WebhookDeliveryInput) {
  const handle = await stack.client.workflow.start(webhookDelivery, {
    workflowId: `webhook-${input.generationId}`,
    taskQueue: stack.taskQueue,
    args: [input],
    workflowExecutionTimeout: '2 minutes',
  });
  return handle.result();
}

/** The backoff the workflow asked for, read from its history: exact, unlike wall-clock gaps (the dev server fires
 * timers with about one second of granularity). */
async function timersOf(stack: Stack, generationId: string): Promise<number[]> {
  const history = await stack.client.workflow.getHandle(`webhook-${generationId}`).fetchHistory();
  return (history.events ?? [])
    .map((e) => e.timerStartedEventAttributes?.startToFireTimeout)
    .filter((d) => d != null)
    .map((d) => Number(String(d!.seconds ?? 0)) * 1000 + Math.round((d!.nanos ?? 0) / 1e6));
}

const hmac = (secret: string, t: string, body: Buffer) =>
  createHmac('sha256', secret).update(`${t}.`).update(body).digest('hex');

describe('webhook delivery (signed, retried, recorded)', function () {
  this.timeout(60_000);
  let stack: Stack;
  let guarded: Stack;
  let acct: Awaited<ReturnType<typeof account>>;
  const receivers: Receiver[] = [];
  const receiver = async (b: Behavior) => {
    const r = await startReceiver(b);
    receivers.push(r);
    return r;
  };
  const secretOf = async (cookie: string): Promise<string> => {
    const res = await http(stack.baseUrl, 'GET', '/api/v1/webhooks/secret', { cookie });
    assert.equal(res.status, 200, res.text);
    return res.body.secret;
  };

  before(async () => {
    // Loopback receivers need ALLOW_PRIVATE_URLS; the second stack keeps the guard's default to prove it applies.
    stack = await startStack('webhooks', { env: { ...FAST_WEBHOOKS, ALLOW_PRIVATE_URLS: 'true' } });
    guarded = await startStack('webhooks-guard', { env: { ...FAST_WEBHOOKS, ALLOW_PRIVATE_URLS: 'false' } });
    acct = await account(stack.baseUrl);
  });
  after(async () => {
    for (const r of receivers) await r.close();
    await stack?.stop();
    await guarded?.stop();
  });

  it('retries 500, 500 then 200 with growing backoff; identical signed bodies; 3 attempts recorded', async () => {
    const rcv = await receiver((n) => (n <= 2 ? 500 : 200));
    const genId = await inspect.insertCompletedGeneration(acct.userId, rcv.url);
    const input = completedInput(genId, acct.userId, rcv.url);
    const result = await deliver(stack, input);
    assert.deepEqual(result, { delivered: true, attempts: 3 });

    assert.equal(rcv.requests.length, 3);
    const secret = await secretOf(acct.cookie);
    assert.match(secret, /^whsec_[0-9a-f]{64}$/);
    const expectedBody = JSON.stringify(input.payload);
    const deliveryId = rcv.requests[0]!.headers['x-mockup-delivery-id'];
    assert.match(String(deliveryId), /^dlv_\d+_[a-z0-9]{10}$/);
    for (const req of rcv.requests) {
      assert.equal(req.body.toString('utf8'), expectedBody, 'byte-identical body on every attempt');
      assert.equal(req.headers['x-mockup-delivery-id'], deliveryId, 'same delivery id on every attempt');
      assert.equal(req.headers['x-mockup-event'], 'generation.completed');
      assert.equal(req.headers['content-type'], 'application/json');
      assert.match(String(req.headers['user-agent']), /\S+\/\d/);
      const header = String(req.headers['x-mockup-signature']);
      const t = String(req.headers['x-mockup-timestamp']);
      assert.match(header, new RegExp(`^t=${t},v1=[0-9a-f]{64}$`));
      assert.ok(Math.abs(Number(t) - Math.floor(req.at / 1000)) <= 2, 'timestamp is the send time');
      // Our helper and an independent HMAC agree.
      assert.deepEqual(verifyWebhookSignature({ body: req.body, header, secret }), {
        valid: true,
        timestamp: Number(t),
      });
      assert.equal(header.split('v1=')[1], hmac(secret, t, req.body));
    }
    const body = JSON.parse(expectedBody);
    assert.deepEqual(Object.keys(body).sort(), ['data', 'event', 'livemode', 'timestamp']);
    assert.deepEqual(Object.keys(body.data).sort(), ['id', 'mockupUrl', 'status', 'tokensUsed']);

    // Backoff: first retry after 200 ms less up to 20 % jitter, the second after twice that; durable timers.
    const [t1, t2, ...more] = await timersOf(stack, genId);
    assert.deepEqual(more, []);
    assert.ok(t1! >= 160 && t1! <= 200, `first retry timer ${t1} ms`);
    assert.ok(t2! >= 320 && t2! <= 400, `second retry timer ${t2} ms`);
    const gap1 = rcv.requests[1]!.at - rcv.requests[0]!.at;
    const gap2 = rcv.requests[2]!.at - rcv.requests[1]!.at;
    assert.ok(gap1 >= t1! - 20 && gap1 < 5000, `first retry after ${gap1} ms`);
    assert.ok(gap2 >= t2! - 20 && gap2 < 5000, `second retry after ${gap2} ms`);

    const attempts = await inspect.webhookAttempts(genId);
    assert.deepEqual(
      attempts.map((a) => [a.attempt, a.statusCode, a.outcome]),
      [
        [1, 500, 'retry'],
        [2, 500, 'retry'],
        [3, 200, 'delivered'],
      ],
    );
    assert.match(attempts[0]!.error!, /500/);
    assert.equal(attempts[2]!.error, null);
    for (const a of attempts) assert.ok(a.durationMs >= 0 && a.durationMs < 5000);
    const d = await inspect.webhookDelivery(genId);
    assert.equal(d.id, deliveryId);
    assert.equal(d.status, 'delivered');
    assert.equal(d.attempts, 3);
    assert.ok(d.finishedAt);

    // The deliveries endpoint shows the same, to the owner's key only.
    const list = await http(stack.baseUrl, 'GET', `/api/v1/generations/${genId}/deliveries`, { key: acct.key });
    assert.equal(list.status, 200, list.text);
    assert.equal(list.body.deliveries.length, 1);
    const shown = list.body.deliveries[0];
    assert.equal(shown.id, deliveryId);
    assert.equal(shown.event, 'generation.completed');
    assert.equal(shown.url, rcv.url);
    assert.equal(shown.status, 'delivered');
    assert.deepEqual(
      shown.attempts.map((a: any) => [a.number, a.statusCode]),
      [
        [1, 500],
        [2, 500],
        [3, 200],
      ],
    );
    for (const a of shown.attempts) {
      assert.deepEqual(Object.keys(a).sort(), ['attemptedAt', 'durationMs', 'error', 'number', 'statusCode']);
      assert.ok(!Number.isNaN(Date.parse(a.attemptedAt)));
    }
    assert.ok(Date.parse(shown.attempts[1].attemptedAt) > Date.parse(shown.attempts[0].attemptedAt));

    const other = await account(stack.baseUrl);
    const foreign = await http(stack.baseUrl, 'GET', `/api/v1/generations/${genId}/deliveries`, { key: other.key });
    assert.equal(foreign.status, 404);
    assert.equal(foreign.body.error.code, 'not_found');
    const unknown = await http(stack.baseUrl, 'GET', `/api/v1/generations/${timeId('gen')}/deliveries`, {
      key: acct.key,
    });
    assert.equal(unknown.status, 404);
    const malformed = await http(stack.baseUrl, 'GET', `/api/v1/generations/nope/deliveries`, { key: acct.key });
    assert.equal(malformed.status, 404);
    const anonymous = await http(stack.baseUrl, 'GET', `/api/v1/generations/${genId}/deliveries`);
    assert.equal(anonymous.status, 401);
    assert.equal(anonymous.body.error.code, 'unauthorized');

    // Starting webhook-<id> again finds the finished delivery: nothing is sent twice.
    assert.deepEqual(await deliver(stack, input), { delivered: true, attempts: 3 });
    assert.equal(rcv.requests.length, 3);
  });

  it('decides on the status code alone: a 200 with a slow or larger-than-1-MB body is delivered at once', async () => {
    for (const kind of ['slow', 'huge'] as const) {
      let hits = 0;
      const server: Server = createServer((req, res) => {
        req.resume();
        req.on('end', () => {
          hits++;
          res.writeHead(200, { 'content-type': 'text/plain' });
          res.flushHeaders();
          if (kind === 'huge') {
            res.end(Buffer.alloc(3 * 1024 * 1024, 0x61)); // 3 MB, past the 1 MB response bound
          } else {
            // a byte every 200 ms for far longer than the 500 ms timeout
            const timer = setInterval(() => res.write('.'), 200);
            res.on('close', () => clearInterval(timer));
          }
        });
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
      try {
        const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
        const genId = await inspect.insertCompletedGeneration(acct.userId, url);
        const result = await deliver(stack, completedInput(genId, acct.userId, url));
        assert.deepEqual(result, { delivered: true, attempts: 1 }, kind);
        assert.equal(hits, 1, `${kind}: no retry`);
        const [attempt] = await inspect.webhookAttempts(genId);
        assert.equal(attempt!.statusCode, 200);
        assert.equal(attempt!.outcome, 'delivered');
        assert.equal(attempt!.error, null);
      } finally {
        server.closeAllConnections();
        await new Promise<void>((r) => server.close(() => r()));
      }
    }
  });

  it('lists an empty delivery log for a generation without a webhook', async () => {
    const genId = await inspect.insertCompletedGeneration(acct.userId, 'https://example.com/unused');
    const res = await http(stack.baseUrl, 'GET', `/api/v1/generations/${genId}/deliveries`, { key: acct.key });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { deliveries: [] });
  });

  it('treats a receiver that does not answer within the timeout as a failed attempt and retries', async () => {
    const rcv = await receiver((n) => (n === 1 ? 'hang' : 200));
    const genId = await inspect.insertCompletedGeneration(acct.userId, rcv.url);
    const payload = generationFailedPayload({
      id: genId,
      error: 'Design URL did not return an image',
      tokensUsed: 0,
      failedAt: new Date(),
    });
    const result = await deliver(stack, {
      generationId: genId,
      accountId: acct.userId,
      url: rcv.url,
      event: 'generation.failed',
      payload: { ...payload },
    });
    assert.deepEqual(result, { delivered: true, attempts: 2 });
    const attempts = await inspect.webhookAttempts(genId);
    assert.equal(attempts.length, 2);
    assert.equal(attempts[0]!.statusCode, null);
    assert.match(attempts[0]!.error!, /timed out after 500 ms/i);
    assert.ok(
      attempts[0]!.durationMs >= 450 && attempts[0]!.durationMs < 3000,
      `timed out after ${attempts[0]!.durationMs} ms`,
    );
    assert.equal(attempts[1]!.statusCode, 200);
    assert.equal(rcv.requests[0]!.headers['x-mockup-event'], 'generation.failed');
    assert.equal(rcv.requests[1]!.body.toString(), JSON.stringify(payload));
    assert.equal(rcv.requests[0]!.headers['x-mockup-delivery-id'], rcv.requests[1]!.headers['x-mockup-delivery-id']);
  });

  it('gives up when the retry window ends, with capped delays, and records every attempt', async () => {
    const rcv = await receiver(() => 503);
    const genId = await inspect.insertCompletedGeneration(acct.userId, rcv.url);
    const started = Date.now();
    const result = await deliver(stack, completedInput(genId, acct.userId, rcv.url));
    const elapsed = Date.now() - started;
    assert.equal(result.delivered, false);
    assert.ok(result.attempts >= 4, `only ${result.attempts} attempts in a 5 s window`);
    assert.ok(elapsed >= 4500 && elapsed < 15_000, `window of 5 s took ${elapsed} ms`);
    assert.equal(rcv.requests.length, result.attempts);
    // One timer between two attempts; growing from 200 ms, never above the 1 s cap.
    const timers = await timersOf(stack, genId);
    assert.equal(timers.length, result.attempts - 1);
    assert.ok(timers[0]! <= 200 && timers[1]! > timers[0]!, String(timers));
    assert.ok(
      timers.every((t) => t <= 1000),
      `a delay exceeds the 1 s cap: ${timers}`,
    );
    const last = rcv.requests.at(-1)!.at - rcv.requests[0]!.at;
    assert.ok(last <= 5000 + 2500, `last attempt ${last} ms after the first, past the 5 s window`);
    const attempts = await inspect.webhookAttempts(genId);
    assert.deepEqual(
      attempts.map((a) => a.attempt),
      rcv.requests.map((_, i) => i + 1),
    );
    assert.ok(attempts.every((a) => a.statusCode === 503 && a.outcome === 'retry'));
    const d = await inspect.webhookDelivery(genId);
    assert.equal(d.status, 'failed');
    assert.equal(d.attempts, result.attempts);
  });

  it('refuses a private address through the SSRF guard at once: one recorded attempt, nothing sent', async () => {
    const rcv = await receiver(() => 200);
    const g = await account(guarded.baseUrl);
    const cases: [string, RegExp][] = [
      [rcv.url, /refused.*loopback/i],
      ['http://169.254.169.254/latest/meta-data/', /refused.*metadata/i],
      ['ftp://example.com/hook', /refused.*http/i],
    ];
    for (const [url, why] of cases) {
      const genId = await inspect.insertCompletedGeneration(g.userId, url);
      const started = Date.now();
      const result = await deliver(guarded, completedInput(genId, g.userId, url));
      assert.deepEqual(result, { delivered: false, attempts: 1 }, url);
      assert.ok(Date.now() - started < 5000, 'no retries for a refused URL');
      const [a] = await inspect.webhookAttempts(genId);
      assert.equal(a!.outcome, 'refused');
      assert.equal(a!.statusCode, null);
      assert.match(a!.error ?? '', why);
      assert.equal((await inspect.webhookDelivery(genId)).status, 'failed');
      const shown = await http(guarded.baseUrl, 'GET', `/api/v1/generations/${genId}/deliveries`, { key: g.key });
      assert.equal(shown.body.deliveries[0].status, 'failed');
      assert.equal(shown.body.deliveries[0].attempts[0].error, a!.error);
    }
    assert.equal(rcv.requests.length, 0, 'the receiver on a loopback address was never contacted');
  });

  it('signature verification rejects a tampered body, a wrong secret and a stale timestamp', async () => {
    const rcv = await receiver(() => 200);
    const genId = await inspect.insertCompletedGeneration(acct.userId, rcv.url);
    await deliver(stack, completedInput(genId, acct.userId, rcv.url));
    const secret = await secretOf(acct.cookie);
    const req = rcv.requests[0]!;
    const header = String(req.headers['x-mockup-signature']);
    assert.equal(verifyWebhookSignature({ body: req.body, header, secret }).valid, true);
    const tampered = Buffer.from(req.body.toString().replace('"tokensUsed":1', '"tokensUsed":9'));
    assert.notDeepEqual(tampered, req.body);
    assert.deepEqual(verifyWebhookSignature({ body: tampered, header, secret }), {
      valid: false,
      reason: 'signature_mismatch',
    });
    assert.deepEqual(verifyWebhookSignature({ body: req.body, header, secret: 'whsec_' + '0'.repeat(64) }), {
      valid: false,
      reason: 'signature_mismatch',
    });
    assert.deepEqual(verifyWebhookSignature({ body: req.body, header, secret, now: Date.now() + 3600_000 }), {
      valid: false,
      reason: 'timestamp_out_of_tolerance',
    });
  });

  it('records an attempt once even when the activity runs twice with the same attempt number', async () => {
    const rcv = await receiver(() => 500);
    const genId = await inspect.insertCompletedGeneration(acct.userId, rcv.url);
    const acts = createWebhookActivities({
      sql: stack.sql,
      config: stack.config,
      log: createLogger({ level: 'error' }),
    });
    const input = completedInput(genId, acct.userId, rcv.url);
    const first = await acts.prepareWebhookDelivery(input);
    // A second prepare (a re-run activity) returns the same delivery and keeps the first serialized body.
    const again = await acts.prepareWebhookDelivery({
      ...input,
      payload: { ...input.payload, timestamp: new Date(0).toISOString() },
    });
    assert.equal(again.deliveryId, first.deliveryId);
    assert.equal((await inspect.webhookDelivery(genId)).body, JSON.stringify(input.payload));

    const a1 = await acts.attemptWebhookDelivery({ deliveryId: first.deliveryId, attempt: 1 });
    const a1again = await acts.attemptWebhookDelivery({ deliveryId: first.deliveryId, attempt: 1 });
    assert.deepEqual(a1again, a1);
    assert.equal(rcv.requests.length, 1, 'a recorded attempt is not sent again');
    await acts.attemptWebhookDelivery({ deliveryId: first.deliveryId, attempt: 2 });
    assert.equal(rcv.requests.length, 2);
    assert.deepEqual(
      (await inspect.webhookAttempts(genId)).map((a) => a.attempt),
      [1, 2],
    );
    assert.equal((await inspect.webhookDelivery(genId)).attempts, 2);
    const done = await acts.finishWebhookDelivery({ deliveryId: first.deliveryId, status: 'failed' });
    assert.deepEqual(done, { status: 'failed', attempts: 2 });
    // A later finish does not overturn the recorded outcome.
    assert.deepEqual(await acts.finishWebhookDelivery({ deliveryId: first.deliveryId, status: 'delivered' }), {
      status: 'failed',
      attempts: 2,
    });
  });

  describe('signing secret endpoints', () => {
    it('need a session: no cookie or an API key gets 401', async () => {
      for (const [method, path] of [
        ['GET', '/api/v1/webhooks/secret'],
        ['POST', '/api/v1/webhooks/secret/rotate'],
      ] as const) {
        const none = await http(stack.baseUrl, method, path);
        assert.equal(none.status, 401);
        assert.equal(none.body.error.code, 'unauthorized');
        const keyed = await http(stack.baseUrl, method, path, { key: acct.key });
        assert.equal(keyed.status, 401);
      }
    });

    it('creates the secret on first read and returns the same one after', async () => {
      const fresh = await account(stack.baseUrl);
      const a = await http(stack.baseUrl, 'GET', '/api/v1/webhooks/secret', { cookie: fresh.cookie });
      assert.equal(a.status, 200);
      assert.match(a.body.secret, /^whsec_[0-9a-f]{64}$/);
      assert.equal(a.body.previousSecretExpiresAt, null);
      assert.equal(a.headers.get('cache-control'), 'no-store');
      const b = await http(stack.baseUrl, 'GET', '/api/v1/webhooks/secret', { cookie: fresh.cookie });
      assert.equal(b.body.secret, a.body.secret);
      assert.notEqual(await secretOf(acct.cookie), a.body.secret, 'each account has its own secret');
    });

    it('rotation changes the secret; the previous one keeps signing during the grace period, then stops', async () => {
      const owner = await account(stack.baseUrl);
      const old = await secretOf(owner.cookie);
      const rotated = await http(stack.baseUrl, 'POST', '/api/v1/webhooks/secret/rotate', { cookie: owner.cookie });
      assert.equal(rotated.status, 200, rotated.text);
      const next = rotated.body.secret as string;
      assert.match(next, /^whsec_[0-9a-f]{64}$/);
      assert.notEqual(next, old);
      const grace = Date.parse(rotated.body.previousSecretExpiresAt) - Date.now();
      assert.ok(Math.abs(grace - 24 * 3600_000) < 60_000, `grace ${grace} ms`);
      assert.equal(await secretOf(owner.cookie), next);

      const rcv = await receiver(() => 200);
      const genId = await inspect.insertCompletedGeneration(owner.userId, rcv.url);
      await deliver(stack, completedInput(genId, owner.userId, rcv.url));
      const req = rcv.requests[0]!;
      const header = String(req.headers['x-mockup-signature']);
      const parsed = parseSignatureHeader(header)!;
      const t = String(parsed.timestamp);
      assert.deepEqual(
        parsed.signatures,
        [hmac(next, t, req.body), hmac(old, t, req.body)],
        'current first, then previous',
      );
      assert.equal(
        verifyWebhookSignature({ body: req.body, header, secret: old }).valid,
        true,
        'old secret verifies during grace',
      );
      assert.equal(verifyWebhookSignature({ body: req.body, header, secret: next }).valid, true);

      // Grace over: only the current secret signs.
      await inspect.expirePreviousSigningSecret(owner.userId);
      const after = await http(stack.baseUrl, 'GET', '/api/v1/webhooks/secret', { cookie: owner.cookie });
      assert.equal(after.body.previousSecretExpiresAt, null);
      const rcv2 = await receiver(() => 200);
      const gen2 = await inspect.insertCompletedGeneration(owner.userId, rcv2.url);
      await deliver(stack, completedInput(gen2, owner.userId, rcv2.url));
      const h2 = String(rcv2.requests[0]!.headers['x-mockup-signature']);
      assert.equal(parseSignatureHeader(h2)!.signatures.length, 1);
      assert.equal(verifyWebhookSignature({ body: rcv2.requests[0]!.body, header: h2, secret: old }).valid, false);
      assert.equal(verifyWebhookSignature({ body: rcv2.requests[0]!.body, header: h2, secret: next }).valid, true);
    });
  });
});
