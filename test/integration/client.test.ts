// The typed client (clients/typescript) against the real stack: upload, analyze, generate synchronously and
// asynchronously with polling, a batch, listing with cursors, Idempotency-Key replays, errors, and verifying a
// received callback with the client's helper.
import assert from 'node:assert/strict';
import sharp from 'sharp';
import {
  createMockupClient,
  MockupApiError,
  newIdempotencyKey,
  verifyWebhookSignature,
  type MockupClient,
} from '../../clients/typescript/src';
import { account, http } from '../helpers/http';
import { startCallbackReceiver, type CallbackReceiver } from '../helpers/receiver';
import { useStack } from '../helpers/stack';
import { waitUpTo } from '../helpers/wait';

describe('typed TypeScript client (clients/typescript) against the stack', () => {
  const stack = useStack('client', { env: { ALLOW_PRIVATE_URLS: 'true' } });
  let acct: Awaited<ReturnType<typeof account>>;
  let client: MockupClient;
  let receiver: CallbackReceiver;
  let designUrl: string;
  let garment: Awaited<ReturnType<MockupClient['garments']>>['garments'][number];
  const made: string[] = [];

  before(async () => {
    receiver = await startCallbackReceiver();
    acct = await account(stack.baseUrl);
    client = createMockupClient({ baseUrl: stack.baseUrl, apiKey: acct.key });
  });
  after(async () => {
    await receiver?.close();
  });

  const body = () => ({ designUrl, garmentId: garment.id, garmentImageUrl: garment.colors[0]!.imageUrl });

  it('uploads a design (multipart) and analyzes it', async () => {
    const png = await sharp({ create: { width: 600, height: 600, channels: 4, background: '#0033a0' } })
      .png()
      .toBuffer();
    const up = await client.upload(png, { filename: 'navy.png', contentType: 'image/png' });
    assert.match(up.id, /^upl_/);
    assert.equal(up.mimeType, 'image/png');
    assert.deepEqual(up.dimensions, { width: 600, height: 600 });
    designUrl = up.url;
    const analysis = await client.analyze({ imageUrl: up.url, quantity: 100 });
    assert.equal(analysis.dimensions.width, 600);
    assert.ok(analysis.colors.dominant.length >= 1);
    const page = await client.garments({ category: 't-shirts', limit: 1 });
    garment = page.garments[0]!;
    assert.ok(garment.colors.length >= 2);
  });

  it('generates synchronously, and asynchronously with the polling helper', async () => {
    const sync = await client.generate(body());
    assert.equal(sync.status, 'completed');
    assert.equal(sync.livemode, true);
    made.push(sync.id);

    const started = await client.generate(body(), { async: true });
    assert.ok(['pending', 'processing'].includes(started.status), started.status);
    const done = await client.waitForGeneration(started.id, { intervalMs: 100 });
    assert.equal(done.status, 'completed');
    assert.ok(done.mockupUrl);
    made.push(done.id);

    const waited = await client.generateAndWait(body(), { intervalMs: 100 });
    assert.equal(waited.status, 'completed');
    made.push(waited.id);
  });

  it('replays a request sent again with the same Idempotency-Key', async () => {
    const key = newIdempotencyKey();
    const first = await client.generate(body(), { idempotencyKey: key });
    const again = await client.generate(body(), { idempotencyKey: key });
    assert.equal(again.id, first.id);
    made.push(first.id);
  });

  it('runs a batch', async () => {
    const batch = await client.batch({
      designUrl,
      garmentId: garment.id,
      items: garment.colors.slice(0, 2).map((c) => ({ color: c.name })),
    });
    assert.equal(batch.generations.length, 2);
    assert.ok(batch.generations.every((g) => g.status === 'completed'));
    made.push(...batch.generations.map((g) => g.id));
  });

  it('lists every generation with cursors, page by page, no duplicates', async () => {
    const first = await client.listGenerations({ limit: 2 });
    assert.equal(first.generations.length, 2);
    assert.equal(first.pagination.hasMore, true);
    const seen: string[] = [];
    for await (const g of client.iterateGenerations(2)) seen.push(g.id);
    assert.equal(new Set(seen).size, seen.length);
    assert.deepEqual([...seen].sort(), [...made].sort());
  });

  it('throws MockupApiError with the code, details and request id of an error answer', async () => {
    await assert.rejects(
      client.generate({ ...body(), placement: { x: 50, y: 35, scale: 5, rotation: 0 } }),
      (err: unknown) => {
        assert.ok(err instanceof MockupApiError);
        assert.equal(err.status, 400);
        assert.equal(err.code, 'invalid_request');
        assert.ok(err.requestId);
        return true;
      },
    );
    const bad = createMockupClient({ baseUrl: stack.baseUrl, apiKey: 'amk_live_' + '0'.repeat(64) });
    await assert.rejects(bad.listGenerations(), (err: unknown) => err instanceof MockupApiError && err.status === 401);
  });

  it('verifies a received callback with the signing secret, and refuses a tampered one', async () => {
    const g = await client.generate({ ...body(), webhookUrl: receiver.url });
    const req = await receiver.waitFor(g.id);
    const secret = (await http(stack.baseUrl, 'GET', '/api/v1/webhooks/secret', { cookie: acct.cookie })).body.secret;
    const header = String(req.headers['x-mockup-signature']);
    const ok = verifyWebhookSignature({ body: req.body, header, secret });
    assert.equal(ok.valid, true);
    const payload = JSON.parse(req.body.toString('utf8'));
    assert.equal(payload.data.id, g.id);
    const tampered = Buffer.from(req.body.toString('utf8').replace('"completed"', '"failed"'));
    assert.deepEqual(verifyWebhookSignature({ body: tampered, header, secret }), {
      valid: false,
      reason: 'no matching signature',
    });
    assert.equal(verifyWebhookSignature({ body: req.body, header, secret: 'whsec_' + '1'.repeat(64) }).valid, false);
    assert.deepEqual(verifyWebhookSignature({ body: req.body, header, secret, now: Date.now() + 3600_000 }), {
      valid: false,
      reason: 'timestamp out of tolerance',
    });
    // the delivery is recorded delivered just after the receiver's answer
    let status = 'pending';
    await waitUpTo(
      async () => {
        status = (await client.deliveries(g.id)).deliveries[0]!.status;
        return status !== 'pending';
      },
      { ms: 10_000, every: 100 },
    );
    assert.equal(status, 'delivered');
  });
});
