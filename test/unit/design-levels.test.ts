// Designs prepared for placement: the level pyramid, the level prepared at upload time, and the worker's design
// cache. The property that matters: whatever the worker has (nothing, a cached level, the prepared level), a
// placement gets the same pixels, so a re-run generation writes the same mockup.
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { configureDesignCache, DesignImageError } from '../../lib/compositing';
import { placeDesign, type DesignSource } from '../../lib/compositing/design';
import {
  decodePrepared,
  encodePrepared,
  fitInside,
  levelFor,
  levelSize,
  prepareDesignLevels,
  preparedBytes,
  preparedLevelsFor,
  uprightSize,
  type PreparedDesign,
} from '../../lib/images/design-levels';
import { MAX_INPUT_PIXELS } from '../../lib/images/limits';

const LIMIT = { limitInputPixels: MAX_INPUT_PIXELS };

/** A 1600x2000 design with detail at every scale (gradients, stripes, a transparent margin), as PNG. */
async function detailedDesign(width = 1600, height = 2000): Promise<Buffer> {
  const px = Buffer.alloc(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      const inside = x > width * 0.05 && x < width * 0.95 && y > height * 0.05 && y < height * 0.95;
      px[i] = (x * 255) / width;
      px[i + 1] = ((x >> 3) + (y >> 3)) & 1 ? 230 : 20;
      px[i + 2] = (y * 255) / height;
      px[i + 3] = inside ? 255 : 0;
    }
  }
  return sharp(px, { raw: { width, height, channels: 4 } })
    .png({ compressionLevel: 1 })
    .toBuffer();
}

/** What the upload route stores beside an upload. */
async function prepare(bytes: Buffer): Promise<PreparedDesign> {
  const prepared = await prepareDesignLevels(bytes, await uprightSize(bytes, LIMIT), LIMIT);
  assert.ok(prepared, 'the design is large enough for prepared levels');
  return prepared;
}

