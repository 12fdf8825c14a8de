// Re-encoding only the changed MCU rows of a JPEG (lib/compositing/jpeg-rows.ts, issue 32's render speed): the
// baseline's JPEG with a band of rows encoded alone spliced into it must be sharp's JPEG of the whole image, byte for
// byte, for any image, changed rectangles and quality; where it cannot be spliced the engine answers null (the caller
// encodes the whole image). Through the template render: the mockup JPEG is the full encode of the RGB it rendered.
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { outputPool } from '../../lib/compositing/config';
import { decodeScan, encodeRows, parse, prepareRows, rowsFor, type Rect } from '../../lib/compositing/jpeg-rows';
import { templateMockup } from '../../lib/template-import/render';
import { parseTemplate, prepareTemplate, type PreparedTemplate } from '../../lib/templates';
import { mockupPsd } from '../helpers/psd';
import { benchKindTemplate, testDesign } from '../helpers/template-psd';

/** The render's encoder settings (lib/template-import/render.ts), at quality `q`. */
const encoder = (q: number) => (rgb: Buffer, width: number, height: number) =>
  sharp(rgb, { raw: { width, height, channels: 3 } })
    .jpeg({ quality: q, mozjpeg: false, optimizeCoding: false, chromaSubsampling: '4:2:0' })
    .toBuffer();

type Kind = 'noise' | 'flat' | 'gradient' | 'mixed';
/** Deterministic pixels of a kind (a seeded LCG for noise). */
function paint(
  buf: Buffer,
  W: number,
  kind: Kind,
  seed: number,
  r: Rect = { x: 0, y: 0, w: W, h: buf.length / W / 3 },
) {
  let s = seed >>> 0 || 1;
  const rnd = () => ((s = (Math.imul(s, 1103515245) + 12345) >>> 0) >>> 16) & 255;
  for (let y = r.y; y < r.y + r.h; y++)
    for (let x = r.x; x < r.x + r.w; x++)
      for (let c = 0; c < 3; c++) {
        const v =
          kind === 'noise'
            ? rnd()
            : kind === 'flat'
              ? (seed * (c + 1)) & 255
              : kind === 'gradient'
                ? (x * (c + 1) + y * 2 + seed) & 255
                : (x >> 3) % 2 === 0
                  ? rnd()
                  : (y * 3 + c * 40) & 255;
        buf[(y * W + x) * 3 + c] = v;
      }
}

const kind = fc.constantFrom<Kind>('noise', 'flat', 'gradient', 'mixed');
/** A fraction in [0, 1] (fc.double draws over its bits: mostly tiny values). */
const unit = fc.integer({ min: 0, max: 1 << 20 }).map((n) => n / (1 << 20));
// without fast-check's bias to the bounds (a rectangle at y = 0 would leave the DC fix untested)
const scene = fc
  .noBias(
    fc.record({
      W: fc.integer({ min: 48, max: 420 }),
      H: fc.integer({ min: 48, max: 300 }),
      q: fc.integer({ min: 20, max: 100 }),
      base: kind,
      fill: kind,
      seed: fc.nat(),
      rects: fc.array(fc.tuple(unit, unit, unit, unit), { minLength: 0, maxLength: 3 }),
      inner: fc.boolean(),
    }),
  )
  .map((s) => {
    // inner: rectangles away from the first and last MCU column and the last two MCU rows (spliceable)
    const [x0, x1, y1] = s.inner ? [16, Math.ceil(s.W / 16) * 16 - 16, Math.floor(s.H / 16) * 16 - 16] : [0, s.W, s.H];
    const rects: Rect[] = s.rects.map(([a, b, c, d]) => {
      const x = x0 + Math.floor(a * (x1 - x0 - 1));
      const y = Math.floor(b * (y1 - 1));
      return { x, y, w: 1 + Math.floor(c * (x1 - x - 1)), h: 1 + Math.floor(d * (y1 - y - 1)) };
    });
    return { ...s, rects };
  });

