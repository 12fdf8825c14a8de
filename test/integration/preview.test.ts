// POST /api/v1/preview: free synchronous JPEG of a placement from the generation engine, its own rate
// budget, the Part A error envelope, and reachable with the dashboard's session cookie.
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { tokenBalance } from '../../db/ledger';
import * as F from '../helpers/fixtures';
import { account, http } from '../helpers/http';
import { startStack, type Stack, storeDesign, useStack } from '../helpers/stack';

/** A red disc and a navy bar on transparency, 1200x900: a shape whose place and turn are easy to measure. */
async function markerDesign(): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="1200" height="900">
    <circle cx="450" cy="450" r="380" fill="${F.hex(F.RED)}"/>
    <rect x="880" y="80" width="260" height="740" fill="${F.hex(F.NAVY)}"/>
  </svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}

interface Box {
  left: number;
  top: number;
  right: number;
  bottom: number;
  cx: number;
  cy: number;
  count: number;
}

/** Bounding box and centroid of clearly red pixels. */
async function redBox(img: Buffer, resize?: { width: number; height: number }): Promise<Box> {
  let p = sharp(img).removeAlpha();
  if (resize) p = p.resize(resize.width, resize.height, { fit: 'fill' });
  const { data, info } = await p.raw().toBuffer({ resolveWithObject: true });
  const box: Box = { left: Infinity, top: Infinity, right: -1, bottom: -1, cx: 0, cy: 0, count: 0 };
  for (let y = 0; y < info.height; y++) {
    for (let x = 0; x < info.width; x++) {
      const i = (y * info.width + x) * 3;
      const r = data[i]!;
      if (r > 110 && r > data[i + 1]! * 2 && r > data[i + 2]! * 2) {
        box.count++;
        box.cx += x;
        box.cy += y;
        if (x < box.left) box.left = x;
        if (x > box.right) box.right = x;
        if (y < box.top) box.top = y;
        if (y > box.bottom) box.bottom = y;
      }
    }
  }
  box.cx /= box.count;
  box.cy /= box.count;
  return box;
}

/** Mean absolute difference per channel (0-255) between two same-sized images. */
async function meanAbsDiff(a: Buffer, b: Buffer): Promise<number> {
  const [x, y] = await Promise.all([a, b].map((img) => sharp(img).removeAlpha().raw().toBuffer()));
  assert.equal(x!.length, y!.length);
  let sum = 0;
  for (let i = 0; i < x!.length; i++) sum += Math.abs(x![i]! - y![i]!);
  return sum / x!.length;
}

