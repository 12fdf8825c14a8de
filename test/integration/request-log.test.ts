// The request log (GET /api/v1/requests) and callback resend (POST /api/v1/generations/<id>/deliveries): what is
// recorded (route patterns, statuses, error codes, no secrets), filters and cursors, per-key and per-mode views,
// retention (30 days, 1,000 per key), and resends: signed, logged, limited.
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { createMaintenanceActivities } from '../../activities/maintenance';
import { createRequestLogActivities } from '../../activities/request-log';
import { createLogger } from '../../lib/log';
import { verifyWebhookSignature } from '../../lib/webhooks/signature';
import { insertRequestLogEntry, requestLogCount, seedRequestLog } from '../helpers/db-inspect';
import { account, createKey, http } from '../helpers/http';
import { startCallbackReceiver, type CallbackReceiver } from '../helpers/receiver';
import { storeDesign, useStack } from '../helpers/stack';
import { waitUpTo } from '../helpers/wait';

const RESENDS = 3;

describe('request log and callback resend', () => {
  const stack = useStack('request-log', {
    env: { ALLOW_PRIVATE_URLS: 'true', DELIVERY_RESENDS_PER_HOUR: String(RESENDS) },
  });
  let receiver: CallbackReceiver;
  let garment: any;
  let designUrl: string;

  before(async () => {
    receiver = await startCallbackReceiver();
    const a = await account(stack.baseUrl);
    garment = (await http(stack.baseUrl, 'GET', '/api/v1/garments?category=t-shirts&limit=1', { key: a.key })).body
      .garments[0];
    designUrl = await storeDesign(
      stack,
      await sharp({ create: { width: 300, height: 300, channels: 4, background: '#0033a0' } })
        .png()
        .toBuffer(),
    );
  });
  after(async () => {
    await receiver?.close();
  });

  const body = (over: Record<string, unknown> = {}) => ({
    designUrl,
    garmentId: garment.id,
    garmentImageUrl: garment.colors[0].imageUrl,
    ...over,
  });

  it('records each keyed request: route pattern, status, error code, key, request id; no ids, queries or secrets', async () => {
    const a = await account(stack.baseUrl);
    const other = await createKey(stack.baseUrl, a.cookie, { name: 'second' });
    const ok = await http(stack.baseUrl, 'GET', '/api/v1/garments?limit=1', { key: a.key });
    const missing = await http(stack.baseUrl, 'GET', '/api/v1/generations/gen_1_abcdefghij', { key: a.key });
    const bad = await http(stack.baseUrl, 'POST', '/api/v1/generate', { key: other.key, json: { designUrl: 'x' } });
    assert.equal(bad.status, 400);
    await http(stack.baseUrl, 'GET', '/api/v1/generations', { cookie: a.cookie });
    // refused before the caller is known: no account to log it for
    await http(stack.baseUrl, 'GET', '/api/v1/garments', { key: 'amk_live_' + 'f'.repeat(64) });

    const log = await http(stack.baseUrl, 'GET', '/api/v1/requests?limit=100', { key: a.key });
    assert.equal(log.status, 200, log.text);
    const entries = log.body.requests;
    assert.deepEqual(
      entries.map((e: any) => [e.method, e.route, e.status, e.errorCode, e.keyId]),
      [
        ['GET', '/api/v1/generations', 200, null, null],
        ['POST', '/api/v1/generate', 400, 'invalid_request', other.id],
        ['GET', '/api/v1/generations/:generationId', 404, 'not_found', a.keyId],
        ['GET', '/api/v1/garments', 200, null, a.keyId],
      ],
    );
    assert.equal(entries[3].requestId, ok.headers.get('x-request-id'));
    assert.equal(entries[2].requestId, missing.headers.get('x-request-id'));
    for (const e of entries) {
      assert.deepEqual(Object.keys(e).sort(), [
        'createdAt',
        'durationMs',
        'errorCode',
        'id',
        'keyId',
        'livemode',
        'method',
        'requestId',
        'route',
        'status',
        'via',
      ]);
      assert.equal(e.via, 'api');
      assert.ok(e.durationMs >= 0);
    }
    assert.ok(!log.text.includes(a.key) && !log.text.includes('gen_1_abcdefghij') && !log.text.includes('limit=1'));
    // the log read itself is logged on the next read
    const again = await http(stack.baseUrl, 'GET', '/api/v1/requests?limit=1', { cookie: a.cookie });
    assert.equal(again.body.requests[0].route, '/api/v1/requests');
    // another account sees none of it
    const stranger = await account(stack.baseUrl);
    const theirs = await http(stack.baseUrl, 'GET', '/api/v1/requests?limit=100', { key: stranger.key });
    assert.ok(theirs.body.requests.every((e: any) => e.keyId === stranger.keyId || e.keyId === null));
    assert.ok(!theirs.text.includes(a.keyId));
  });

  it('filters by key, status class, route and method, pages with cursors bound to the filters, validates the query', async () => {
    const a = await account(stack.baseUrl);
    for (let i = 0; i < 3; i++) await http(stack.baseUrl, 'GET', '/api/v1/garments?limit=1', { key: a.key });
    for (let i = 0; i < 2; i++)
      await http(stack.baseUrl, 'GET', '/api/v1/generations/gen_1_abcdefghij', { key: a.key });
    const q = (s: string) => http(stack.baseUrl, 'GET', `/api/v1/requests?${s}`, { key: a.key });

    const fours = await q('status=4xx&limit=100');
    assert.equal(fours.body.requests.length, 2);
    assert.ok(fours.body.requests.every((e: any) => e.status === 404));
    const garments = await q(`route=${encodeURIComponent('/api/v1/garments')}&method=GET`);
    assert.equal(garments.body.requests.length, 3);
    const byKey = await q(`keyId=${a.keyId}&status=2xx`);
    assert.ok(byKey.body.requests.length >= 3 && byKey.body.requests.every((e: any) => e.keyId === a.keyId));
    const session = await q('keyId=session');
    assert.equal(session.body.requests.length, 0);

    // pages of 2 over the garments requests: no repeats, nothing missed
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await q(
        `route=${encodeURIComponent('/api/v1/garments')}&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      seen.push(...page.body.requests.map((e: any) => e.id));
      cursor = page.body.pagination.nextCursor;
    } while (cursor);
    assert.deepEqual(
      seen,
      garments.body.requests.map((e: any) => e.id),
    );
    const first = await q(`route=${encodeURIComponent('/api/v1/garments')}&limit=1`);
    const crossed = await q(`status=2xx&limit=1&cursor=${encodeURIComponent(first.body.pagination.nextCursor)}`);
    assert.equal(crossed.status, 400, 'a cursor is bound to its filters');

    for (const bad of ['status=6xx', 'keyId=nope', 'route=/etc/passwd', 'method=TRACE', 'limit=0', 'limit=101', 'x=1'])
      assert.equal((await q(bad)).status, 400, bad);
  });

  it('keeps test and live requests apart', async () => {
    const a = await account(stack.baseUrl);
    const t = await createKey(stack.baseUrl, a.cookie, { name: 'sandbox', mode: 'test' });
    await http(stack.baseUrl, 'GET', '/api/v1/garments?limit=1', { key: t.key });
    await http(stack.baseUrl, 'GET', '/api/v1/garments?limit=1', { key: a.key });
    const testLog = await http(stack.baseUrl, 'GET', '/api/v1/requests', { key: t.key });
    const liveLog = await http(stack.baseUrl, 'GET', '/api/v1/requests', { key: a.key });
    assert.ok(testLog.body.requests.every((e: any) => e.livemode === false && e.keyId === t.id));
    assert.ok(liveLog.body.requests.every((e: any) => e.livemode === true && e.keyId !== t.id));
    const viaSession = await http(stack.baseUrl, 'GET', '/api/v1/requests', {
      cookie: a.cookie,
      headers: { 'x-mockup-mode': 'test' },
    });
    assert.ok(viaSession.body.requests.some((e: any) => e.keyId === t.id));
  });

  it('keeps 1,000 requests per key and 30 days: reads never show more, the maintenance sweep deletes the rest', async () => {
    const a = await account(stack.baseUrl);
    await seedRequestLog(a.userId, a.keyId, 1005);
    await insertRequestLogEntry(a.userId, 'old', '31 days');
    let count = 0;
    let cursor: string | null = null;
    do {
      const page: any = await http(
        stack.baseUrl,
        'GET',
        `/api/v1/requests?keyId=${a.keyId}&limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        { cookie: a.cookie },
      );
      count += page.body.requests.length;
      cursor = page.body.pagination.nextCursor;
    } while (cursor);
    assert.equal(count, 1000);
    const session = await http(stack.baseUrl, 'GET', '/api/v1/requests?keyId=session', { cookie: a.cookie });
    assert.ok(!session.body.requests.some((e: any) => e.requestId === 'old'), 'older than 30 days: not shown');

    const purged = await createRequestLogActivities({
      sql: stack.sql,
      log: createLogger({ level: 'error' }),
    }).purgeRequestLog();
    assert.ok(purged >= 6, `purged ${purged}`);
    assert.equal(await requestLogCount(a.userId, { keyId: a.keyId }), 1000);
    assert.equal(await requestLogCount(a.userId, { requestId: 'old' }), 0);
    assert.ok(createMaintenanceActivities, 'the sweep module still loads');
  });

  it('resends a callback as a new signed delivery, logs its attempts, and limits resends per hour', async () => {
    const a = await account(stack.baseUrl);
    const g = await http(stack.baseUrl, 'POST', '/api/v1/generate', {
      key: a.key,
      json: body({ webhookUrl: receiver.url }),
    });
    assert.equal(g.status, 200, g.text);
    const first = await receiver.waitFor(g.body.id);

    const resent = await http(stack.baseUrl, 'POST', `/api/v1/generations/${g.body.id}/deliveries`, { key: a.key });
    assert.equal(resent.status, 202, resent.text);
    assert.equal(resent.body.delivery.trigger, 'resend');
    assert.equal(resent.body.delivery.status, 'pending');
    await waitUpTo(() => receiver.count(g.body.id) >= 2, { ms: 30_000, every: 50 });
    const copies = receiver.requests.filter((r) => r.body.toString('utf8').includes(g.body.id));
    assert.equal(copies.length, 2);
    const second = copies[1]!;
    assert.ok(second.body.equals(first.body), 'the same body, byte for byte');
    assert.equal(second.headers['x-mockup-delivery-id'], resent.body.delivery.id);
    assert.notEqual(second.headers['x-mockup-delivery-id'], first.headers['x-mockup-delivery-id']);
    const secret = (await http(stack.baseUrl, 'GET', '/api/v1/webhooks/secret', { cookie: a.cookie })).body.secret;
    assert.equal(
      verifyWebhookSignature({ body: second.body, header: String(second.headers['x-mockup-signature']), secret }).valid,
      true,
    );
    let list: any;
    await waitUpTo(
      async () => {
        list = await http(stack.baseUrl, 'GET', `/api/v1/generations/${g.body.id}/deliveries`, { key: a.key });
        return list.body.deliveries.every((d: any) => d.status === 'delivered');
      },
      { ms: 10_000, every: 100 },
    );
    assert.deepEqual(
      list.body.deliveries.map((d: any) => [d.trigger, d.status, d.attempts[0]?.statusCode]),
      [
        ['generation', 'delivered', 200],
        ['resend', 'delivered', 200],
      ],
    );

    // elsewhere: a URL given for a generation made without one (session call, like the dashboard's Resend)
    const plain = await http(stack.baseUrl, 'POST', '/api/v1/generate', { key: a.key, json: body() });
    const noUrl = await http(stack.baseUrl, 'POST', `/api/v1/generations/${plain.body.id}/deliveries`, {
      cookie: a.cookie,
      json: {},
    });
    assert.equal(noUrl.status, 400);
    const toUrl = await http(stack.baseUrl, 'POST', `/api/v1/generations/${plain.body.id}/deliveries`, {
      cookie: a.cookie,
      headers: { origin: stack.baseUrl },
      json: { url: receiver.url },
    });
    assert.equal(toUrl.status, 202, toUrl.text);
    const built = JSON.parse((await receiver.waitFor(plain.body.id)).body.toString('utf8'));
    assert.equal(built.event, 'generation.completed');
    assert.equal(built.data.id, plain.body.id);
    assert.equal(built.livemode, true);

    // validation, other accounts and modes, and the hourly budget (RESENDS per account)
    const bads: [string, unknown][] = [
      ['a non-http url', { url: 'ftp://x' }],
      ['an unknown field', { to: receiver.url }],
    ];
    for (const [label, json] of bads) {
      const r = await http(stack.baseUrl, 'POST', `/api/v1/generations/${g.body.id}/deliveries`, { key: a.key, json });
      assert.equal(r.status, 400, label);
    }
    const stranger = await account(stack.baseUrl);
    const theirs = await http(stack.baseUrl, 'POST', `/api/v1/generations/${g.body.id}/deliveries`, {
      key: stranger.key,
    });
    assert.equal(theirs.status, 404);
    const t = await createKey(stack.baseUrl, a.cookie, { name: 'sandbox', mode: 'test' });
    const otherMode = await http(stack.baseUrl, 'POST', `/api/v1/generations/${g.body.id}/deliveries`, { key: t.key });
    assert.equal(otherMode.status, 404);
    // 2 resends used; one more fits, then 429
    const third = await http(stack.baseUrl, 'POST', `/api/v1/generations/${g.body.id}/deliveries`, { key: a.key });
    assert.equal(third.status, 202);
    const over = await http(stack.baseUrl, 'POST', `/api/v1/generations/${g.body.id}/deliveries`, { key: a.key });
    assert.equal(over.status, 429);
    assert.equal(over.body.error.details.scope, 'delivery-resends-hour');
    const retry = Number(over.headers.get('retry-after'));
    assert.ok(retry > 3500 && retry <= 3600, `Retry-After ${retry}`);
  });

  it('refuses to resend a generation still running (409)', async () => {
    const a = await account(stack.baseUrl);
    await stack.stopWorker();
    try {
      const g = await http(stack.baseUrl, 'POST', '/api/v1/generate', {
        key: a.key,
        json: body({ webhookUrl: receiver.url }),
        headers: { prefer: 'respond-async' },
      });
      assert.equal(g.status, 202);
      const r = await http(stack.baseUrl, 'POST', `/api/v1/generations/${g.body.id}/deliveries`, { key: a.key });
      assert.equal(r.status, 409);
    } finally {
      await stack.startWorker();
    }
  });
});
