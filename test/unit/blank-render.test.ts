import assert from 'node:assert/strict';
import sharp from 'sharp';
import {
  BLANK_SIZE,
  RENDER_VERSION,
  SILHOUETTES,
  clearBlankCache,
  garmentMask,
  pixelsPerInch,
  renderBlank,
  zonesFor,
  type Silhouette,
  type ZoneId,
} from '../../lib/blanks/index';
import { POCKET_TOP, geometry } from '../../lib/blanks/silhouettes';

const CHEST_SILHOUETTES: Silhouette[] = ['tee', 'longsleeve', 'polo', 'crewneck', 'hoodie'];

async function rawRgb(jpeg: Buffer): Promise<{ data: Buffer; width: number; height: number }> {
  const { data, info } = await sharp(jpeg).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  assert.equal(info.channels, 3);
  return { data, width: info.width, height: info.height };
}

function rectPixels(rect: { x: number; y: number; width: number; height: number }, size: number) {
  return {
    x0: Math.floor(rect.x * size),
    y0: Math.floor(rect.y * size),
    x1: Math.ceil((rect.x + rect.width) * size),
    y1: Math.ceil((rect.y + rect.height) * size),
  };
}

const lum = (r: number, g: number, b: number) => 0.2126 * r + 0.7152 * g + 0.0722 * b;

function hue(r: number, g: number, b: number): { h: number; s: number } {
  const max = Math.max(r, g, b);
  const min = Math.min(r, g, b);
  const d = max - min;
  if (d === 0) return { h: 0, s: 0 };
  let h: number;
  if (max === r) h = ((g - b) / d) % 6;
  else if (max === g) h = (b - r) / d + 2;
  else h = (r - g) / d + 4;
  return { h: (h * 60 + 360) % 360, s: d / max };
}

