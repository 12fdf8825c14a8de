import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { grantTokens, tokenBalance } from '../../db/ledger';
import { randomSuffix } from '../../lib/ids';
import { fileUrl } from '../../lib/storage';
import * as inspect from '../helpers/db-inspect';
import { account, http } from '../helpers/http';
import { storeDesign, useStack } from '../helpers/stack';
import { waitUpTo } from '../helpers/wait';

describe('batch generation (POST /api/v1/generate/batch)', () => {
  const stack = useStack('generate-batch', { env: { ALLOW_PRIVATE_URLS: 'true' } });
  let acct: Awaited<ReturnType<typeof account>>;
  let garment: any;
  let designUrl: string;

  before(async () => {
    acct = await account(stack.baseUrl);
    const list = await http(stack.baseUrl, 'GET', '/api/v1/garments?category=t-shirts&limit=1', { key: acct.key });
    garment = list.body.garments[0];
    assert.ok(garment.colors.length >= 3, 'the test needs a garment with 3 colors');
    const design = await sharp({
      create: { width: 600, height: 300, channels: 4, background: { r: 220, g: 20, b: 20, alpha: 1 } },
    })
      .png()
      .toBuffer();
    designUrl = await storeDesign(stack, design);
  });

  const count = async (userId: string) => (await inspect.ownedRowCounts(userId, ['generations'])).generations;

  it('renders one design on 3 colors: 3 completed generations, 3 tokens, one batch workflow rendering each item', async () => {
    const before = await tokenBalance(stack.sql, acct.userId);
    const [c0, c1, c2] = garment.colors;
    const res = await http(stack.baseUrl, 'POST', '/api/v1/generate/batch', {
      key: acct.key,
      json: {
        designUrl,
        garmentId: garment.id,
        placement: { x: 50, y: 40, scale: 0.6 },
        items: [
          { color: c0.name },
          { garmentImageUrl: c1.imageUrl },
          { garmentImageUrl: c2.imageUrl, color: c2.name, applyTexture: false, placement: { scale: 0.3 } },
        ],
      },
    });
    assert.equal(res.status, 200, res.text);
    const gens: any[] = res.body.generations;
    assert.equal(gens.length, 3);
    assert.deepEqual(
      gens.map((g) => g.color),
      [c0.name, c1.name, c2.name],
    );
    for (const g of gens) {
      assert.match(g.id, /^gen_\d+_[a-z0-9]+$/);
      assert.equal(g.status, 'completed', g.error);
      assert.equal(g.tokensUsed, 1);
      assert.ok(g.mockupUrl && g.thumbnailUrl && g.completedAt);
      assert.equal(g.garmentId, garment.id);
      assert.equal(g.zone, 'front');
      assert.equal(g.designUrl, designUrl);
    }
    // shared placement with spec defaults for missing members; an item's placement replaces it as a whole
    assert.deepEqual(gens[0].placement, { x: 50, y: 40, scale: 0.6, rotation: 0 });
    assert.deepEqual(gens[2].placement, { x: 50, y: 35, scale: 0.3, rotation: 0 });
    assert.equal(gens[2].applyTexture, false);
    assert.equal(gens[0].applyTexture, true);

    assert.equal(await tokenBalance(stack.sql, acct.userId), before - 3);
    assert.equal(res.headers.get('x-tokens-remaining'), String(before - 3));

    // each item is an ordinary generation resource; all items ran in one batch workflow, each with its own steps
    for (const g of gens) {
      const again = await http(stack.baseUrl, 'GET', `/api/v1/generations/${g.id}`, { key: acct.key });
      assert.deepEqual(again.body, g);
    }
    assert.equal(res.body.batchId, `batch-${gens[0].id}`);
    const handle = stack.client.workflow.getHandle(res.body.batchId);
    const batch = await handle.describe();
    assert.equal(batch.type, 'generationBatch');
    assert.equal(batch.status.name, 'COMPLETED');
    assert.deepEqual(batch.searchAttributes.AccountId, [acct.userId]);
    // each item carries its render job (no read before the render), as a single generation's input does
    const history = await handle.fetchHistory();
    const [input] = history.events![0]!.workflowExecutionStartedEventAttributes!.input!.payloads!.map((p) =>
      JSON.parse(Buffer.from(p.data!).toString()),
    );
    assert.deepEqual(
      input.items.map((it: any) => [it.generationId, it.job.designUrl, it.job.userId, it.job.applyTexture]),
      gens.map((g) => [g.id, designUrl, acct.userId, g.applyTexture]),
    );
    // each item's step runs as a local activity: one marker per item, whose result names the item's mockup
    const rendered = history
      .events!.map((e) => e.markerRecordedEventAttributes?.details)
      // (the one-step-render patch marker carries no local activity data)
      .filter((d) => {
        const data = d?.data?.payloads?.[0]?.data;
        return !!data && JSON.parse(Buffer.from(data).toString()).activity_type === 'renderGeneration';
      })
      .map((d) => JSON.parse(Buffer.from(d!.result!.payloads![0]!.data!).toString()).mockupKey);
    assert.deepEqual(rendered.sort(), gens.map((g) => `mockups/${g.id}.jpg`).sort());

    // three different mockups: the garment's color shows in the print zone below the (2:1, high-placed) design
    const zone = garment.printZones.find((z: any) => z.id === 'front').region;
    const corners = await Promise.all(
      gens.map(async (g) => {
        const img = Buffer.from(await (await fetch(g.mockupUrl)).arrayBuffer());
        const { width, height } = await sharp(img).metadata();
        const left = Math.round(((zone.x + zone.width / 2) / 100) * width!);
        const top = Math.round(((zone.y + zone.height * 0.95) / 100) * height!);
        const { data } = await sharp(img)
          .extract({ left, top, width: 4, height: 4 })
          .removeAlpha()
          .raw()
          .toBuffer({ resolveWithObject: true });
        return [data[0], data[1], data[2]].join(',');
      }),
    );
    assert.equal(new Set(corners).size, 3, `expected 3 garment colors, got ${corners.join(' | ')}`);
    const listed = await http(stack.baseUrl, 'GET', '/api/v1/generations?limit=100', { key: acct.key });
    for (const g of gens) assert.ok(listed.body.generations.some((l: any) => l.id === g.id));
  });

  it('refuses 26 items (and 0) with 400 invalid_request, charging and recording nothing', async () => {
    const before = await tokenBalance(stack.sql, acct.userId);
    const n = await count(acct.userId);
    const items = Array.from({ length: 26 }, () => ({ color: garment.colors[0].name }));
    const res = await http(stack.baseUrl, 'POST', '/api/v1/generate/batch', {
      key: acct.key,
      json: { designUrl, garmentId: garment.id, items },
    });
    assert.equal(res.status, 400, res.text);
    assert.equal(res.body.error.code, 'invalid_request');
    assert.match(res.body.error.message, /items.*25/);
    const none = await http(stack.baseUrl, 'POST', '/api/v1/generate/batch', {
      key: acct.key,
      json: { designUrl, garmentId: garment.id, items: [] },
    });
    assert.equal(none.status, 400);
    assert.equal(await tokenBalance(stack.sql, acct.userId), before);
    assert.equal(await count(acct.userId), n);
  });

  for (const [label, json, field] of [
    [
      'an item without garmentImageUrl or color',
      () => ({ designUrl, garmentId: garment.id, items: [{ color: garment.colors[0].name }, { zone: 'back' }] }),
      'items.1',
    ],
    [
      'an item without any garmentId',
      () => ({ designUrl, items: [{ color: garment.colors[0].name }] }),
      'items.0.garmentId',
    ],
    [
      'an unknown item field',
      () => ({ designUrl, garmentId: garment.id, items: [{ color: garment.colors[0].name, size: 'XL' }] }),
      'items.0',
    ],
    [
      'a placement out of range',
      () => ({ designUrl, garmentId: garment.id, items: [{ color: garment.colors[0].name, placement: { scale: 2 } }] }),
      'items.0.placement.scale',
    ],
    [
      'a color the garment lacks',
      () => ({ designUrl, garmentId: garment.id, items: [{ color: garment.colors[0].name }, { color: 'Plaid' }] }),
      'items.1.color',
    ],
    [
      'a zone the garment lacks',
      () => ({
        designUrl,
        garmentId: garment.id,
        items: [{ color: garment.colors[0].name }, { color: garment.colors[0].name, zone: 'sleeve' }],
      }),
      'items.1.zone',
    ],
    [
      'a bad designUrl',
      () => ({ designUrl: 'not a url', garmentId: garment.id, items: [{ color: garment.colors[0].name }] }),
      'designUrl',
    ],
  ] as const) {
    it(`refuses ${label} with 400 naming the field, charging nothing`, async () => {
      const before = await tokenBalance(stack.sql, acct.userId);
      const n = await count(acct.userId);
      const res = await http(stack.baseUrl, 'POST', '/api/v1/generate/batch', { key: acct.key, json: json() });
      assert.equal(res.status, 400, res.text);
      assert.equal(res.body.error.code, 'invalid_request');
      const fields = [
        res.body.error.details?.field,
        ...(res.body.error.details?.issues ?? []).map((i: any) => i.field),
      ];
      assert.ok(fields.includes(field), `expected ${field} among ${JSON.stringify(res.body.error.details)}`);
      assert.equal(await tokenBalance(stack.sql, acct.userId), before);
      assert.equal(await count(acct.userId), n);
    });
  }

  it('answers an unknown garmentId in an item with 404 not_found', async () => {
    const res = await http(stack.baseUrl, 'POST', '/api/v1/generate/batch', {
      key: acct.key,
      json: {
        designUrl,
        garmentId: garment.id,
        items: [{ color: garment.colors[0].name }, { garmentId: 'no-such-garment', color: 'White' }],
      },
    });
    assert.equal(res.status, 404, res.text);
    assert.equal(res.body.error.code, 'not_found');
    assert.match(res.body.error.message, /items\[1\]/);
  });

  it('answers 402 with required = items and available when the balance is short, charging and recording nothing', async () => {
    const poor = await account(stack.baseUrl);
    await inspect.expireGrants(poor.userId);
    await grantTokens(stack.sql, {
      userId: poor.userId,
      source: 'payg_purchase',
      amount: 2,
      reference: `test:${randomSuffix()}`,
    });
    const items = garment.colors.slice(0, 3).map((c: any) => ({ color: c.name }));
    const res = await http(stack.baseUrl, 'POST', '/api/v1/generate/batch', {
      key: poor.key,
      json: { designUrl, garmentId: garment.id, items },
    });
    assert.equal(res.status, 402, res.text);
    assert.equal(res.body.error.code, 'insufficient_tokens');
    assert.deepEqual(res.body.error.details, { required: 3, available: 2 });
    assert.equal(await tokenBalance(stack.sql, poor.userId), 2);
    assert.equal(await count(poor.userId), 0);
    assert.deepEqual(await inspect.debitAmountsOfUser(poor.userId), []);
    // exactly enough: both charged, from the grants the account has
    const ok = await http(stack.baseUrl, 'POST', '/api/v1/generate/batch', {
      key: poor.key,
      json: { designUrl, garmentId: garment.id, items: items.slice(0, 2) },
    });
    assert.equal(ok.status, 200, ok.text);
    assert.equal(await tokenBalance(stack.sql, poor.userId), 0);
  });

  it('fails every item of an unreadable design after acceptance and refunds each token', async () => {
    const before = await tokenBalance(stack.sql, acct.userId);
    const items = garment.colors.slice(0, 2).map((c: any) => ({ color: c.name }));
    const res = await http(stack.baseUrl, 'POST', '/api/v1/generate/batch', {
      key: acct.key,
      json: {
        designUrl: fileUrl(stack.config, `uploads/nothing-here-${randomSuffix()}.png`),
        garmentId: garment.id,
        items,
      },
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.generations.length, 2);
    for (const g of res.body.generations) {
      assert.equal(g.status, 'failed');
      assert.equal(g.tokensUsed, 0);
      assert.match(g.error, /no file at this URL/i);
      assert.equal(g.mockupUrl, undefined);
    }
    assert.equal(await tokenBalance(stack.sql, acct.userId), before);
    const refunds = await Promise.all(res.body.generations.map((g: any) => inspect.refundAmounts(g.id)));
    assert.equal(refunds.flat().length, 2);
  });

  it('sends each item its own completion callback to webhookUrl', async () => {
    const received: any[] = [];
    const receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        received.push(JSON.parse(body));
        res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
    try {
      const webhookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
      const items = garment.colors.slice(0, 2).map((c: any) => ({ color: c.name }));
      const res = await http(stack.baseUrl, 'POST', '/api/v1/generate/batch', {
        key: acct.key,
        json: { designUrl, garmentId: garment.id, items, webhookUrl },
      });
      assert.equal(res.status, 200, res.text);
      await waitUpTo(() => received.length >= 2, { ms: 10_000, every: 100 });
      assert.deepEqual(received.map((p) => p.data.id).sort(), res.body.generations.map((g: any) => g.id).sort());
      for (const p of received) {
        assert.equal(p.event, 'generation.completed');
        assert.equal(p.data.status, 'completed');
        assert.equal(p.data.tokensUsed, 1);
      }
    } finally {
      receiver.close();
    }
  });

  it('answers 202 with pending generations under Prefer: respond-async; each completes', async () => {
    const items = garment.colors.slice(0, 2).map((c: any) => ({ color: c.name, zone: 'back' }));
    const res = await http(stack.baseUrl, 'POST', '/api/v1/generate/batch', {
      key: acct.key,
      json: { designUrl, garmentId: garment.id, items },
      headers: { prefer: 'respond-async' },
    });
    assert.equal(res.status, 202, res.text);
    assert.equal(res.headers.get('preference-applied'), 'respond-async');
    assert.equal(res.body.generations.length, 2);
    for (const pending of res.body.generations) {
      assert.ok(['pending', 'processing'].includes(pending.status));
      assert.equal(pending.zone, 'back');
      let g: any;
      await waitUpTo(
        async () => {
          g = (await http(stack.baseUrl, 'GET', `/api/v1/generations/${pending.id}`, { key: acct.key })).body;
          return g.status === 'completed' || g.status === 'failed';
        },
        { ms: 15_000, every: 100 },
      );
      assert.equal(g.status, 'completed', g.error);
    }
  });
});