describe('placement preview (POST /api/v1/preview)', () => {
  const stack = useStack('preview');
  let acct: Awaited<ReturnType<typeof account>>;
  let garment: any;
  let designUrl: string;

  before(async () => {
    acct = await account(stack.baseUrl);
    const list = await http(stack.baseUrl, 'GET', '/api/v1/garments?category=t-shirts&limit=1', { key: acct.key });
    garment = list.body.garments[0];
    const up = await http(stack.baseUrl, 'POST', '/api/v1/upload', {
      key: acct.key,
      json: { imageData: F.toDataUrl(await markerDesign()) },
    });
    assert.equal(up.status, 201, up.text);
    designUrl = up.body.url;
  });

  const body = (over: Record<string, unknown> = {}) => ({
    designUrl,
    garmentId: garment.id,
    garmentImageUrl: garment.colors[0].imageUrl,
    ...over,
  });

  it('answers a JPEG at most 640 px on its long side, synchronously, without spending a token', async () => {
    const before = await tokenBalance(stack.sql, acct.userId);
    const res = await fetch(`${stack.baseUrl}/api/v1/preview`, {
      method: 'POST',
      headers: { authorization: `Bearer ${acct.key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body()),
    });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'image/jpeg');
    assert.equal(res.headers.get('cache-control'), 'no-store');
    assert.equal(res.headers.get('x-tokens-remaining'), String(before));
    assert.equal(res.headers.get('x-ratelimit-limit'), '1000000'); // the test stack's lifted preview budget
    const img = Buffer.from(await res.arrayBuffer());
    const meta = await sharp(img).metadata();
    assert.equal(meta.format, 'jpeg');
    assert.equal(Math.max(meta.width!, meta.height!), 640);
    assert.equal(res.headers.get('x-preview-size'), `${meta.width}x${meta.height}`);
    // the design is on it, in the front zone
    const red = await redBox(img);
    assert.ok(red.count > 500, `red pixels: ${red.count}`);
    assert.equal(await tokenBalance(stack.sql, acct.userId), before);
    const gens = await http(stack.baseUrl, 'GET', '/api/v1/generations', { key: acct.key });
    assert.deepEqual(gens.body.generations, [], 'no generation recorded');
  });

  it('places the design where the paid mockup does (the mockup downscaled matches within a tolerance)', async () => {
    for (const placement of [
      { x: 50, y: 35, scale: 0.8, rotation: 0 },
      { x: 30, y: 60, scale: 0.45, rotation: 35 },
      { x: 80, y: 20, scale: 0.3, rotation: -120 },
    ]) {
      const json = body({ placement, color: garment.colors[0].name });
      const pre = await fetch(`${stack.baseUrl}/api/v1/preview`, {
        method: 'POST',
        headers: { authorization: `Bearer ${acct.key}`, 'content-type': 'application/json' },
        body: JSON.stringify(json),
      });
      assert.equal(pre.status, 200);
      const preview = Buffer.from(await pre.arrayBuffer());
      const size = await sharp(preview).metadata();
      const gen = await http(stack.baseUrl, 'POST', '/api/v1/generate', { key: acct.key, json });
      assert.equal(gen.status, 200, gen.text);
      const mockup = Buffer.from(await (await fetch(gen.body.mockupUrl)).arrayBuffer());
      const downscaled = await sharp(mockup)
        .resize(size.width, size.height, { fit: 'fill', kernel: 'lanczos3' })
        .jpeg({ quality: 95 })
        .toBuffer();

      const a = await redBox(preview);
      const b = await redBox(downscaled);
      const label = JSON.stringify(placement);
      // same place (centroid within 1 px of 640; measured ~0.1), same extent (edges within 2 px)
      assert.ok(
        Math.abs(a.cx - b.cx) <= 1 && Math.abs(a.cy - b.cy) <= 1,
        `${label} centroid ${a.cx},${a.cy} vs ${b.cx},${b.cy}`,
      );
      for (const edge of ['left', 'top', 'right', 'bottom'] as const)
        assert.ok(Math.abs(a[edge] - b[edge]) <= 2, `${label} ${edge} ${a[edge]} vs ${b[edge]}`);
      const diff = await meanAbsDiff(preview, downscaled);
      // area within 10 % (a few hundred pixels at the smaller sizes: the red threshold meets antialiased edges)
      assert.ok(Math.abs(a.count - b.count) / b.count < 0.1, `${label} area ${a.count} vs ${b.count}`);
      // and the whole picture (garment, shading, print) looks the same: mean difference under 2 of 255 (measured ~0.5)
      assert.ok(diff < 2, `${label} mean abs diff ${diff.toFixed(2)}`);
    }
  });

  it('differs when the placement changes (it is not a cached picture)', async () => {
    const get = async (placement: Record<string, number>) => {
      const r = await fetch(`${stack.baseUrl}/api/v1/preview`, {
        method: 'POST',
        headers: { authorization: `Bearer ${acct.key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body({ placement })),
      });
      return redBox(Buffer.from(await r.arrayBuffer()));
    };
    const left = await get({ x: 20, y: 50, scale: 0.4, rotation: 0 });
    const right = await get({ x: 80, y: 50, scale: 0.4, rotation: 0 });
    assert.ok(right.cx - left.cx > 40, `${left.cx} -> ${right.cx}`);
    const small = await get({ x: 50, y: 50, scale: 0.2, rotation: 0 });
    assert.ok(small.count < left.count / 2);
  });

  describe('bad input: the Part A error envelope', () => {
    const cases: [string, Record<string, unknown>][] = [
      ['webhookUrl (not part of a preview)', { webhookUrl: 'https://example.com/hook' }],
      ['missing designUrl', { designUrl: undefined }],
      ['missing garmentId', { garmentId: undefined }],
      ['designUrl not a URL', { designUrl: 'nope' }],
      ['placement.scale > 1', { placement: { scale: 2 } }],
      ['placement.rotation < -180', { placement: { rotation: -181 } }],
      ['zone unknown', { zone: 'sleeve' }],
      ['color unknown to the garment', { color: 'Plaid' }],
      ['unknown field', { size: 'XL' }],
    ];
    for (const [label, over] of cases) {
      it(`refuses ${label} with 400 invalid_request`, async () => {
        const res = await http(stack.baseUrl, 'POST', '/api/v1/preview', { key: acct.key, json: body(over) });
        assert.equal(res.status, 400, res.text);
        assert.equal(res.body.error.code, 'invalid_request');
        assert.equal(typeof res.body.error.message, 'string');
      });
    }

    it('answers an unknown garment with 404 not_found', async () => {
      const res = await http(stack.baseUrl, 'POST', '/api/v1/preview', {
        key: acct.key,
        json: body({ garmentId: 'no-such-garment' }),
      });
      assert.equal(res.status, 404);
      assert.equal(res.body.error.code, 'not_found');
    });

    it('answers a design URL with no image behind it with 400 invalid_request', async () => {
      const res = await http(stack.baseUrl, 'POST', '/api/v1/preview', {
        key: acct.key,
        json: body({ designUrl: `${stack.baseUrl}/files/uploads/nothing-here.png` }),
      });
      assert.equal(res.status, 400, res.text);
      assert.equal(res.body.error.code, 'invalid_request');
      assert.match(res.body.error.message, /Design image/);
    });

    it('answers malformed JSON with 400 invalid_request', async () => {
      const res = await http(stack.baseUrl, 'POST', '/api/v1/preview', {
        key: acct.key,
        body: '{"designUrl":',
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(res.status, 400);
      assert.equal(res.body.error.code, 'invalid_request');
    });

    it('needs a key or a session: 401 unauthorized', async () => {
      const res = await http(stack.baseUrl, 'POST', '/api/v1/preview', { json: body() });
      assert.equal(res.status, 401);
      assert.equal(res.body.error.code, 'unauthorized');
    });
  });

  describe('with the session cookie (the dashboard)', () => {
    it('renders for a signed-in user without a key', async () => {
      const res = await fetch(`${stack.baseUrl}/api/v1/preview`, {
        method: 'POST',
        headers: { cookie: acct.cookie, 'content-type': 'application/json', origin: stack.baseUrl },
        body: JSON.stringify(body()),
      });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-type'), 'image/jpeg');
      assert.ok(res.headers.get('x-tokens-remaining'));
    });

    it('refuses a cross-origin request carrying the cookie with 403 forbidden', async () => {
      const variants: Record<string, string>[] = [{ origin: 'http://127.0.0.1:1' }, { 'sec-fetch-site': 'cross-site' }];
      for (const headers of variants) {
        const res = await http(stack.baseUrl, 'POST', '/api/v1/preview', {
          cookie: acct.cookie,
          headers,
          json: body(),
        });
        assert.equal(res.status, 403, res.text);
        assert.equal(res.body.error.code, 'forbidden');
      }
    });

    it('refuses an expired session with 401', async () => {
      const res = await http(stack.baseUrl, 'POST', '/api/v1/preview', {
        cookie: 'amk_session=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
        json: body(),
      });
      assert.equal(res.status, 401);
      assert.equal(res.body.error.code, 'unauthorized');
    });
  });
});

describe('placement preview rate limit (own budget of 120 a minute per key)', () => {
  let stack: Stack;
  let acct: Awaited<ReturnType<typeof account>>;
  let garment: any;

  before(async () => {
    // a tiny preview budget and a tiny general budget: previews use the first only
    stack = await startStack('preview-limits', {
      worker: false,
      env: { RATE_LIMIT_PREVIEW_PER_MINUTE: '3', RATE_LIMIT_PER_MINUTE: '2' },
    });
    acct = await account(stack.baseUrl);
    // the garment read with another account's key: this key's budgets stay untouched
    const reader = await account(stack.baseUrl);
    const list = await http(stack.baseUrl, 'GET', '/api/v1/garments?category=t-shirts&limit=1', { key: reader.key });
    assert.equal(list.status, 200, list.text);
    const [g] = list.body.garments;
    garment = { id: g.id, imageUrl: g.colors[0].imageUrl };
  });

  it('counts previews in their own window, not in the key minute window; the 4th of 3 is 429 rate_limited', async () => {
    const design = await F.crispLogo(600, 750);
    const json = {
      designUrl: await storeDesign(stack, design),
      garmentId: garment.id,
      garmentImageUrl: garment.imageUrl,
    };
    for (let i = 1; i <= 3; i++) {
      const res = await http(stack.baseUrl, 'POST', '/api/v1/preview', { key: acct.key, json });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.headers.get('x-ratelimit-limit'), '3');
      assert.equal(res.headers.get('x-ratelimit-remaining'), String(3 - i));
    }
    const refused = await http(stack.baseUrl, 'POST', '/api/v1/preview', { key: acct.key, json });
    assert.equal(refused.status, 429);
    assert.equal(refused.body.error.code, 'rate_limited');
    assert.ok(Number(refused.headers.get('retry-after')) > 0);
    // the key's general minute window (2) has not been touched by the previews
    const other = await http(stack.baseUrl, 'GET', '/api/v1/generations', { key: acct.key });
    assert.equal(other.status, 200);
    assert.equal(other.headers.get('x-ratelimit-limit'), '2');
    assert.equal(other.headers.get('x-ratelimit-remaining'), '1');
  });

  it('counts a session user in a budget of their own', async () => {
    const other = await account(stack.baseUrl);
    const design = await F.crispLogo(600, 750);
    const json = {
      designUrl: await storeDesign(stack, design),
      garmentId: garment.id,
      garmentImageUrl: garment.imageUrl,
    };
    for (let i = 1; i <= 3; i++) {
      const res = await http(stack.baseUrl, 'POST', '/api/v1/preview', { cookie: other.cookie, json });
      assert.equal(res.status, 200, res.text);
    }
    const refused = await http(stack.baseUrl, 'POST', '/api/v1/preview', { cookie: other.cookie, json });
    assert.equal(refused.status, 429);
    // the same user's key has its own budget
    const byKey = await http(stack.baseUrl, 'POST', '/api/v1/preview', { key: other.key, json });
    assert.equal(byKey.status, 200);
  });
});
