import assert from 'node:assert/strict';
import sharp from 'sharp';
import { account, http } from '../helpers/http';
import { useStack } from '../helpers/stack';

describe('garment catalogue (/api/v1/garments)', () => {
  const stack = useStack('garments', { worker: false });
  let key: string;
  before(async () => {
    key = (await account(stack.baseUrl)).key;
  });

  async function allGarments(query = '', limit = 5): Promise<any[]> {
    const out: any[] = [];
    let cursor: string | null = null;
    for (let i = 0; i < 50; i++) {
      const sep = query ? '&' : '';
      const res: any = await http(
        stack.baseUrl,
        'GET',
        `/api/v1/garments?${query}${sep}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        { key },
      );
      assert.equal(res.status, 200, res.text);
      out.push(...res.body.garments);
      if (!res.body.pagination.hasMore) {
        assert.equal(res.body.pagination.nextCursor, null);
        return out;
      }
      cursor = res.body.pagination.nextCursor;
      assert.equal(typeof cursor, 'string');
    }
    throw new Error('pagination did not end');
  }

  it('seeds at least 12 garments across at least 4 categories, each complete', async () => {
    const res = await http(stack.baseUrl, 'GET', '/api/v1/garments', { key });
    assert.equal(res.status, 200);
    const gs = res.body.garments;
    assert.ok(gs.length >= 12, `got ${gs.length}`);
    const cats = new Set(gs.map((g: any) => g.category));
    assert.ok(cats.size >= 4);
    for (const c of ['t-shirts', 'hoodies', 'tanks', 'long-sleeves']) assert.ok(cats.has(c), c);
    for (const g of gs) {
      assert.equal(g.currency, 'USD');
      assert.ok(g.basePrice > 0);
      assert.ok(g.colors.length >= 3, `${g.id} colors`);
      assert.ok(g.sizes.length >= 4);
      const zones = g.printZones.map((z: any) => z.id);
      assert.ok(zones.includes('front') && zones.includes('back'), `${g.id} zones ${zones}`);
      if (g.category !== 'tanks') assert.ok(zones.includes('left-chest') && zones.includes('right-chest'), g.id);
      for (const c of g.colors) {
        assert.match(c.hex, /^#[0-9A-F]{6}$/i);
        assert.equal(typeof c.available, 'boolean');
        assert.ok(c.imageUrl.startsWith(stack.baseUrl + '/files/'));
      }
      for (const z of g.printZones) {
        assert.ok(z.maxWidth > 0 && z.maxHeight > 0);
        assert.ok(z.position.x >= 0 && z.position.x <= 100 && z.position.y >= 0 && z.position.y <= 100);
        assert.ok(z.region.x + z.region.width <= 100 && z.region.y + z.region.height <= 100);
      }
      assert.ok(g.images.thumbnail && g.images.full);
    }
  });

  it('pages with an opaque cursor through every garment exactly once', async () => {
    const first = await http(stack.baseUrl, 'GET', '/api/v1/garments?limit=100', { key });
    const paged = await allGarments('', 5);
    assert.deepEqual(
      paged.map((g) => g.id),
      first.body.garments.map((g: any) => g.id),
    );
  });

  it('filters by category, also across pages', async () => {
    const hoodies = await allGarments('category=hoodies', 1);
    assert.ok(hoodies.length >= 2);
    assert.ok(hoodies.every((g) => g.category === 'hoodies'));
    const none = await http(stack.baseUrl, 'GET', '/api/v1/garments?category=ball-gowns', { key });
    assert.equal(none.status, 200);
    assert.deepEqual(none.body, { garments: [], pagination: { hasMore: false, nextCursor: null } });
  });

  for (const q of [
    'limit=0',
    'limit=101',
    'limit=abc',
    'limit=1.5',
    'limit=-1',
    'limit=',
    'category=Bad Cat!',
    'foo=bar',
    'limit=1&limit=2',
  ]) {
    it(`refuses ${q} with 400 invalid_request`, async () => {
      const res = await http(stack.baseUrl, 'GET', `/api/v1/garments?${q}`, { key });
      assert.equal(res.status, 400, res.text);
      assert.equal(res.body.error.code, 'invalid_request');
    });
  }

  it('refuses forged, tampered and cross-filter cursors with 400', async () => {
    const page = await http(stack.baseUrl, 'GET', '/api/v1/garments?limit=2', { key });
    const cursor: string = page.body.pagination.nextCursor;
    const [payload, sig] = cursor.split('.');
    const forgedPayload = Buffer.from(JSON.stringify({ s: 0 })).toString('base64url');
    const bad = [
      'garbage',
      `${forgedPayload}.${sig}`,
      `${payload}.${'A'.repeat(22)}`,
      Buffer.from(JSON.stringify({ s: 0 })).toString('base64url'),
    ];
    for (const c of bad) {
      const res = await http(stack.baseUrl, 'GET', `/api/v1/garments?limit=2&cursor=${encodeURIComponent(c)}`, { key });
      assert.equal(res.status, 400, c);
      assert.equal(res.body.error.code, 'invalid_request');
      assert.match(res.body.error.message, /cursor/i);
    }
    const cross = await http(
      stack.baseUrl,
      'GET',
      `/api/v1/garments?category=hoodies&cursor=${encodeURIComponent(cursor)}`,
      { key },
    );
    assert.equal(cross.status, 400);
  });

  it('returns one garment by id and 404 not_found for an unknown id', async () => {
    const list = await http(stack.baseUrl, 'GET', '/api/v1/garments?limit=1', { key });
    const g = list.body.garments[0];
    const one = await http(stack.baseUrl, 'GET', `/api/v1/garments/${g.id}`, { key });
    assert.equal(one.status, 200);
    assert.deepEqual(one.body, g);
    const missing = await http(stack.baseUrl, 'GET', '/api/v1/garments/no-such-garment', { key });
    assert.equal(missing.status, 404);
    assert.equal(missing.body.error.code, 'not_found');
  });

  it('needs an API key', async () => {
    const res = await http(stack.baseUrl, 'GET', '/api/v1/garments');
    assert.equal(res.status, 401);
    assert.equal(res.body.error.code, 'unauthorized');
  });

  it('serves every blank as a >= 2000x2000 JPEG with a small thumbnail, cacheable', async () => {
    const res = await http(stack.baseUrl, 'GET', '/api/v1/garments?limit=100', { key });
    const g = res.body.garments.find((x: any) => x.category === 'hoodies');
    const c = g.colors[0];
    const full = await fetch(c.imageUrl);
    assert.equal(full.status, 200);
    assert.equal(full.headers.get('content-type'), 'image/jpeg');
    assert.match(full.headers.get('cache-control') ?? '', /max-age=31536000/);
    const meta = await sharp(Buffer.from(await full.arrayBuffer())).metadata();
    assert.ok(meta.width! >= 2000 && meta.height! >= 2000);
    const thumb = await fetch(c.thumbnailUrl);
    const tmeta = await sharp(Buffer.from(await thumb.arrayBuffer())).metadata();
    assert.ok(tmeta.width! <= 500 && tmeta.height! <= 500);
    const gt = await fetch(g.images.thumbnail);
    assert.equal(gt.status, 200);
  });

  it('maps every print zone onto garment pixels (not background) on every color', async () => {
    const res = await http(stack.baseUrl, 'GET', '/api/v1/garments?limit=100', { key });
    for (const g of res.body.garments.slice(0, 14)) {
      const c = g.colors[g.colors.length - 1];
      for (const z of g.printZones) {
        const url = z.view === 'back' ? c.backImageUrl : c.imageUrl;
        const img = sharp(Buffer.from(await (await fetch(url)).arrayBuffer()));
        const { width, height } = await img.metadata();
        // Sample the zone's center region and compare with the studio background in the corner.
        const left = Math.round((z.region.x / 100) * width!);
        const top = Math.round((z.region.y / 100) * height!);
        const w = Math.round((z.region.width / 100) * width!);
        const h = Math.round((z.region.height / 100) * height!);
        assert.ok(w > 20 && h > 20 && left + w <= width! && top + h <= height!, `${g.id}/${z.id} inside image`);
        // stats() describes its input image, so materialise the extracted zone first.
        const zoneImg = await img.clone().extract({ left, top, width: w, height: h }).png().toBuffer();
        const zone = await sharp(zoneImg).stats();
        const mean = zone.channels.slice(0, 3).map((ch) => ch.mean);
        const hex = c.hex.replace('#', '');
        const want = [0, 2, 4].map((i) => parseInt(hex.slice(i, i + 2), 16));
        const dist = Math.hypot(...mean.map((m, i) => m - want[i]!));
        assert.ok(dist < 90, `${g.id}/${c.name}/${z.id}: zone mean ${mean.map(Math.round)} far from color ${want}`);
      }
    }
  });
});
