// Test mode (docs/test-mode.md): test keys, no tokens spent, the TEST watermark on the mockup's pixels, test and
// live data kept apart (keys, session header, lists, reads, deliveries, cursors), the daily test budget, and test
// callbacks signed like live ones.
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { debitTokens, tokenBalance } from '../../db/ledger';
import { randomSuffix } from '../../lib/ids';
import { verifyWebhookSignature } from '../../lib/webhooks/signature';
import { debitAmounts } from '../helpers/db-inspect';
import { account, createKey, http } from '../helpers/http';
import { startCallbackReceiver, type CallbackReceiver } from '../helpers/receiver';
import { storeDesign, useStack } from '../helpers/stack';

const PER_DAY = 6;

/** Share of pixels that are clearly the watermark's red (red high, green and blue low). */
async function redShare(jpeg: Buffer): Promise<number> {
  const { data, info } = await sharp(jpeg).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  let red = 0;
  for (let i = 0; i < data.length; i += 3) if (data[i]! > 150 && data[i + 1]! < 100 && data[i + 2]! < 100) red++;
  return red / (info.width * info.height);
}

const download = async (url: string) => Buffer.from(await (await fetch(url)).arrayBuffer());

describe('test mode: test keys, no charge, watermark, separation, limits', () => {
  const stack = useStack('test-mode', {
    env: { ALLOW_PRIVATE_URLS: 'true', TEST_MODE_GENERATIONS_PER_DAY: String(PER_DAY) },
  });
  let acct: Awaited<ReturnType<typeof account>>;
  let testKey: { key: string; id: string };
  let garment: any;
  let color: any;
  let designUrl: string;
  let receiver: CallbackReceiver;

  before(async () => {
    receiver = await startCallbackReceiver();
    acct = await account(stack.baseUrl);
    testKey = await createKey(stack.baseUrl, acct.cookie, { name: 'sandbox', mode: 'test' });
    const list = await http(stack.baseUrl, 'GET', '/api/v1/garments?category=t-shirts&limit=1', { key: acct.key });
    garment = list.body.garments[0];
    // the lightest color: the red watermark stands out and nothing else on it is red
    color = [...garment.colors].sort(
      (a: any, b: any) => parseInt(b.hex.slice(1), 16) - parseInt(a.hex.slice(1), 16),
    )[0];
    const navy = await sharp({ create: { width: 500, height: 500, channels: 4, background: '#0033a0' } })
      .png()
      .toBuffer();
    designUrl = await storeDesign(stack, navy);
  });
  after(async () => {
    await receiver?.close();
  });

  const body = (over: Record<string, unknown> = {}) => ({
    designUrl,
    garmentId: garment.id,
    garmentImageUrl: color.imageUrl,
    ...over,
  });

  it('creates test keys as <prefix>_test_<64 hex>, lists them with their mode, and refuses other modes', async () => {
    assert.match(testKey.key, /^amk_test_[0-9a-f]{64}$/);
    const created = await http(stack.baseUrl, 'POST', '/api/v1/keys', {
      cookie: acct.cookie,
      json: { name: 'another sandbox', mode: 'test' },
    });
    assert.equal(created.status, 201);
    assert.equal(created.body.metadata.mode, 'test');
    const live = await http(stack.baseUrl, 'POST', '/api/v1/keys', { cookie: acct.cookie, json: { name: 'default' } });
    assert.match(live.body.key, /^amk_live_[0-9a-f]{64}$/);
    assert.equal(live.body.metadata.mode, 'live');
    for (const mode of ['sandbox', 'TEST', 1, null]) {
      const bad = await http(stack.baseUrl, 'POST', '/api/v1/keys', { cookie: acct.cookie, json: { name: 'x', mode } });
      assert.equal(bad.status, 400, `mode ${JSON.stringify(mode)}`);
      assert.equal(bad.body.error.code, 'invalid_request');
    }
    const keys = await http(stack.baseUrl, 'GET', '/api/v1/keys', { cookie: acct.cookie });
    const byId = new Map(keys.body.keys.map((k: any) => [k.id, k.mode]));
    assert.equal(byId.get(testKey.id), 'test');
    assert.equal(byId.get(acct.keyId), 'live');
    // a test key is a working Part A key like any other
    const garments = await http(stack.baseUrl, 'GET', '/api/v1/garments?limit=1', { key: testKey.key });
    assert.equal(garments.status, 200);
  });

  it('generates with a test key without spending a token, even at a zero balance, and watermarks the mockup', async () => {
    const other = await account(stack.baseUrl);
    const sandbox = await createKey(stack.baseUrl, other.cookie, { name: 'sandbox', mode: 'test' });
    // spend the whole free allowance: live generation is refused, test generation still works
    const balance = await tokenBalance(stack.sql, other.userId);
    await debitTokens(stack.sql, other.userId, [{ reference: `drain-${randomSuffix()}`, amount: balance }]);
    const refused = await http(stack.baseUrl, 'POST', '/api/v1/generate', { key: other.key, json: body() });
    assert.equal(refused.status, 402);

    const res = await http(stack.baseUrl, 'POST', '/api/v1/generate', { key: sandbox.key, json: body() });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.status, 'completed');
    assert.equal(res.body.livemode, false);
    assert.equal(res.body.tokensUsed, 0);
    assert.equal(res.headers.get('x-tokens-remaining'), '0');
    assert.equal(await tokenBalance(stack.sql, other.userId), 0);
    assert.deepEqual(await debitAmounts(res.body.id), [], 'no debit for a test generation');

    // the same request live: charged, no watermark
    const live = await http(stack.baseUrl, 'POST', '/api/v1/generate', { key: acct.key, json: body() });
    assert.equal(live.status, 200, live.text);
    assert.equal(live.body.livemode, true);
    assert.equal(live.body.tokensUsed, 1);

    const testShare = await redShare(await download(res.body.mockupUrl));
    const liveShare = await redShare(await download(live.body.mockupUrl));
    assert.ok(testShare > 0.01, `TEST watermark red on the test mockup (${testShare})`);
    assert.ok(liveShare < 0.001, `no watermark on the live mockup (${liveShare})`);
    assert.ok((await redShare(await download(res.body.thumbnailUrl))) > 0.01, 'the thumbnail is watermarked too');
  });

  it('keeps test and live generations apart: lists, reads, deliveries, cursors, session header', async () => {
    const t = await http(stack.baseUrl, 'POST', '/api/v1/generate', {
      key: testKey.key,
      json: body(),
      headers: { prefer: 'respond-async' },
    });
    assert.equal(t.status, 202);
    const l = await http(stack.baseUrl, 'POST', '/api/v1/generate', {
      key: acct.key,
      json: body(),
      headers: { prefer: 'respond-async' },
    });
    assert.equal(l.status, 202);

    const testList = await http(stack.baseUrl, 'GET', '/api/v1/generations?limit=100', { key: testKey.key });
    const liveList = await http(stack.baseUrl, 'GET', '/api/v1/generations?limit=100', { key: acct.key });
    assert.ok(testList.body.generations.length > 0);
    assert.ok(testList.body.generations.every((g: any) => g.livemode === false));
    assert.ok(liveList.body.generations.every((g: any) => g.livemode === true));
    assert.ok(testList.body.generations.some((g: any) => g.id === t.body.id));
    assert.ok(!liveList.body.generations.some((g: any) => g.id === t.body.id));

    for (const [key, id] of [
      [testKey.key, l.body.id],
      [acct.key, t.body.id],
    ]) {
      const read = await http(stack.baseUrl, 'GET', `/api/v1/generations/${id}`, { key });
      assert.equal(read.status, 404, 'the other mode reads as missing');
      const dl = await http(stack.baseUrl, 'GET', `/api/v1/generations/${id}/deliveries`, { key });
      assert.equal(dl.status, 404);
    }
    assert.equal(
      (await http(stack.baseUrl, 'GET', `/api/v1/generations/${t.body.id}`, { key: testKey.key })).status,
      200,
    );

    // the dashboard's session picks the mode with X-Mockup-Mode
    const sTest = await http(stack.baseUrl, 'GET', '/api/v1/generations?limit=100', {
      cookie: acct.cookie,
      headers: { 'x-mockup-mode': 'test' },
    });
    assert.deepEqual(
      sTest.body.generations.map((g: any) => g.id),
      testList.body.generations.map((g: any) => g.id),
    );
    const sLive = await http(stack.baseUrl, 'GET', '/api/v1/generations?limit=100', { cookie: acct.cookie });
    assert.deepEqual(
      sLive.body.generations.map((g: any) => g.id),
      liveList.body.generations.map((g: any) => g.id),
    );
    const bad = await http(stack.baseUrl, 'GET', '/api/v1/generations', {
      cookie: acct.cookie,
      headers: { 'x-mockup-mode': 'sandbox' },
    });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.details.header, 'X-Mockup-Mode');
    // with a key, the key decides; a header naming the other mode is refused
    const clash = await http(stack.baseUrl, 'GET', '/api/v1/generations', {
      key: acct.key,
      headers: { 'x-mockup-mode': 'test' },
    });
    assert.equal(clash.status, 400);
    const agree = await http(stack.baseUrl, 'GET', '/api/v1/generations', {
      key: testKey.key,
      headers: { 'x-mockup-mode': 'test' },
    });
    assert.equal(agree.status, 200);

    // a cursor from one mode is refused in the other
    const page = await http(stack.baseUrl, 'GET', '/api/v1/generations?limit=1', { key: acct.key });
    assert.ok(page.body.pagination.nextCursor);
    const cross = await http(
      stack.baseUrl,
      'GET',
      `/api/v1/generations?limit=1&cursor=${encodeURIComponent(page.body.pagination.nextCursor)}`,
      { key: testKey.key },
    );
    assert.equal(cross.status, 400);
  });

  it('sends test callbacks signed like live ones, with livemode false and no token', async () => {
    const res = await http(stack.baseUrl, 'POST', '/api/v1/generate', {
      key: testKey.key,
      json: body({ webhookUrl: receiver.url }),
    });
    assert.equal(res.status, 200, res.text);
    const req = await receiver.waitFor(res.body.id);
    const secret = (await http(stack.baseUrl, 'GET', '/api/v1/webhooks/secret', { cookie: acct.cookie })).body.secret;
    const check = verifyWebhookSignature({ body: req.body, header: String(req.headers['x-mockup-signature']), secret });
    assert.equal(check.valid, true);
    const payload = JSON.parse(req.body.toString('utf8'));
    assert.equal(payload.event, 'generation.completed');
    assert.equal(payload.livemode, false);
    assert.equal(payload.data.tokensUsed, 0);
    const dl = await http(stack.baseUrl, 'GET', `/api/v1/generations/${res.body.id}/deliveries`, { key: testKey.key });
    assert.equal(dl.body.deliveries.length, 1);
  });

  it('runs batches in test mode free of charge and enforces the daily test budget (429), not touching live', async () => {
    const fresh = await account(stack.baseUrl);
    const sandbox = await createKey(stack.baseUrl, fresh.cookie, { name: 'sandbox', mode: 'test' });
    const before = await tokenBalance(stack.sql, fresh.userId);
    const batch = await http(stack.baseUrl, 'POST', '/api/v1/generate/batch', {
      key: sandbox.key,
      json: {
        designUrl,
        garmentId: garment.id,
        items: garment.colors.slice(0, 2).map((c: any) => ({ color: c.name })),
      },
    });
    assert.equal(batch.status, 200, batch.text);
    assert.equal(batch.body.generations.length, 2);
    assert.ok(batch.body.generations.every((g: any) => g.livemode === false && g.tokensUsed === 0));
    assert.equal(await tokenBalance(stack.sql, fresh.userId), before);

    // PER_DAY in 24 hours: 2 used, so PER_DAY - 2 more singles fit, then 429
    for (let i = 0; i < PER_DAY - 2; i++) {
      const ok = await http(stack.baseUrl, 'POST', '/api/v1/generate', {
        key: sandbox.key,
        json: body(),
        headers: { prefer: 'respond-async' },
      });
      assert.equal(ok.status, 202, ok.text);
    }
    const over = await http(stack.baseUrl, 'POST', '/api/v1/generate', { key: sandbox.key, json: body() });
    assert.equal(over.status, 429);
    assert.equal(over.body.error.code, 'rate_limited');
    assert.equal(over.body.error.details.scope, 'test-generations-day');
    const retry = Number(over.headers.get('retry-after'));
    assert.ok(retry > 86_000 && retry <= 86_400, `Retry-After ${retry}`);
    assert.equal(over.body.error.details.retryAfter, retry);
    const overBatch = await http(stack.baseUrl, 'POST', '/api/v1/generate/batch', {
      key: sandbox.key,
      json: { designUrl, garmentId: garment.id, items: [{ color: color.name }] },
    });
    assert.equal(overBatch.status, 429);
    // the account's live key is not limited by test usage
    const live = await http(stack.baseUrl, 'POST', '/api/v1/generate', {
      key: fresh.key,
      json: body(),
      headers: { prefer: 'respond-async' },
    });
    assert.equal(live.status, 202);
    assert.equal(live.body.livemode, true);
  });
});
