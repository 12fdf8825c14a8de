import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { Client, Connection, type WorkflowHandle, type WorkflowStartOptions } from '@temporalio/client';
import { debitTokens, tokenBalance } from '../../db/ledger';
import { randomSuffix } from '../../lib/ids';
import { fileUrl } from '../../lib/storage';
import { preparedKey } from '../../lib/images';
import { pngVariant } from '../../bench/lib';
import * as inspect from '../helpers/db-inspect';
import * as F from '../helpers/fixtures';
import { accountsSweep } from '../../workflows';
import { account, http } from '../helpers/http';
import { waitForMail } from '../helpers/mailpit';
import { storeDesign, useStack, withApiOn } from '../helpers/stack';
import { waitUpTo } from '../helpers/wait';

/** A solid red 2:1 rectangle: easy to find again in the mockup. */
async function redDesign(width = 600, height = 300): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 4, background: { r: 220, g: 20, b: 20, alpha: 1 } } })
    .png()
    .toBuffer();
}

/** Bounding box of clearly red pixels in an image. */
async function redBox(
  img: Buffer,
): Promise<{ left: number; top: number; right: number; bottom: number; count: number }> {
  const { data, info } = await sharp(img).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  let left = Infinity;
  let top = Infinity;
  let right = -1;
  let bottom = -1;
  let count = 0;
  for (let y = 0; y < info.height; y++) {
    for (let x = 0; x < info.width; x++) {
      const i = (y * info.width + x) * 3;
      const r = data[i]!;
      const g = data[i + 1]!;
      const b = data[i + 2]!;
      if (r > 110 && r > g * 2 && r > b * 2) {
        count++;
        if (x < left) left = x;
        if (x > right) right = x;
        if (y < top) top = y;
        if (y > bottom) bottom = y;
      }
    }
  }
  return { left, top, right, bottom, count };
}

