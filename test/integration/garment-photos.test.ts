// Mockups on clients' own blank photos, through HTTP: the garment is found in the photo and the print lands where it
// lands on our own blank relative to the garment (printArea, designBox, placementBasis in the resource); a photo
// without a clear backdrop falls back to the zone's fractions of the image; printArea overrides and is validated.
// The photos are our own blanks reframed (test/helpers/customer-photos.ts), served by a local "customer" host.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { tokenBalance } from '../../db/ledger';
import { referenceLandmarks } from '../../lib/compositing';
import { busyPhoto, framedPhoto, type Backdrop, type OwnBlank } from '../helpers/customer-photos';
import { account, http } from '../helpers/http';
import { storeDesign, useStack } from '../helpers/stack';

const GARMENT = 'gildan-5000-heavy-cotton-tee'; // silhouette tee
const W = 2400;
const H = 2000;
const SCALE = 0.5;

describe("mockups on clients' own photos (garment detection, printArea, designBox, placementBasis)", () => {
  const stack = useStack('garment-photos', { env: { ALLOW_PRIVATE_URLS: 'true' } });
  let acct: Awaited<ReturnType<typeof account>>;
  let origin: Server;
  let originUrl: string;
  let designUrl: string;
  let blankUrl: string;
  let blank: OwnBlank;
  const photos = new Map<string, Buffer>();

  before(async () => {
    acct = await account(stack.baseUrl);
    const g = await http(stack.baseUrl, 'GET', `/api/v1/garments/${GARMENT}`, { key: acct.key });
    const red = g.body.colors.find((c: { name: string }) => c.name === 'Red');
    blankUrl = red.imageUrl;
    const jpeg = Buffer.from(await (await fetch(blankUrl)).arrayBuffer());
    blank = { silhouette: 'tee', view: 'front', size: 2000, jpeg };
    const design = await sharp({
      create: { width: 500, height: 400, channels: 4, background: { r: 20, g: 40, b: 220, alpha: 1 } },
    })
      .png()
      .toBuffer();
    designUrl = await storeDesign(stack, design);
    // the blank at half size in the bottom-right corner of a 2400x2000 photo, on three backdrops; and a busy photo
    const frame = (backdrop: Backdrop) =>
      framedPhoto(blank, { width: W, height: H, scale: SCALE, left: W - 1000, top: H - 1000, backdrop });
    photos.set('/studio.jpg', (await frame('studio')).image);
    photos.set('/transparent.png', (await frame('transparent')).image);
    photos.set('/dark.jpg', (await frame([70, 74, 80])).image);
    photos.set('/busy.jpg', await busyPhoto(blank, W, H));
    // issue 38: our white tee at half size in the bottom-left corner of a pure white backdrop
    const white = g.body.colors.find((c: { name: string }) => c.name === 'White');
    const whiteJpeg = Buffer.from(await (await fetch(white.imageUrl)).arrayBuffer());
    const whiteBlank: OwnBlank = { silhouette: 'tee', view: 'front', size: 2000, jpeg: whiteJpeg };
    photos.set(
      '/white-corner.jpg',
      (
        await framedPhoto(whiteBlank, {
          width: W,
          height: H,
          scale: SCALE,
          left: 0,
          top: H - 1000,
          backdrop: [255, 255, 255],
        })
      ).image,
    );
    origin = createServer((req, res) => {
      const path = req.url!.split('?')[0]!;
      const body = photos.get(path);
      if (!body) return res.writeHead(404).end();
      res.writeHead(200, { 'content-type': path.endsWith('.png') ? 'image/png' : 'image/jpeg' }).end(body);
    });
    await new Promise<void>((r) => origin.listen(0, '127.0.0.1', () => r()));
    originUrl = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`;
  });
  after(async () => {
    origin?.close();
  });

  const generate = (over: Record<string, unknown>) =>
    http(stack.baseUrl, 'POST', '/api/v1/generate', {
      key: acct.key,
      json: { designUrl, garmentId: GARMENT, color: 'Red', placement: { x: 50, y: 35, scale: 0.8 }, ...over },
    });

  let onOurBlank: { printArea: Box; designBox: Box };
  interface Box {
    left: number;
    top: number;
    width: number;
    height: number;
  }

  it('our own blank: placementBasis "garment", printArea is the catalogue zone and designBox where the design landed', async () => {
    const res = await generate({ garmentImageUrl: blankUrl });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.status, 'completed', res.body.error);
    assert.equal(res.body.placementBasis, 'garment');
    const g = await http(stack.baseUrl, 'GET', `/api/v1/garments/${GARMENT}`, { key: acct.key });
    const zone = g.body.printZones.find((z: { id: string }) => z.id === 'front');
    assert.ok(
      Math.abs(res.body.printArea.left - (zone.region.x / 100) * 2000) <= 1,
      JSON.stringify(res.body.printArea),
    );
    const d = res.body.designBox;
    assert.ok(
      d.left >= res.body.printArea.left && d.left + d.width <= res.body.printArea.left + res.body.printArea.width,
    );
    onOurBlank = { printArea: res.body.printArea, designBox: d };
    // GET answers the same
    const again = await http(stack.baseUrl, 'GET', `/api/v1/generations/${res.body.id}`, { key: acct.key });
    assert.deepEqual(again.body.designBox, d);
  });

  for (const [label, path] of [
    ['its own backdrop colour', '/studio.jpg'],
    ['a transparent background', '/transparent.png'],
    ['a darker backdrop', '/dark.jpg'],
  ] as const) {
    it(`our blank shrunk to half in a corner of a larger photo on ${label}: the design lands on the same place of the garment`, async () => {
      const res = await generate({ garmentImageUrl: `${originUrl}${path}` });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.status, 'completed', res.body.error);
      assert.equal(res.body.placementBasis, 'garment');
      const ref = await referenceLandmarks('tee', 'front');
      const garmentWidth = ref.box.width * 2000 * SCALE;
      const mapped = (b: Box): Box => ({
        left: b.left * SCALE + (W - 1000),
        top: b.top * SCALE + (H - 1000),
        width: b.width * SCALE,
        height: b.height * SCALE,
      });
      for (const [what, got, want] of [
        ['designBox', res.body.designBox, mapped(onOurBlank.designBox)],
        ['printArea', res.body.printArea, mapped(onOurBlank.printArea)],
      ] as const) {
        for (const k of ['left', 'top', 'width', 'height'] as const) {
          const off = Math.abs(got[k] - want[k]) / garmentWidth;
          assert.ok(off <= 0.03, `${what}.${k}: ${got[k]} vs ${want[k]} (${(off * 100).toFixed(2)} % of the garment)`);
        }
      }
    });
  }

  it('a white tee reframed in a corner of a white backdrop gets its print on its chest, without a warning', async () => {
    const res = await generate({ garmentImageUrl: `${originUrl}/white-corner.jpg`, color: 'White' });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.status, 'completed', res.body.error);
    assert.equal(res.body.placementBasis, 'garment');
    assert.deepEqual(res.body.warnings, []);
    const ref = await referenceLandmarks('tee', 'front');
    const garmentWidth = ref.box.width * 2000 * SCALE;
    const want = onOurBlank.designBox;
    const got = res.body.designBox as Box;
    const centre = (b: Box) => [b.left + b.width / 2, b.top + b.height / 2] as const;
    const [wx, wy] = centre(want);
    const [gx, gy] = centre(got);
    const off = Math.hypot(gx - (wx * SCALE + 0), gy - (wy * SCALE + (H - 1000))) / garmentWidth;
    assert.ok(off <= 0.03, `print centre ${gx},${gy}: ${(off * 100).toFixed(2)} % of the garment width off its chest`);
  });

  it('a photo with no separable backdrop falls back to the zone in fractions of the image: placementBasis "image" and a garment_not_found warning', async () => {
    const res = await generate({ garmentImageUrl: `${originUrl}/busy.jpg` });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.status, 'completed', res.body.error);
    assert.equal(res.body.placementBasis, 'image');
    assert.deepEqual(
      res.body.warnings.map((w: { code: string }) => w.code),
      ['garment_not_found'],
    );
    assert.match(res.body.warnings[0].message, /printArea/);
    const again = await http(stack.baseUrl, 'GET', `/api/v1/generations/${res.body.id}`, { key: acct.key });
    assert.deepEqual(again.body.warnings, res.body.warnings);
    // with a printArea there is nothing to warn about
    const drawn = await generate({
      garmentImageUrl: `${originUrl}/busy.jpg`,
      printArea: { x: 30, y: 30, width: 40, height: 40 },
    });
    assert.equal(drawn.body.status, 'completed', drawn.body.error);
    assert.deepEqual(drawn.body.warnings, []);
    // the catalogue zone's fractions of the 2000 px blank, on the 2400x2000 photo
    const p = onOurBlank.printArea;
    assert.ok(Math.abs(res.body.printArea.left - (p.left / 2000) * W) <= 2, JSON.stringify(res.body.printArea));
    assert.ok(Math.abs(res.body.printArea.top - (p.top / 2000) * H) <= 2);
    assert.ok(Math.abs(res.body.printArea.width - (p.width / 2000) * W) <= 2);
  });

  it('printArea overrides the zone found on the garment (placementBasis "image"), on generate and batch items', async () => {
    const printArea = { x: 10, y: 20, width: 30, height: 40 };
    const res = await generate({ garmentImageUrl: `${originUrl}/studio.jpg`, printArea });
    assert.equal(res.body.status, 'completed', res.body.error);
    assert.equal(res.body.placementBasis, 'image');
    assert.deepEqual(res.body.printArea, { left: 240, top: 400, width: 720, height: 800 });
    const d = res.body.designBox;
    assert.ok(Math.abs(d.left + d.width / 2 - (240 + 360)) <= 1, JSON.stringify(d));

    const batch = await http(stack.baseUrl, 'POST', '/api/v1/generate/batch', {
      key: acct.key,
      json: {
        designUrl,
        garmentId: GARMENT,
        items: [
          {
            garmentImageUrl: `${originUrl}/dark.jpg`,
            color: 'Red',
            printArea: { x: 50, y: 50, width: 50, height: 50 },
          },
          { garmentImageUrl: `${originUrl}/dark.jpg`, color: 'Red' },
        ],
      },
    });
    assert.equal(batch.status, 200, batch.text);
    const [a, b] = batch.body.generations;
    assert.equal(a.status, 'completed', a.error);
    assert.deepEqual([a.placementBasis, a.printArea], ['image', { left: 1200, top: 1000, width: 1200, height: 1000 }]);
    assert.equal(b.placementBasis, 'garment');
    assert.ok(b.printArea.left > 1400, 'the found garment is in the bottom-right corner');
  });

  for (const [label, printArea, field] of [
    ['x above 100', { x: 120, y: 0, width: 10, height: 10 }, 'printArea.x'],
    ['a negative y', { x: 0, y: -5, width: 10, height: 10 }, 'printArea.y'],
    ['a zero width', { x: 0, y: 0, width: 0, height: 10 }, 'printArea.width'],
    ['x + width over 100', { x: 60, y: 0, width: 50, height: 10 }, 'printArea.width'],
    ['y + height over 100', { x: 0, y: 70, width: 10, height: 40 }, 'printArea.height'],
    ['a missing height', { x: 0, y: 0, width: 10 }, 'printArea.height'],
    ['an unknown member', { x: 0, y: 0, width: 10, height: 10, z: 1 }, 'printArea'],
  ] as const) {
    it(`refuses a printArea with ${label}: 400 invalid_request naming ${field}, nothing charged`, async () => {
      const before = await tokenBalance(stack.sql, acct.userId);
      const res = await generate({ garmentImageUrl: `${originUrl}/studio.jpg`, printArea });
      assert.equal(res.status, 400, res.text);
      assert.equal(res.body.error.code, 'invalid_request');
      assert.ok(JSON.stringify(res.body.error).includes(field), JSON.stringify(res.body.error));
      assert.equal(await tokenBalance(stack.sql, acct.userId), before);
    });
  }

  it('refuses an out-of-range printArea on a batch item: 400 naming items.0.printArea.height', async () => {
    const res = await http(stack.baseUrl, 'POST', '/api/v1/generate/batch', {
      key: acct.key,
      json: {
        designUrl,
        garmentId: GARMENT,
        items: [{ color: 'Red', printArea: { x: 0, y: 0, width: 10, height: 101 } }],
      },
    });
    assert.equal(res.status, 400, res.text);
    assert.equal(res.body.error.code, 'invalid_request');
    assert.ok(JSON.stringify(res.body.error).includes('items.0.printArea.height'), JSON.stringify(res.body.error));
  });

  it('the preview says where the garment and the zone are (headers), as the generation would place them', async () => {
    const res = await fetch(`${stack.baseUrl}/api/v1/preview`, {
      method: 'POST',
      headers: { authorization: `Bearer ${acct.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        designUrl,
        garmentId: GARMENT,
        garmentImageUrl: `${originUrl}/studio.jpg`,
        color: 'Red',
      }),
    });
    assert.equal(res.status, 200, await res.clone().text());
    assert.equal(res.headers.get('x-placement-basis'), 'garment');
    const [w, h] = res.headers.get('x-preview-size')!.split('x').map(Number);
    assert.deepEqual([w, h], [640, 533]);
    const garment = res.headers.get('x-garment-box')!.split(',').map(Number);
    // the garment (~88 % of the 1000 px blank, half of the photo) is in the bottom-right corner
    assert.ok(garment[0]! > 640 * 0.55 && garment[1]! > 533 * 0.45, String(garment));
    const zone = res.headers.get('x-print-area')!.split(',').map(Number);
    assert.ok(zone[0]! > garment[0]! && zone[0]! + zone[2]! < garment[0]! + garment[2]!, String(zone));
  });

  it('the preview of a busy photo says garment_not_found (X-Warnings), one of a found garment says nothing', async () => {
    const preview = (photo: string) =>
      fetch(`${stack.baseUrl}/api/v1/preview`, {
        method: 'POST',
        headers: { authorization: `Bearer ${acct.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ designUrl, garmentId: GARMENT, garmentImageUrl: `${originUrl}${photo}`, color: 'Red' }),
      });
    const busy = await preview('/busy.jpg');
    assert.equal(busy.status, 200, await busy.clone().text());
    assert.equal(busy.headers.get('x-placement-basis'), 'image');
    const warnings = JSON.parse(busy.headers.get('x-warnings')!);
    assert.deepEqual(
      warnings.map((w: { code: string }) => w.code),
      ['garment_not_found'],
    );
    const found = await preview('/white-corner.jpg');
    assert.equal(found.headers.get('x-placement-basis'), 'garment');
    assert.equal(found.headers.get('x-warnings'), '[]');
  });
});
