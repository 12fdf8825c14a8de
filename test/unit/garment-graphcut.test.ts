// The seeded path's graph cut (lib/compositing/maxflow.ts, garment-graphcut.ts, garment-seeded.ts, issue 38): the
// max-flow finds the minimum cut (checked against every labelling of small grids), and a plain tee on a backdrop that
// shares its colour in places (a white tee on a light striped sheet) or whose own colour varies across it (a pink tee
// half in shadow on a floor of a near colour) is found with its own outline and gets its print on its chest, where
// seeding by colour alone ran into the backdrop or lost the shaded half.
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { choosePrintZone, detectGarmentInImage, referenceLandmarks } from '../../lib/compositing';
import { minCut } from '../../lib/compositing/maxflow';
import { zonesFor } from '../../lib/blanks';
import { framedPhoto, ownBlank } from '../helpers/customer-photos';

describe('minimum cut on a pixel grid (Boykov-Kolmogorov)', () => {
  /** The cost of a labelling: terminal edges cut plus the neighbour edges from the source side to the sink side. */
  const cost = (w: number, h: number, src: number[], snk: number[], edges: Int32Array, lab: Uint8Array) => {
    let c = 0;
    for (let i = 0; i < w * h; i++) {
      c += lab[i] ? snk[i]! : src[i]!;
      const x = i % w;
      const nbs = [x > 0 ? i - 1 : -1, x < w - 1 ? i + 1 : -1, i >= w ? i - w : -1, i < w * h - w ? i + w : -1];
      nbs.forEach((j, d) => {
        if (j >= 0 && lab[i] && !lab[j]) c += edges[i * 4 + d]!;
      });
    }
    return c;
  };

  it('the cut it returns costs what the cheapest of all labellings costs (200 random 3x4 grids)', () => {
    let s = 12345;
    const rnd = (k: number) => ((s = (Math.imul(s, 1103515245) + 12345) >>> 0) >>> 8) % k;
    for (let t = 0; t < 200; t++) {
      const w = 3;
      const h = 4;
      const n = w * h;
      const src = Array.from({ length: n }, () => (rnd(3) ? rnd(20) : 0));
      const snk = Array.from({ length: n }, () => (rnd(3) ? rnd(20) : 0));
      const edges = new Int32Array(n * 4);
      for (let i = 0; i < n; i++)
        for (let d = 0; d < 4; d++) {
          const x = i % w;
          const ok = d === 0 ? x > 0 : d === 1 ? x < w - 1 : d === 2 ? i >= w : i < n - w;
          if (ok) edges[i * 4 + d] = rnd(12);
        }
      let best = Infinity;
      const lab = new Uint8Array(n);
      for (let m = 0; m < 1 << n; m++) {
        for (let i = 0; i < n; i++) lab[i] = (m >> i) & 1;
        best = Math.min(best, cost(w, h, src, snk, edges, lab));
      }
      const terminal = Int32Array.from(src, (v, i) => v - snk[i]!);
      const got = minCut({ width: w, height: h, terminal, edges: Int32Array.from(edges) });
      assert.equal(cost(w, h, src, snk, edges, got), best, `grid ${t}`);
    }
  });
});