describe('mockup generation (POST /api/v1/generate, GET /api/v1/generations)', () => {
  const stack = useStack('generate', { env: { ALLOW_PRIVATE_URLS: 'true' } });
  let acct: Awaited<ReturnType<typeof account>>;
  let garment: any;
  let designUrl: string;
  let origin: Server;
  let originUrl: string;
  const originHits: Record<string, number> = {};

  before(async () => {
    acct = await account(stack.baseUrl);
    const list = await http(stack.baseUrl, 'GET', '/api/v1/garments?category=t-shirts&limit=1', { key: acct.key });
    garment = list.body.garments[0];
    designUrl = await storeDesign(stack, await redDesign());
    // A foreign host for designs: serves the red design, a server error, or text, as the path says.
    const design = await redDesign();
    const blankPhoto = Buffer.from(await (await fetch(garment.colors[0].imageUrl)).arrayBuffer());
    // A 16000x16000 1-bit PNG of zeros (~40 KB): 256 million pixels once decoded.
    const bomb = await F.decompressionBomb(16000);
    // A 3000x3000 photo: larger than any mockup needs.
    const bigBlank = await sharp(blankPhoto).resize(3000, 3000).jpeg({ quality: 80 }).toBuffer();
    origin = createServer((req, res) => {
      originHits[req.url!] = (originHits[req.url!] ?? 0) + 1;
      if (req.url!.startsWith('/bomb.png')) {
        res.writeHead(200, { 'content-type': 'image/png' }).end(bomb);
      } else if (req.url!.startsWith('/big-blank.jpg')) {
        res.writeHead(200, { 'content-type': 'image/jpeg' }).end(bigBlank);
      } else if (req.url!.startsWith('/blank.jpg')) {
        res.writeHead(200, { 'content-type': 'image/jpeg' }).end(blankPhoto);
      } else if (req.url!.startsWith('/design.png')) {
        res.writeHead(200, { 'content-type': 'image/png' }).end(design);
      } else if (req.url!.startsWith('/down')) {
        res.writeHead(503).end('maintenance');
      } else {
        res.writeHead(200, { 'content-type': 'text/html' }).end('<html>not an image</html>');
      }
    });
    await new Promise<void>((r) => origin.listen(0, '127.0.0.1', () => r()));
    originUrl = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`;
  });
  after(async () => {
    origin?.close();
  });

  const body = (over: Record<string, unknown> = {}) => ({
    designUrl,
    garmentId: garment.id,
    garmentImageUrl: garment.colors[0].imageUrl,
    ...over,
  });

  describe('validation', () => {
    const cases: [string, Record<string, unknown>][] = [
      ['missing designUrl', { designUrl: undefined }],
      ['missing garmentId', { garmentId: undefined }],
      ['missing garmentImageUrl', { garmentImageUrl: undefined }],
      ['designUrl not a URL', { designUrl: 'not a url' }],
      ['designUrl ftp', { designUrl: 'ftp://example.com/x.png' }],
      ['garmentImageUrl relative', { garmentImageUrl: '/files/x.jpg' }],
      ['webhookUrl not http', { webhookUrl: 'javascript:alert(1)' }],
      ['zone unknown', { zone: 'sleeve' }],
      ['placement.x > 100', { placement: { x: 101 } }],
      ['placement.y < 0', { placement: { y: -1 } }],
      ['placement.scale < 0.1', { placement: { scale: 0.05 } }],
      ['placement.scale > 1', { placement: { scale: 1.5 } }],
      ['placement.rotation > 180', { placement: { rotation: 200 } }],
      ['placement.x a string', { placement: { x: '50' } }],
      ['placement unknown member', { placement: { skew: 3 } }],
      ['applyTexture a string', { applyTexture: 'yes' }],
      ['unknown field', { size: 'XL' }],
      ['color unknown to the garment', { color: 'Plaid' }],
    ];
    for (const [label, over] of cases) {
      it(`refuses ${label} with 400 invalid_request, charging nothing`, async () => {
        const res = await http(stack.baseUrl, 'POST', '/api/v1/generate', { key: acct.key, json: body(over) });
        assert.equal(res.status, 400, res.text);
        assert.equal(res.body.error.code, 'invalid_request');
        assert.equal(typeof res.body.error.message, 'string');
      });
    }

    it('answers an unknown garmentId with 404 not_found', async () => {
      const res = await http(stack.baseUrl, 'POST', '/api/v1/generate', {
        key: acct.key,
        json: body({ garmentId: 'no-such-garment' }),
      });
      assert.equal(res.status, 404);
      assert.equal(res.body.error.code, 'not_found');
    });

    it('refuses a zone the garment does not offer with 400', async () => {
      const tanks = await http(stack.baseUrl, 'GET', '/api/v1/garments?category=tanks&limit=1', { key: acct.key });
      const tank = tanks.body.garments[0];
      const res = await http(stack.baseUrl, 'POST', '/api/v1/generate', {
        key: acct.key,
        json: { designUrl, garmentId: tank.id, garmentImageUrl: tank.colors[0].imageUrl, zone: 'left-chest' },
      });
      assert.equal(res.status, 400);
      assert.match(res.body.error.message, /left-chest/);
    });

    it("refuses another garment's blank as garmentImageUrl with 400", async () => {
      const hoodies = await http(stack.baseUrl, 'GET', '/api/v1/garments?category=hoodies&limit=1', { key: acct.key });
      const res = await http(stack.baseUrl, 'POST', '/api/v1/generate', {
        key: acct.key,
        json: body({ garmentImageUrl: hoodies.body.garments[0].colors[0].imageUrl }),
      });
      assert.equal(res.status, 400);
      assert.match(res.body.error.message, /garmentImageUrl/);
    });

    it('needs an API key', async () => {
      const res = await http(stack.baseUrl, 'POST', '/api/v1/generate', { json: body() });
      assert.equal(res.status, 401);
    });

    it('answers 402 insufficient_tokens with required and available when the balance is 0, before anything starts', async () => {
      const poor = await account(stack.baseUrl);
      await inspect.expireGrants(poor.userId);
      const res = await http(stack.baseUrl, 'POST', '/api/v1/generate', { key: poor.key, json: body() });
      assert.equal(res.status, 402);
      assert.deepEqual(res.body.error.details, { required: 1, available: 0 });
      assert.equal(res.body.error.code, 'insufficient_tokens');
      assert.deepEqual(await inspect.ownedRowCounts(poor.userId, ['generations']), { generations: 0 });
    });
  });

  it('generates synchronously: completed resource, 1 token, JPEG mockup at blank resolution and a thumbnail', async () => {
    const before = await tokenBalance(stack.sql, acct.userId);
    const res = await http(stack.baseUrl, 'POST', '/api/v1/generate', { key: acct.key, json: body() });
    assert.equal(res.status, 200, res.text);
    const g = res.body;
    assert.match(g.id, /^gen_\d+_[a-z0-9]+$/);
    assert.equal(g.status, 'completed');
    assert.equal(g.tokensUsed, 1);
    assert.ok(Date.parse(g.createdAt) <= Date.parse(g.completedAt));
    assert.equal(res.headers.get('x-tokens-remaining'), String(before - 1));
    assert.equal(await tokenBalance(stack.sql, acct.userId), before - 1);
    const mockup = await fetch(g.mockupUrl);
    assert.equal(mockup.headers.get('content-type'), 'image/jpeg');
    const meta = await sharp(Buffer.from(await mockup.arrayBuffer())).metadata();
    assert.equal(meta.format, 'jpeg');
    assert.ok(meta.width! >= 2000 && meta.height! >= 2000);
    const thumb = await sharp(Buffer.from(await (await fetch(g.thumbnailUrl)).arrayBuffer())).metadata();
    assert.ok(thumb.width! <= 600);
    const again = await http(stack.baseUrl, 'GET', `/api/v1/generations/${g.id}`, { key: acct.key });
    assert.deepEqual(again.body, g);
  });

  it('mails the owner when a generation takes the balance under 10 % of the plan month (once per period)', async () => {
    const owner = await account(stack.baseUrl);
    // 50 Free tokens a month: the line is 5. Spend down to it first (not under: no mail yet).
    await debitTokens(stack.sql, owner.userId, [{ reference: `test-spend-${randomSuffix(10)}`, amount: 45 }]);
    const lowMails = async () => (await inspect.outboxMailIds(owner.userId, 'tokens_low')).length;
    assert.equal(await lowMails(), 0);
    const res = await http(stack.baseUrl, 'POST', '/api/v1/generate', { key: owner.key, json: body() });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.headers.get('x-tokens-remaining'), '4');
    const again = await http(stack.baseUrl, 'POST', '/api/v1/generate', { key: owner.key, json: body() });
    assert.equal(again.status, 200, again.text);
    assert.equal(await lowMails(), 1, 'mailed once this period');
    // delivered by the accounts sweep (or by the next worker step of the account): past the sweep's grace
    await inspect.backdateUnsentMail(owner.userId, '1 minute');
    await stack.client.workflow.execute(accountsSweep, {
      taskQueue: stack.taskQueue,
      workflowId: `accounts-sweep-test-${randomSuffix(8)}`,
    });
    const mail = await waitForMail(owner.email, /your tokens are running low/);
    assert.match(mail.Text, /Your balance is 4 tokens/);
  });

  it('renders an upload from the level prepared at upload time, without reading the original, to the same pixels', async () => {
    // two uploads of the same 2400x3000 design: the first keeps only its prepared level (the original is removed,
    // so a read of it would fail the generation), the second only its original (as uploads made before prepared
    // levels existed); the worker must produce byte-identical mockups from the two. The second is the same PNG with
    // a text chunk added (same pixels), as the same bytes would be the same upload.
    const png = await F.crispLogo();
    const up = async (bytes: Buffer) => {
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(bytes)], { type: 'image/png' }), 'logo.png');
      const res = await http(stack.baseUrl, 'POST', '/api/v1/upload', { key: acct.key, body: form });
      assert.equal(res.status, 201, res.text);
      return {
        url: res.body.url as string,
        key: decodeURIComponent(new URL(res.body.url).pathname.replace(/^\/files\//, '')),
      };
    };
    const [a, b] = [await up(png), await up(pngVariant(png, 'second upload'))];
    await stack.storage.delete(a.key);
    await stack.storage.delete(preparedKey(b.key));
    const placement = { x: 45, y: 40, scale: 0.55, rotation: 10 };
    const mockups: Buffer[] = [];
    for (const u of [a, b]) {
      const res = await http(stack.baseUrl, 'POST', '/api/v1/generate', {
        key: acct.key,
        json: body({ designUrl: u.url, placement }),
      });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.status, 'completed', res.text);
      mockups.push(Buffer.from(await (await fetch(res.body.mockupUrl)).arrayBuffer()));
    }
    assert.ok(mockups[0]!.equals(mockups[1]!), 'prepared-level and original-decoding mockups differ');
  });

  it('places the design where the placement says (center in % of the zone, scale of the fitted size)', async () => {
    const zone = garment.printZones.find((z: any) => z.id === 'front');
    for (const placement of [
      { x: 50, y: 50, scale: 0.5, rotation: 0 },
      { x: 30, y: 70, scale: 0.4, rotation: 0 },
    ]) {
      const res = await http(stack.baseUrl, 'POST', '/api/v1/generate', {
        key: acct.key,
        json: body({ placement, applyTexture: false }),
      });
      assert.equal(res.status, 200, res.text);
      const img = Buffer.from(await (await fetch(res.body.mockupUrl)).arrayBuffer());
      const { width, height } = await sharp(img).metadata();
      const zx = (zone.region.x / 100) * width!;
      const zy = (zone.region.y / 100) * height!;
      const zw = (zone.region.width / 100) * width!;
      const zh = (zone.region.height / 100) * height!;
      // 2:1 design fitted into the zone keeping aspect, then scaled.
      const fit = Math.min(zw / 2, zh / 1);
      const w = fit * 2 * placement.scale;
      const h = fit * placement.scale;
      const cx = zx + (placement.x / 100) * zw;
      const cy = zy + (placement.y / 100) * zh;
      const box = await redBox(img);
      const tol = Math.max(6, zw * 0.02);
      assert.ok(Math.abs((box.left + box.right) / 2 - cx) < tol, `center x ${(box.left + box.right) / 2} vs ${cx}`);
      assert.ok(Math.abs((box.top + box.bottom) / 2 - cy) < tol, `center y ${(box.top + box.bottom) / 2} vs ${cy}`);
      assert.ok(Math.abs(box.right - box.left + 1 - w) < tol * 2, `width ${box.right - box.left + 1} vs ${w}`);
      assert.ok(Math.abs(box.bottom - box.top + 1 - h) < tol * 2, `height ${box.bottom - box.top + 1} vs ${h}`);
    }
  });

  it('answers 202 pending at once with Prefer: respond-async; the resource completes later', async () => {
    const res = await http(stack.baseUrl, 'POST', '/api/v1/generate', {
      key: acct.key,
      json: body(),
      headers: { prefer: 'respond-async' },
    });
    assert.equal(res.status, 202);
    assert.ok(['pending', 'processing'].includes(res.body.status));
    assert.equal(res.body.mockupUrl, undefined);
    assert.equal(res.headers.get('location'), `${stack.baseUrl}/api/v1/generations/${res.body.id}`);
    assert.equal(res.headers.get('preference-applied'), 'respond-async');
    let g: any;
    await waitUpTo(
      async () => {
        g = (await http(stack.baseUrl, 'GET', `/api/v1/generations/${res.body.id}`, { key: acct.key })).body;
        return g.status === 'completed' || g.status === 'failed';
      },
      { ms: 10_000, every: 100 },
    );
    assert.equal(g.status, 'completed');
    assert.ok(g.mockupUrl);
  });

  it('starts a workflow whose id is the generation id, with AccountId and GarmentId search attributes', async () => {
    const res = await http(stack.baseUrl, 'POST', '/api/v1/generate', { key: acct.key, json: body() });
    const desc = await stack.client.workflow.getHandle(res.body.id).describe();
    assert.equal(desc.workflowId, res.body.id);
    assert.equal(desc.type, 'generation');
    assert.deepEqual(desc.searchAttributes.AccountId, [acct.userId]);
    assert.deepEqual(desc.searchAttributes.GarmentId, [garment.id]);
  });

  it('reads designs from foreign URLs through the guarded fetcher', async () => {
    const res = await http(stack.baseUrl, 'POST', '/api/v1/generate', {
      key: acct.key,
      json: body({ designUrl: `${originUrl}/design.png` }),
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.status, 'completed');
  });

  it("composites on a client's own blank photo from a foreign URL (fabric maps derived on the fly)", async () => {
    const res = await http(stack.baseUrl, 'POST', '/api/v1/generate', {
      key: acct.key,
      json: body({ garmentImageUrl: `${originUrl}/blank.jpg`, color: garment.colors[0].name, applyTexture: false }),
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.status, 'completed', res.body.error);
    const img = Buffer.from(await (await fetch(res.body.mockupUrl)).arrayBuffer());
    const box = await redBox(img);
    assert.ok(box.count > 1000, 'the design is on the mockup');
    assert.equal(originHits['/blank.jpg'], 1, 'the blank photo is fetched once, its maps are not fetched');
  });

  it('refuses a blank photo that declares 16000x16000 pixels from its header: failed with a clear error, token refunded', async () => {
    const before = await tokenBalance(stack.sql, acct.userId);
    const res = await http(stack.baseUrl, 'POST', '/api/v1/generate', {
      key: acct.key,
      json: body({ garmentImageUrl: `${originUrl}/bomb.png?${randomSuffix()}`, color: garment.colors[0].name }),
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.status, 'failed');
    assert.match(res.body.error, /^Blank image: .*16000x16000 pixels, more than can be processed safely/);
    assert.equal(res.body.tokensUsed, 0);
    assert.equal(await tokenBalance(stack.sql, acct.userId), before, 'refunded');
  });

  it('shrinks a blank photo larger than a mockup needs while decoding it (long side 2400 px)', async () => {
    const res = await http(stack.baseUrl, 'POST', '/api/v1/generate', {
      key: acct.key,
      json: body({ garmentImageUrl: `${originUrl}/big-blank.jpg`, color: garment.colors[0].name }),
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.status, 'completed', res.body.error);
    const meta = await sharp(Buffer.from(await (await fetch(res.body.mockupUrl)).arrayBuffer())).metadata();
    assert.deepEqual([meta.width, meta.height], [2400, 2400]);
  });

  for (const [label, path, pattern] of [
    ['a design URL that is not an image', '/page.html', /image/i],
    ['a design host that is down', '/down', /503|unavailable|status/i],
  ] as const) {
    it(`fails ${label} after acceptance with a useful error, and refunds the token`, async () => {
      const before = await tokenBalance(stack.sql, acct.userId);
      const res = await http(stack.baseUrl, 'POST', '/api/v1/generate', {
        key: acct.key,
        json: body({ designUrl: `${originUrl}${path}?${randomSuffix()}` }),
      });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.status, 'failed');
      assert.match(res.body.error, pattern);
      assert.equal(res.body.mockupUrl, undefined);
      assert.equal(await tokenBalance(stack.sql, acct.userId), before);
    });
  }

  it('fails an own-file design URL that does not exist, with the token refunded', async () => {
    const before = await tokenBalance(stack.sql, acct.userId);
    const res = await http(stack.baseUrl, 'POST', '/api/v1/generate', {
      key: acct.key,
      json: body({ designUrl: fileUrl(stack.config, 'uploads/nothing-here.png') }),
    });
    assert.equal(res.body.status, 'failed');
    assert.match(res.body.error, /no file at this URL/i);
    assert.equal(await tokenBalance(stack.sql, acct.userId), before);
  });

  it('refunds and marks failed when the workflow cannot be started (Temporal unreachable): 500, balance unchanged', async () => {
    // A client whose connection is closed: every start fails, as when the Temporal frontend is down.
    const connection = await Connection.connect({ address: stack.config.temporal.address! });
    await connection.close();
    await withApiOn(stack, new Client({ connection }), async (url) => {
      const before = await tokenBalance(stack.sql, acct.userId);
      const res = await http(url, 'POST', '/api/v1/generate', { key: acct.key, json: body() });
      assert.equal(res.status, 500);
      assert.deepEqual(res.body, { error: { code: 'internal_error', message: 'Internal server error' } });
      assert.equal(await tokenBalance(stack.sql, acct.userId), before);
      const row = await inspect.latestGeneration(acct.userId);
      assert.deepEqual([row?.status, row?.error], ['failed', 'Could not start the generation']);
    });
  });

  describe('an ambiguous workflow start (the start reaches Temporal, its answer is lost)', () => {
    /**
     * A client whose workflow start does reach Temporal, then fails as a start whose answer timed out does (gRPC
     * DEADLINE_EXCEEDED), after `meanwhile` (the workflow may run in between). Records the workflow ids it started.
     */
    function lostAnswer(meanwhile: (handle: WorkflowHandle) => Promise<void>, started: string[]): Client {
      return {
        workflow: {
          start: async (workflow: never, options: WorkflowStartOptions) => {
            const handle = await stack.client.workflow.start(workflow, options);
            started.push(handle.workflowId);
            await meanwhile(handle);
            throw Object.assign(new Error('4 DEADLINE_EXCEEDED: Deadline exceeded'), { code: 4 });
          },
          getHandle: (id: string) => stack.client.workflow.getHandle(id),
        },
      } as unknown as Client;
    }

    const ledgerOf = async (id: string) => ({
      debits: (await inspect.debitAmounts(id)).length,
      refunds: (await inspect.refundAmounts(id)).length,
    });

    it('fails and refunds the generation exactly once, also when its workflow runs afterwards', async () => {
      const started: string[] = [];
      const before = await tokenBalance(stack.sql, acct.userId);
      // No worker while the API answers: the workflow exists but runs only once the worker is back.
      await stack.stopWorker();
      try {
        await withApiOn(
          stack,
          lostAnswer(async () => {}, started),
          async (url) => {
            const res = await http(url, 'POST', '/api/v1/generate', { key: acct.key, json: body() });
            assert.ok(res.status >= 500, res.text);
            assert.equal(typeof res.body.error.code, 'string');
          },
        );
      } finally {
        await stack.startWorker();
      }
      const [id] = started;
      assert.ok(id);
      const row = await inspect.generationState(id);
      assert.deepEqual([row?.status, row?.error, row?.tokensUsed], ['failed', 'Could not start the generation', 0]);
      assert.deepEqual(await ledgerOf(id), { debits: 1, refunds: 1 });
      assert.equal(await tokenBalance(stack.sql, acct.userId), before);

      // The workflow runs now: its generation has failed already, so it neither renders nor refunds again.
      const result = await stack.client.workflow.getHandle(id).result();
      assert.deepEqual(result, { status: 'failed', error: 'Could not start the generation' });
      const after = await http(stack.baseUrl, 'GET', `/api/v1/generations/${id}`, { key: acct.key });
      assert.equal(after.body.status, 'failed');
      assert.equal(after.body.mockupUrl, undefined);
      assert.deepEqual(await ledgerOf(id), { debits: 1, refunds: 1 });
      assert.equal(await tokenBalance(stack.sql, acct.userId), before);
    });

    it('never refunds a generation that completed before the failure path ran: it stays completed and keeps its token', async () => {
      const started: string[] = [];
      const before = await tokenBalance(stack.sql, acct.userId);
      await withApiOn(
        stack,
        // the answer is lost only after the workflow has finished the generation
        lostAnswer(async (handle) => void (await handle.result()), started),
        async (url) => {
          const res = await http(url, 'POST', '/api/v1/generate', { key: acct.key, json: body() });
          assert.ok(res.status >= 500, res.text);
          assert.equal(typeof res.body.error.code, 'string');
        },
      );
      const [id] = started;
      assert.ok(id);
      const row = await inspect.generationState(id);
      assert.equal(row!.status, 'completed');
      assert.equal(row!.error, null);
      assert.equal(row!.tokensUsed, 1);
      assert.ok(row!.mockupKey);
      assert.deepEqual(await ledgerOf(id), { debits: 1, refunds: 0 });
      assert.equal(await tokenBalance(stack.sql, acct.userId), before - 1);
      const read = await http(stack.baseUrl, 'GET', `/api/v1/generations/${id}`, { key: acct.key });
      assert.equal(read.body.status, 'completed');
      assert.equal(typeof read.body.mockupUrl, 'string');
    });
  });

  it("answers another account's generation with 404 and lists only one's own, newest first, paginated", async () => {
    const other = await account(stack.baseUrl);
    const mine = await http(stack.baseUrl, 'POST', '/api/v1/generate', {
      key: acct.key,
      json: body(),
      headers: { prefer: 'respond-async' },
    });
    const theirs = await http(stack.baseUrl, 'GET', `/api/v1/generations/${mine.body.id}`, { key: other.key });
    assert.equal(theirs.status, 404);
    assert.equal(theirs.body.error.code, 'not_found');
    const all: any[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await http(
        stack.baseUrl,
        'GET',
        `/api/v1/generations?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        { key: acct.key },
      );
      assert.equal(page.status, 200);
      all.push(...page.body.generations);
      cursor = page.body.pagination.hasMore ? page.body.pagination.nextCursor : null;
    } while (cursor);
    assert.equal(all[0].id, mine.body.id);
    const created = all.map((g) => Date.parse(g.createdAt));
    assert.deepEqual(
      created,
      [...created].sort((a, b) => b - a),
    );
    assert.equal(new Set(all.map((g) => g.id)).size, all.length);
    assert.equal(all.length, (await inspect.ownedRowCounts(acct.userId, ['generations'])).generations);
    const otherList = await http(stack.baseUrl, 'GET', '/api/v1/generations', { key: other.key });
    assert.deepEqual(otherList.body.generations, []);
    const bad = await http(stack.baseUrl, 'GET', '/api/v1/generations?cursor=forged.cursor', { key: acct.key });
    assert.equal(bad.status, 400);
    const badId = await http(stack.baseUrl, 'GET', '/api/v1/generations/gen_1_zzz', { key: acct.key });
    assert.equal(badId.status, 404);
  });
});