/** The baseline, the image changed inside `rects`, the full JPEG and the spliced one (null: not spliced). */
async function both(s: { W: number; H: number; q: number; base: Kind; fill: Kind; seed: number; rects: Rect[] }) {
  const enc = encoder(s.q);
  const base = Buffer.alloc(s.W * s.H * 3);
  paint(base, s.W, s.base, s.seed);
  const rows = prepareRows(await enc(base, s.W, s.H), s.W, s.H);
  const img = Buffer.from(base);
  s.rects.forEach((r, i) => paint(img, s.W, s.fill, s.seed + i + 1, r));
  const full = await enc(img, s.W, s.H);
  return { rows, full, spliced: rows && (await encodeRows(rows, img, s.rects, enc)) };
}

describe('compositing: JPEG rows spliced into the baseline’s JPEG', function () {
  this.timeout(300_000);

  it('a band of MCU rows encoded alone has the full image’s coefficients (sharp’s encoder)', async () => {
    const W = 203;
    const H = 165;
    const img = Buffer.alloc(W * H * 3);
    paint(img, W, 'mixed', 5);
    const enc = encoder(88);
    const coefs = (j: Buffer) => {
      const p = parse(j)!;
      const mcus: number[][] = [];
      const n = decodeScan(
        p.bits,
        p.tables,
        Math.ceil(p.width / 16) * Math.ceil(p.height / 16),
        () => mcus.push([]),
        () => {},
        (c, z, v) => mcus.at(-1)!.push(c, z, v),
      );
      assert.ok(n > 0);
      return mcus;
    };
    const full = coefs(await enc(img, W, H));
    const band = coefs(await enc(img.subarray(3 * 16 * W * 3, 8 * 16 * W * 3), W, 80));
    assert.equal(band.length, 13 * 5);
    assert.deepEqual(band, full.slice(13 * 3, 13 * 8));
  });

  it('equals sharp’s full encode byte for byte (random images, rectangles, qualities)', async () => {
    let spliceable = 0;
    let spliced = 0;
    let below = 0; // spliced bands that start below the first row (their first MCU's predictor fixed)
    await fc.assert(
      fc.asyncProperty(scene, async (s) => {
        const { rows, full, spliced: sp } = await both(s);
        if (!rows) return;
        if (sp) assert.ok(sp.equals(full), `spliced ${sp.length} B, full ${full.length} B`);
        const band = rowsFor(rows, s.rects);
        if (band) spliceable++;
        if (sp) spliced++;
        if (sp && band![0] > 0) below++;
      }),
      { numRuns: 150 },
    );
    // the property is not vacuous: the spliceable cases did splice (the end is found exactly once)
    assert.ok(spliceable >= 40, `${spliceable} spliceable`);
    assert.ok(spliced >= spliceable * 0.95, `${spliced} of ${spliceable} spliced`);
    assert.ok(below >= 20, `${below} below the first row`);
  });

  it('answers null where it cannot splice: the first or last MCU column, the last rows, other tables, small', async () => {
    const s = { W: 200, H: 170, q: 75, base: 'noise' as Kind, fill: 'gradient' as Kind, seed: 3 };
    // 13 MCU columns (the last 8 px wide), 11 MCU rows (the last 10 px high)
    const cases: [Rect[], boolean][] = [
      [[{ x: 16, y: 20, w: 160, h: 40 }], true],
      [[{ x: 15, y: 20, w: 40, h: 40 }], false], // the first column
      [[{ x: 100, y: 20, w: 93, h: 40 }], false], // the last column
      [[{ x: 40, y: 100, w: 40, h: 44 }], true], // rows 6-8, row 9 untouched below
      [[{ x: 40, y: 100, w: 40, h: 45 }], false], // touches row 9: the row below is the last, partial one
      [[{ x: 40, y: 0, w: 40, h: 1 }], true], // the first row
      [[], true],
    ];
    for (const [rects, ok] of cases) {
      const { full, spliced } = await both({ ...s, rects });
      assert.equal(spliced !== null, ok, JSON.stringify(rects));
      if (spliced) assert.ok(spliced.equals(full), JSON.stringify(rects));
    }
    // a band from another quality (other tables): refused
    const base = Buffer.alloc(s.W * s.H * 3);
    paint(base, s.W, 'noise', 3);
    const rows = prepareRows(await encoder(75)(base, s.W, s.H), s.W, s.H)!;
    assert.equal(await encodeRows(rows, base, [{ x: 20, y: 20, w: 20, h: 20 }], encoder(76)), null);
    // too few MCU rows, another size, not a JPEG of this kind
    assert.equal(prepareRows(await encoder(75)(base.subarray(0, s.W * 32 * 3), s.W, 32), s.W, 32), null);
    assert.equal(prepareRows(await encoder(75)(base, s.W, s.H), s.W, s.H + 1), null);
    const yuv444 = await sharp(base, { raw: { width: s.W, height: s.H, channels: 3 } })
      .jpeg({ quality: 75, chromaSubsampling: '4:4:4' })
      .toBuffer();
    assert.equal(prepareRows(yuv444, s.W, s.H), null);
  });

  describe('through the template render', () => {
    /** The RGB a render composed (copied as it goes back to the pool) and its JPEG. */
    async function render(
      p: PreparedTemplate,
      maxSide?: number,
      placement = { x: 50, y: 50, scale: 1, rotation: 0 },
      every = false,
    ) {
      const give = outputPool.give.bind(outputPool);
      let rgb: Buffer | null = null;
      outputPool.give = (b: Buffer) => {
        rgb = Buffer.from(b.subarray(0, p.width * p.height * 3));
        give(b);
      };
      try {
        const d = testDesign(500, 420);
        const png = await sharp(d.data, { raw: { width: d.width, height: d.height, channels: 4 } })
          .png()
          .toBuffer();
        const source = { id: `uploads/jpeg-rows-${p.width}.png`, load: async () => png };
        const designs = (every ? p.smartObjects : p.smartObjects.slice(0, 1)).map((so) => ({
          smartObjectId: so.id,
          source,
          placement,
        }));
        const r = await templateMockup(p, designs, { displace: 'auto', maxSide });
        return { ...r, rgb: rgb! };
      } finally {
        outputPool.give = give;
      }
    }

    it('Photoshop files (a design in every smart object, perspective, warps, 11 smart objects): the full encode', async () => {
      // frames inside the image on these three, so a pixel changed outside the frames the render names would show
      const FIX = path.join(__dirname, '../fixtures/templates');
      for (const file of [
        'perspective-ag-psd-placed-transform.psd',
        'warp-custom-photoshopapi-smart-objects-transformed.psd',
        'warp-cylinder-ag-psd.psd',
      ]) {
        const p = prepareTemplate(parseTemplate(readFileSync(path.join(FIX, file))));
        for (const placement of [
          { x: 50, y: 50, scale: 1, rotation: 0 },
          { x: 30, y: 70, scale: 0.6, rotation: 30 },
        ]) {
          const r = await render(p, undefined, placement, true);
          assert.ok(r.mockup.equals(await encoder(88)(r.rgb, p.width, p.height)), `${file} ${placement.rotation}`);
        }
      }
    });

    it('the mockup JPEG is the full encode of the rendered RGB, spliced or not', async () => {
      // the frame inside the image: spliced; a frame over the whole width: the full encode
      const inner = benchKindTemplate();
      const edge = prepareTemplate(
        parseTemplate(mockupPsd({ width: 400, height: 300, quad: [0, 20, 400, 20, 400, 250, 0, 250] })),
      );
      for (const p of [inner, edge, inner]) {
        const r = await render(p);
        assert.ok(r.mockup.equals(await encoder(88)(r.rgb, p.width, p.height)), `${p.width}x${p.height}`);
      }
      // resized by maxSide: the full encode, resized
      const r = await render(inner, 350);
      const resized = await sharp(r.rgb, { raw: { width: inner.width, height: inner.height, channels: 3 } })
        .resize(r.width, r.height, { fit: 'fill' })
        .jpeg({ quality: 88, mozjpeg: false, optimizeCoding: false, chromaSubsampling: '4:2:0' })
        .toBuffer();
      assert.ok(r.mockup.equals(resized));
    });
  });
});