describe('design levels', () => {
  let png: Buffer;
  before(async () => {
    png = await detailedDesign();
  });
  afterEach(() => configureDesignCache({ clear: true }));

  it('chooses the deepest level still at least the placed size, and the levels to prepare by long side', () => {
    const src = { width: 2400, height: 3000 };
    assert.deepEqual(levelSize(src, 1), { width: 1200, height: 1500 });
    assert.deepEqual(levelSize({ width: 1001, height: 999 }, 1), { width: 501, height: 500 });
    assert.equal(levelFor(src, { width: 1200, height: 1500 }), 1);
    assert.equal(levelFor(src, { width: 1201, height: 1501 }), 0);
    assert.equal(levelFor(src, { width: 600, height: 750 }), 2);
    assert.equal(levelFor(src, { width: 560, height: 700 }), 2);
    assert.equal(levelFor(src, { width: 3000, height: 3750 }), 0); // enlarging: from the design itself
    assert.deepEqual(fitInside(src, 700, 900), { width: 700, height: 875 });
    assert.deepEqual(preparedLevelsFor(src), [1, 2]); // 1200x1500, 600x750
    assert.deepEqual(preparedLevelsFor({ width: 1000, height: 800 }), [1]); // 500x400
    assert.deepEqual(preparedLevelsFor({ width: 600, height: 600 }), []);
    assert.deepEqual(preparedLevelsFor({ width: 6000, height: 4000 }), [2, 3]); // 1500x1000, 750x500
  });

  it('stores prepared levels with their sizes and reads them back without decoding; refuses anything else', async () => {
    const p = await prepare(png);
    assert.deepEqual([...p.levels.keys()], [1, 2]);
    const buf = encodePrepared(p);
    const back = decodePrepared(buf)!;
    assert.deepEqual(back.src, { width: 1600, height: 2000 });
    for (const [k, l] of p.levels) {
      const b = back.levels.get(k)!;
      assert.deepEqual([b.width, b.height], [l.width, l.height]);
      assert.ok(b.data.equals(l.data));
    }
    assert.deepEqual([back.levels.get(1)!.width, back.levels.get(1)!.height], [800, 1000]);
    assert.equal(decodePrepared(png), null);
    assert.equal(decodePrepared(buf.subarray(0, 1000)), null);
    assert.equal(decodePrepared(Buffer.concat([buf, Buffer.alloc(4)])), null);
  });

  it('knows the size of the prepared levels file from the dimensions alone (what an upload reserves)', () => {
    const fake = (src: { width: number; height: number }) =>
      encodePrepared({
        src,
        levels: new Map(
          preparedLevelsFor(src).map((k) => {
            const s = levelSize(src, k);
            return [k, { ...s, data: Buffer.alloc(s.width * s.height * 4) }];
          }),
        ),
      }).length;
    for (const src of [
      { width: 2400, height: 3000 },
      { width: 3000, height: 2400 },
      { width: 1601, height: 999 },
      { width: 1000, height: 800 },
      { width: 6000, height: 4000 },
      { width: 16384, height: 2441 },
    ])
      assert.equal(preparedBytes(src), fake(src), `${src.width}x${src.height}`);
    assert.equal(preparedBytes({ width: 2400, height: 3000 }), 17 + 18 + 1200 * 1500 * 4 + 600 * 750 * 4);
    assert.equal(preparedBytes({ width: 600, height: 600 }), 0);
  });

  for (const [label, boxW, boxH, fromOriginal] of [
    ['level 1 (placed 700 px tall)', 560, 700, false],
    ['level 2 (placed 400 px tall)', 320, 400, false],
    ['level 3, not prepared (placed 200 px tall)', 160, 200, true],
    ['larger than level 1 (placed 1750 px tall)', 1400, 1750, true],
  ] as const) {
    it(`gives the same pixels from the bytes, from the prepared levels and from the cache: ${label}`, async () => {
      const fromBytes = await placeDesign(png, boxW, boxH, false);
      const prepared = await prepare(png);
      let loads = 0;
      const source: DesignSource = {
        id: `file:uploads/${boxW}.png`,
        load: async () => {
          loads++;
          return png;
        },
        loadPrepared: async () => prepared,
      };
      const viaPrepared = await placeDesign(source, boxW, boxH);
      assert.equal(viaPrepared.width, fromBytes.width);
      assert.equal(viaPrepared.height, fromBytes.height);
      assert.ok(viaPrepared.data.equals(fromBytes.data), 'prepared path differs from decoding the bytes');
      // only a placement no prepared level serves reads the original
      assert.equal(loads, fromOriginal ? 1 : 0);
      // a new size of the same design in the same level, from the cache: no read, same pixels as from the bytes
      const source2 = { ...source, loadPrepared: async () => assert.fail('prepared levels read twice') };
      const again = await placeDesign(source2, boxW - 6, boxH - 6);
      const againFromBytes = await placeDesign(png, boxW - 6, boxH - 6, false);
      assert.ok(again.data.equals(againFromBytes.data), 'cached level path differs from decoding the bytes');
      assert.equal(loads, fromOriginal ? (boxH > 1000 ? 2 : 1) : 0);
    });
  }

  it('without a prepared level decodes the bytes once for many sizes (a batch of sizes shares one decode)', async () => {
    let loads = 0;
    const source: DesignSource = {
      id: 'file:uploads/y.png',
      load: async () => {
        loads++;
        return png;
      },
      loadPrepared: async () => null,
    };
    const placed = await Promise.all([560, 570, 580, 590].map((w) => placeDesign(source, w, w * 1.25)));
    assert.equal(loads, 1);
    assert.deepEqual(
      placed.map((p) => p.width),
      [560, 570, 580, 590],
    );
  });

  it('refuses a fully transparent design on every path', async () => {
    const clear = await sharp({
      create: { width: 1600, height: 2000, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } },
    })
      .png()
      .toBuffer();
    await assert.rejects(placeDesign(clear, 500, 500, false), DesignImageError);
    const prepared = await prepare(clear);
    assert.ok(prepared.levels.size > 0);
    await assert.rejects(
      placeDesign(
        { id: 'file:uploads/clear.png', load: async () => clear, loadPrepared: async () => prepared },
        500,
        500,
      ),
      DesignImageError,
    );
  });

  it('honors EXIF orientation in the level and the prepared sizes', async () => {
    const rotated = await sharp(await detailedDesign(400, 200))
      .withMetadata({ orientation: 6 })
      .jpeg()
      .toBuffer();
    const src = await uprightSize(rotated, LIMIT);
    assert.deepEqual(src, { width: 200, height: 400 });
    const placed = await placeDesign(rotated, 100, 100, false);
    assert.deepEqual([placed.width, placed.height], [50, 100]);
  });
});