describe('the seeded path: a plain tee on a backdrop that shares its colour', function () {
  this.timeout(120_000);
  const W = 900;
  const H = 1100;
  const zone = zonesFor('tee').front!.rect;

  /** A backdrop of W x H pixels, each pixel's colour from `at(x, y)`. */
  const backdrop = (at: (x: number, y: number) => [number, number, number]) => {
    const data = Buffer.alloc(W * H * 3);
    for (let y = 0; y < H; y++)
      for (let x = 0; x < W; x++) {
        const c = at(x, y);
        data.set(
          c.map((v) => Math.max(0, Math.min(255, Math.round(v)))),
          (y * W + x) * 3,
        );
      }
    return data;
  };

  /** Our tees cut out (700 px), placed at (left, top) on the backdrop, shaded by `shade(x, y)` (a factor), as a JPEG. */
  const photoOf = async (
    tees: { hex: string; left: number; top: number }[],
    bg: Buffer,
    shade: (x: number, y: number) => number,
  ) => {
    const layers: sharp.OverlayOptions[] = [];
    for (const t of tees) {
      const blank = await ownBlank('tee', 'front', t.hex, 1000);
      const cut = await framedPhoto(blank, {
        width: 700,
        height: 700,
        scale: 0.7,
        left: 0,
        top: 0,
        backdrop: 'transparent',
      });
      layers.push({ input: cut.image, left: t.left, top: t.top });
    }
    const { data } = await sharp(bg, { raw: { width: W, height: H, channels: 3 } })
      .composite(layers)
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    for (let y = 0; y < H; y++)
      for (let x = 0; x < W; x++) {
        const k = shade(x, y);
        for (let c = 0; c < 3; c++) data[(y * W + x) * 3 + c] = Math.round(data[(y * W + x) * 3 + c]! * k);
      }
    return sharp(data, { raw: { width: W, height: H, channels: 3 } })
      .jpeg({ quality: 85 })
      .toBuffer();
  };
  /** One tee in the middle of the backdrop. */
  const photo = async (hex: string, bg: Buffer, shade: (x: number, y: number) => number) => ({
    jpeg: await photoOf([{ hex, left: 100, top: 200 }], bg, shade),
    left: 100,
    top: 200,
    side: 700,
  });

  /** The print centre's distance from where it lands on the tee, in tee widths, and the detection's source. */
  const printError = async (p: Awaited<ReturnType<typeof photo>>) => {
    const found = await detectGarmentInImage(p.jpeg);
    const chosen = await choosePrintZone({
      blank: { width: W, height: H, garment: found },
      zone,
      silhouette: 'tee',
      view: 'front',
    });
    assert.equal(chosen.basis, 'garment', JSON.stringify(chosen.warning ?? found));
    const ref = await referenceLandmarks('tee', 'front');
    const want = { x: (zone.x + zone.width / 2) * p.side + p.left, y: (zone.y + 0.35 * zone.height) * p.side + p.top };
    const got = { x: (chosen.zone.x + chosen.zone.width / 2) * W, y: (chosen.zone.y + 0.35 * chosen.zone.height) * H };
    return {
      err: Math.hypot(got.x - want.x, got.y - want.y) / (ref.box.width * p.side),
      source: found.found ? found.source : found.reason,
    };
  };

  it('a white tee on a light blue-grey sheet with white stripes: not run into the stripes, print on the chest', async () => {
    // diagonal stripes 26 px wide, alternately white (the tee's colour) and a pale blue-grey, with a thin darker line
    const bg = backdrop((x, y) => {
      const u = (x + 0.6 * y) % 52;
      if (u < 3) return [150, 160, 178];
      return u < 26 ? [246, 246, 243] : [200, 210, 226];
    });
    const p = await photo('#FFFFFF', bg, () => 1);
    const { err, source } = await printError(p);
    assert.equal(source, 'seeded');
    assert.ok(err <= 0.05, `print centre ${(err * 100).toFixed(1)} % of the tee's width off`);
  });

  it('a pink tee, its left half in shadow, on a rose wooden floor: the shaded half kept, print on the chest', async () => {
    // planks 60 px high of a rose-brown, with grain
    const bg = backdrop((x, y) => {
      const plank = Math.floor(y / 60);
      const g = 14 * Math.sin(x / 9 + plank * 2.1) + 8 * Math.sin(x / 3.1 + plank);
      return [200 + g, 128 + g, 122 + g];
    });
    // a window's light: the left of the photo in shadow (x 0.55), brightening to full over the middle
    const p = await photo('#E8708A', bg, (x) => 0.55 + 0.45 * Math.min(1, Math.max(0, (x - 250) / 300)));
    const { err, source } = await printError(p);
    assert.equal(source, 'seeded');
    assert.ok(err <= 0.05, `print centre ${(err * 100).toFixed(1)} % of the tee's width off`);
  });

  it('two tees over each other on a rose wooden floor: no region of a tee\u2019s shape, garment_not_found, never a print across the two', async () => {
    const bg = backdrop((x, y) => {
      const plank = Math.floor(y / 60);
      const g = 14 * Math.sin(x / 9 + plank * 2.1) + 8 * Math.sin(x / 3.1 + plank);
      return [200 + g, 128 + g, 122 + g];
    });
    const jpeg = await photoOf(
      [
        { hex: '#1F2A44', left: -120, top: 150 },
        { hex: '#1F2A44', left: 300, top: 260 },
      ],
      bg,
      () => 1,
    );
    const found = await detectGarmentInImage(jpeg);
    const chosen = await choosePrintZone({
      blank: { width: W, height: H, garment: found },
      zone,
      silhouette: 'tee',
      view: 'front',
    });
    assert.equal(chosen.basis, 'image', JSON.stringify(found.found ? found.source : found.reason));
    assert.equal(chosen.warning?.code, 'garment_not_found');
  });
});