describe('blank garment renderer', function () {
  this.timeout(60000);

  it('exposes the contract constants', () => {
    assert.equal(BLANK_SIZE, 2000);
    assert.equal(typeof RENDER_VERSION, 'string');
    assert.ok(RENDER_VERSION.length > 0);
  });

  it('renders a 2000x2000 JPEG and a 400x400 JPEG thumbnail', async () => {
    const r = await renderBlank({ silhouette: 'tee', view: 'front', colorHex: '#ffffff' });
    const meta = await sharp(r.image).metadata();
    assert.equal(meta.format, 'jpeg');
    assert.equal(meta.width, 2000);
    assert.equal(meta.height, 2000);
    assert.equal(meta.channels, 3);
    const tmeta = await sharp(r.thumbnail).metadata();
    assert.equal(tmeta.format, 'jpeg');
    assert.equal(tmeta.width, 400);
    assert.equal(tmeta.height, 400);
  });

  it('is deterministic (same bytes, also after the template cache is dropped)', async () => {
    const opts = { silhouette: 'hoodie' as const, view: 'back' as const, colorHex: '#1f2a44', size: 600 };
    const a = await renderBlank(opts);
    const b = await renderBlank(opts);
    clearBlankCache();
    const c = await renderBlank(opts);
    assert.ok(a.image.equals(b.image));
    assert.ok(a.image.equals(c.image));
    assert.ok(a.thumbnail.equals(c.thumbnail));
    const ma = await garmentMask('hoodie', 'back', 300);
    clearBlankCache();
    const mb = await garmentMask('hoodie', 'back', 300);
    assert.ok(ma.data.equals(mb.data));
  });

  it('rejects malformed colors', async () => {
    await assert.rejects(renderBlank({ silhouette: 'tee', view: 'front', colorHex: 'red' }));
    await assert.rejects(renderBlank({ silhouette: 'tee', view: 'front', colorHex: '#12345' }));
  });

  it('returns a single-channel garment mask', async () => {
    const m = await garmentMask('tee', 'front', 500);
    assert.equal(m.width, 500);
    assert.equal(m.height, 500);
    assert.equal(m.data.length, 500 * 500);
    assert.equal(m.data[0], 0, 'corner is background');
    assert.equal(m.data[250 * 500 + 250], 255, 'center is garment');
  });

  describe('print zones', () => {
    for (const s of SILHOUETTES) {
      it(`${s}: zones have the expected ids, physical size and lie inside the garment mask`, async () => {
        const zones = zonesFor(s);
        const ids = Object.keys(zones).sort();
        const expected: ZoneId[] = CHEST_SILHOUETTES.includes(s)
          ? ['back', 'front', 'left-chest', 'right-chest']
          : ['back', 'front'];
        assert.deepEqual(ids, [...expected].sort());
        assert.equal(zones.front!.view, 'front');
        assert.equal(zones.back!.view, 'back');

        const ppi = pixelsPerInch(s);
        assert.ok(ppi > 20 && ppi < 80, `plausible ppi ${ppi}`);
        const size = 500;
        for (const [id, z] of Object.entries(zones)) {
          const { rect } = z!;
          // physical size: rect == inches * ppi / BLANK_SIZE (within 1%)
          const w = (z!.maxWidthIn * ppi) / BLANK_SIZE;
          const h = (z!.maxHeightIn * ppi) / BLANK_SIZE;
          assert.ok(Math.abs(rect.width - w) / w < 0.01, `${s}/${id} width ${rect.width} vs ${w}`);
          assert.ok(Math.abs(rect.height - h) / h < 0.01, `${s}/${id} height ${rect.height} vs ${h}`);
          // inside the image
          assert.ok(
            rect.x >= 0 && rect.y >= 0 && rect.x + rect.width <= 1 && rect.y + rect.height <= 1,
            `${s}/${id} inside image`,
          );
          // every mask pixel within the rect is garment
          const mask = await garmentMask(s, z!.view, size);
          const p = rectPixels(rect, size);
          let outside = 0;
          for (let y = p.y0; y < p.y1; y++) {
            for (let x = p.x0; x < p.x1; x++) if (mask.data[y * size + x]! < 250) outside++;
          }
          assert.equal(outside, 0, `${s}/${id}: ${outside} background pixels inside the zone`);
        }

        if (zones['left-chest']) {
          const l = zones['left-chest'].rect;
          const r = zones['right-chest']!.rect;
          const f = zones.front!.rect;
          // wearer's left chest is on the RIGHT of a front-view image
          assert.ok(l.x > 0.5, `${s} left-chest on image right`);
          assert.ok(r.x + r.width < 0.5, `${s} right-chest on image left`);
          // mirror images of each other, in the upper part of the torso
          assert.ok(Math.abs(l.x + l.width / 2 - 0.5 - (0.5 - (r.x + r.width / 2))) < 1e-9);
          assert.ok(l.y + l.height / 2 < f.y + f.height / 2, `${s} chest zone sits high on the chest`);
        }
      });
    }

    it('hoodie front zone sits between the hood and the kangaroo pocket', () => {
      const g = geometry('hoodie', 'front');
      const z = zonesFor('hoodie').front!.rect;
      const pocketTopY = (g.originY + POCKET_TOP * g.ppi) / BLANK_SIZE;
      assert.ok(
        z.y + z.height < pocketTopY,
        `zone bottom ${(z.y + z.height).toFixed(4)} above pocket ${pocketTopY.toFixed(4)}`,
      );
      assert.equal(zonesFor('hoodie').front!.maxHeightIn, 10);
    });

    it('polo front zone starts below the placket', () => {
      const g = geometry('polo', 'front');
      const placket = g.parts.find((p) => p.name === 'placket')!;
      const bottom = Math.max(...placket.shapes.flatMap((c) => c.segs.map((s) => s[2][1])));
      const z = zonesFor('polo').front!.rect;
      assert.ok(z.y > (g.originY + bottom * g.ppi) / BLANK_SIZE);
      // chest zones clear the placket (center strip) on both sides
      const l = zonesFor('polo')['left-chest']!.rect;
      const r = zonesFor('polo')['right-chest']!.rect;
      const placketHalf = (Math.max(...placket.shapes.flatMap((c) => c.segs.map((s) => s[2][0]))) * g.ppi) / BLANK_SIZE;
      assert.ok(l.x > 0.5 + placketHalf && r.x + r.width < 0.5 - placketHalf);
    });
  });

  describe('color', () => {
    it('a dark garment still shows folds and highlights, with a mean near its color', async () => {
      const r = await renderBlank({ silhouette: 'tee', view: 'front', colorHex: '#111111' });
      const img = await rawRgb(r.image);
      const p = rectPixels(zonesFor('tee').front!.rect, img.width);
      let n = 0;
      let sum = 0;
      let sum2 = 0;
      for (let y = p.y0; y < p.y1; y++) {
        for (let x = p.x0; x < p.x1; x++) {
          const o = (y * img.width + x) * 3;
          const l = lum(img.data[o]!, img.data[o + 1]!, img.data[o + 2]!);
          n++;
          sum += l;
          sum2 += l * l;
        }
      }
      const mean = sum / n;
      const sd = Math.sqrt(sum2 / n - mean * mean);
      assert.ok(Math.abs(mean - 0x11) < 25, `mean ${mean.toFixed(1)} near #11`);
      assert.ok(sd > 1.8, `visible variation, sd ${sd.toFixed(2)}`);

      // and over the whole garment there is real shading (folds, sides, seams)
      const mask = await garmentMask('tee', 'front', img.width);
      let gn = 0;
      let lo = 255;
      let hi = 0;
      const hist = new Uint32Array(256);
      for (let i = 0; i < mask.data.length; i += 7) {
        if (mask.data[i] !== 255) continue;
        const l = Math.round(lum(img.data[i * 3]!, img.data[i * 3 + 1]!, img.data[i * 3 + 2]!));
        hist[l]!++;
        gn++;
      }
      let acc = 0;
      for (let v = 0; v < 256; v++) {
        acc += hist[v]!;
        if (lo === 255 && acc > gn * 0.02) lo = v;
        if (acc > gn * 0.98) {
          hi = v;
          break;
        }
      }
      assert.ok(hi - lo >= 10, `2%..98% luminance spread ${lo}..${hi}`);
    });

    it('a white garment is not blown out', async () => {
      const r = await renderBlank({ silhouette: 'tee', view: 'front', colorHex: '#ffffff' });
      const img = await rawRgb(r.image);
      const p = rectPixels(zonesFor('tee').front!.rect, img.width);
      let clipped = 0;
      let n = 0;
      for (let y = p.y0; y < p.y1; y += 2) {
        for (let x = p.x0; x < p.x1; x += 2) {
          const o = (y * img.width + x) * 3;
          if (img.data[o]! >= 254 && img.data[o + 1]! >= 254 && img.data[o + 2]! >= 254) clipped++;
          n++;
        }
      }
      assert.ok(clipped / n < 0.01, `clipped fraction ${(clipped / n).toFixed(3)}`);
    });

    it('the background corner is the light studio color', async () => {
      const r = await renderBlank({ silhouette: 'tee', view: 'front', colorHex: '#c0392b' });
      const img = await rawRgb(r.image);
      for (const [x, y] of [
        [2, 2],
        [img.width - 3, 2],
        [2, img.height - 3],
        [img.width - 3, img.height - 3],
      ] as const) {
        const o = (y * img.width + x) * 3;
        const [R, G, B] = [img.data[o]!, img.data[o + 1]!, img.data[o + 2]!];
        for (const [v, t] of [
          [R, 0xf2],
          [G, 0xf2],
          [B, 0xf0],
        ] as const) {
          assert.ok(Math.abs(v - t) <= 16, `corner ${x},${y} = ${R},${G},${B}`);
        }
        assert.ok(Math.abs(R - G) <= 3 && Math.abs(G - B) <= 5, `corner is neutral: ${R},${G},${B}`);
      }
    });

    it('garment pixels near the zone center match the requested hue', async () => {
      for (const [hex, s] of [
        ['#c0392b', 'tee'],
        ['#1f2a44', 'hoodie'],
        ['#2e8b57', 'polo'],
      ] as const) {
        const r = await renderBlank({ silhouette: s, view: 'front', colorHex: hex, size: 1000 });
        const img = await rawRgb(r.image);
        const rect = zonesFor(s).front!.rect;
        const cx = Math.round((rect.x + rect.width / 2) * img.width);
        const cy = Math.round((rect.y + rect.height / 2) * img.height);
        let R = 0;
        let G = 0;
        let B = 0;
        let n = 0;
        for (let y = cy - 10; y <= cy + 10; y++) {
          for (let x = cx - 10; x <= cx + 10; x++) {
            const o = (y * img.width + x) * 3;
            R += img.data[o]!;
            G += img.data[o + 1]!;
            B += img.data[o + 2]!;
            n++;
          }
        }
        const got = hue(R / n, G / n, B / n);
        const n2 = parseInt(hex.slice(1), 16);
        const want = hue((n2 >> 16) & 255, (n2 >> 8) & 255, n2 & 255);
        const dh = Math.min(Math.abs(got.h - want.h), 360 - Math.abs(got.h - want.h));
        assert.ok(dh < 8, `${hex} on ${s}: hue ${got.h.toFixed(1)} vs ${want.h.toFixed(1)}`);
        assert.ok(got.s > want.s * 0.7, `${hex} on ${s}: saturation ${got.s.toFixed(2)} vs ${want.s.toFixed(2)}`);
        const gl = lum(R / n, G / n, B / n);
        const wl = lum((n2 >> 16) & 255, (n2 >> 8) & 255, n2 & 255);
        assert.ok(Math.abs(gl - wl) < 40, `${hex} on ${s}: luminance ${gl.toFixed(0)} vs ${wl.toFixed(0)}`);
      }
    });
  });

  it('renders every silhouette and view at a small size', async () => {
    for (const s of SILHOUETTES) {
      for (const view of ['front', 'back'] as const) {
        const r = await renderBlank({ silhouette: s, view, colorHex: '#808080', size: 300 });
        const meta = await sharp(r.image).metadata();
        assert.equal(meta.width, 300);
        const img = await rawRgb(r.image);
        const mask = await garmentMask(s, view, 300);
        // garment covers a sensible share of the frame
        let cover = 0;
        for (let i = 0; i < mask.data.length; i++) if (mask.data[i] === 255) cover++;
        const frac = cover / mask.data.length;
        assert.ok(frac > 0.2 && frac < 0.7, `${s}/${view} coverage ${frac.toFixed(2)}`);
        assert.equal(img.data.length, 300 * 300 * 3);
      }
    }
  });
});
