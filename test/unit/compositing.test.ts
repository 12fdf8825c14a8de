// The compositing engine: placement lands where the spec says (measured on pixels), realism behaves (shading,
// sheen, ink on dark garments, transparency), outputs and errors, the prepared-blank cache and the fabric maps.
import assert from 'node:assert/strict';
import { crc32, deflateSync } from 'node:zlib';
import sharp from 'sharp';
import {
  composite,
  deriveFabricMaps,
  DesignImageError,
  fabricMapKeys,
  PreparedBlankCache,
  prepareBlank,
  type Placement,
  type PreparedBlank,
  type ZoneRect,
} from '../../lib/compositing';
import { renderBlank, zonesFor } from '../../lib/blanks';
import { BadInputError } from '../../lib/errors';
import { BufferPool } from '../../lib/compositing/config';

const SIZE = 800; // blanks rendered at a reduced size keep the suite fast; the engine is size-independent

interface Raw {
  data: Buffer;
  width: number;
  height: number;
}

async function decode(jpeg: Buffer): Promise<Raw> {
  const { data, info } = await sharp(jpeg).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

function solid(width: number, height: number, rgba: [number, number, number, number]): Promise<Buffer> {
  return sharp({
    create: { width, height, channels: 4, background: { r: rgba[0], g: rgba[1], b: rgba[2], alpha: rgba[3] / 255 } },
  })
    .png()
    .toBuffer();
}

/** Bounding box of the pixels matching `pred` (inclusive-exclusive), or null. */
function bbox(img: Raw, pred: (r: number, g: number, b: number) => boolean) {
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  for (let y = 0; y < img.height; y++) {
    for (let x = 0; x < img.width; x++) {
      const i = (y * img.width + x) * 3;
      if (pred(img.data[i]!, img.data[i + 1]!, img.data[i + 2]!)) {
        if (x < x0) x0 = x;
        if (x > x1) x1 = x;
        if (y < y0) y0 = y;
        if (y > y1) y1 = y;
      }
    }
  }
  return x1 < 0
    ? null
    : { x0, y0, x1: x1 + 1, y1: y1 + 1, w: x1 + 1 - x0, h: y1 + 1 - y0, cx: (x0 + x1 + 1) / 2, cy: (y0 + y1 + 1) / 2 };
}

const isRed = (r: number, g: number, b: number) => r > 140 && g < 110 && b < 110 && r - g > 80;

function luminanceStats(img: Raw, box: { x0: number; y0: number; x1: number; y1: number }) {
  let s = 0;
  let s2 = 0;
  let n = 0;
  let max = 0;
  for (let y = box.y0; y < box.y1; y++) {
    for (let x = box.x0; x < box.x1; x++) {
      const i = (y * img.width + x) * 3;
      const l = 0.2126 * img.data[i]! + 0.7152 * img.data[i + 1]! + 0.0722 * img.data[i + 2]!;
      s += l;
      s2 += l * l;
      n++;
      if (l > max) max = l;
    }
  }
  const mean = s / n;
  return { mean, sd: Math.sqrt(Math.max(0, s2 / n - mean * mean)), max };
}

function zonePx(zone: ZoneRect, w: number, h: number) {
  return { x: zone.x * w, y: zone.y * h, w: zone.width * w, h: zone.height * h };
}

const near = (actual: number, expected: number, tol: number, what: string) =>
  assert.ok(Math.abs(actual - expected) <= tol, `${what}: ${actual} not within ${tol} of ${expected}`);

describe('compositing', function () {
  this.timeout(60000);

  let whiteTee: PreparedBlank;
  let whiteTeeRaw: Raw;
  let blackHoodie: PreparedBlank;
  let whiteTeeJpeg: Buffer;
  const teeZone = zonesFor('tee').front!.rect;
  const hoodieZone = zonesFor('hoodie').front!.rect;
  let red: Buffer;

  before(async () => {
    whiteTeeJpeg = (await renderBlank({ silhouette: 'tee', view: 'front', colorHex: '#F7F7F5', size: SIZE })).image;
    const hoodieJpeg = (await renderBlank({ silhouette: 'hoodie', view: 'front', colorHex: '#1C1C1E', size: SIZE }))
      .image;
    whiteTee = await prepareBlank('t/white.jpg', whiteTeeJpeg, await deriveFabricMaps(whiteTeeJpeg));
    blackHoodie = await prepareBlank('t/black.jpg', hoodieJpeg, await deriveFabricMaps(hoodieJpeg));
    whiteTeeRaw = await decode(whiteTeeJpeg);
    red = await solid(200, 200, [255, 0, 0, 255]);
  });

  const place = (p: Partial<Placement>): Placement => ({ x: 50, y: 50, scale: 0.5, rotation: 0, ...p });

  describe('placement', () => {
    for (const realism of ['photo', 'flat'] as const) {
      it(`centers a square at x=50,y=50 with scale 0.5 of the fit size (${realism})`, async () => {
        const r = await composite({
          blank: whiteTee,
          design: red,
          zone: teeZone,
          placement: place({}),
          applyTexture: true,
          realism,
        });
        const z = zonePx(teeZone, SIZE, SIZE);
        const side = Math.min(Math.round(0.5 * z.w), Math.round(0.5 * z.h));
        const box = bbox(await decode(r.mockup), isRed);
        assert.ok(box, 'red square not found');
        const tol = realism === 'flat' ? 1.5 : 3;
        near(box.w, side, tol, 'width');
        near(box.h, side, tol, 'height');
        near(box.cx, z.x + z.w / 2, tol, 'center x');
        near(box.cy, z.y + z.h / 2, tol, 'center y');
        assert.deepEqual(r.designBox, {
          left: Math.round(z.x + z.w / 2 - side / 2),
          top: Math.round(z.y + z.h / 2 - side / 2),
          width: side,
          height: side,
        });
      });
    }

    it('x=0 puts the center on the zone left edge and clips to the zone', async () => {
      const r = await composite({
        blank: whiteTee,
        design: red,
        zone: teeZone,
        placement: place({ x: 0, y: 35 }),
        applyTexture: true,
      });
      const z = zonePx(teeZone, SIZE, SIZE);
      const side = Math.min(Math.round(0.5 * z.w), Math.round(0.5 * z.h));
      const box = bbox(await decode(r.mockup), isRed);
      assert.ok(box);
      near(box.x0, z.x, 1.5, 'clipped at the zone left edge');
      near(box.x1, z.x + side / 2, 3, 'right edge');
      near(box.h, side, 3, 'height unchanged');
      near(box.cy, z.y + 0.35 * z.h, 3, 'center y at 35 %');
    });

    it('x=100,y=100 clips at the right and bottom edges of the zone', async () => {
      const r = await composite({
        blank: whiteTee,
        design: red,
        zone: teeZone,
        placement: place({ x: 100, y: 100 }),
        applyTexture: false,
      });
      const z = zonePx(teeZone, SIZE, SIZE);
      const side = Math.min(Math.round(0.5 * z.w), Math.round(0.5 * z.h));
      const box = bbox(await decode(r.mockup), isRed);
      assert.ok(box);
      near(box.x1, z.x + z.w, 1.5, 'right edge = zone edge');
      near(box.y1, z.y + z.h, 1.5, 'bottom edge = zone edge');
      near(box.w, side / 2, 3, 'visible width');
      near(box.h, side / 2, 3, 'visible height');
    });

    it('rotation 90 of a 2:1 design swaps its extent; 45 degrees widens a square by sqrt 2', async () => {
      const wide = await solid(400, 200, [255, 0, 0, 255]);
      const z = zonePx(teeZone, SIZE, SIZE);
      const w = Math.min(Math.round(0.5 * z.w), 2 * Math.round(0.5 * z.h));
      const r0 = await composite({
        blank: whiteTee,
        design: wide,
        zone: teeZone,
        placement: place({}),
        applyTexture: false,
        realism: 'flat',
      });
      const r90 = await composite({
        blank: whiteTee,
        design: wide,
        zone: teeZone,
        placement: place({ rotation: 90 }),
        applyTexture: false,
        realism: 'flat',
      });
      const b0 = bbox(await decode(r0.mockup), isRed)!;
      const b90 = bbox(await decode(r90.mockup), isRed)!;
      near(b0.w, w, 1.5, 'unrotated width');
      near(b0.h, w / 2, 1.5, 'unrotated height');
      near(b90.w, w / 2, 1.5, 'rotated width');
      near(b90.h, w, 1.5, 'rotated height');
      near(b90.cx, b0.cx, 1, 'same center x');
      near(b90.cy, b0.cy, 1, 'same center y');
      const r45 = await composite({
        blank: whiteTee,
        design: red,
        zone: teeZone,
        placement: place({ rotation: 45, scale: 0.4 }),
        applyTexture: false,
      });
      const side = Math.min(Math.round(0.4 * z.w), Math.round(0.4 * z.h));
      const b45 = bbox(await decode(r45.mockup), isRed)!;
      near(b45.w, side * Math.SQRT2, 4, 'diagonal extent x');
      near(b45.h, side * Math.SQRT2, 4, 'diagonal extent y');
    });

    it('rotation is clockwise', async () => {
      // a red bar on the left half of the design: after +90 (clockwise) it is on the top half
      const half = await sharp({
        create: { width: 200, height: 200, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } },
      })
        .composite([{ input: await solid(100, 200, [255, 0, 0, 255]), left: 0, top: 0 }])
        .png()
        .toBuffer();
      const r = await composite({
        blank: whiteTee,
        design: half,
        zone: teeZone,
        placement: place({ rotation: 90 }),
        applyTexture: false,
        realism: 'flat',
      });
      const z = zonePx(teeZone, SIZE, SIZE);
      const b = bbox(await decode(r.mockup), isRed)!;
      assert.ok(b.cy < z.y + z.h / 2, `bar should be above the center, got cy=${b.cy}`);
      near(b.cx, z.x + z.w / 2, 1.5, 'horizontally centered');
    });

    it('scale 1.0 is the largest size that fits the zone', async () => {
      const z = zonePx(teeZone, SIZE, SIZE);
      const r = await composite({
        blank: whiteTee,
        design: red,
        zone: teeZone,
        placement: place({ scale: 1 }),
        applyTexture: true,
      });
      const b = bbox(await decode(r.mockup), isRed)!;
      const side = Math.min(Math.round(z.w), Math.round(z.h));
      near(b.w, side, 3, 'width');
      near(b.h, side, 3, 'height');
      assert.ok(b.x0 >= Math.round(z.x) - 1 && b.x1 <= Math.round(z.x + z.w) + 1, 'inside the zone horizontally');
      // a tall design fits by height
      const tall = await solid(100, 400, [255, 0, 0, 255]);
      const rt = await composite({
        blank: whiteTee,
        design: tall,
        zone: teeZone,
        placement: place({ scale: 1 }),
        applyTexture: false,
        realism: 'flat',
      });
      const bt = bbox(await decode(rt.mockup), isRed)!;
      near(bt.h, Math.round(z.h), 1.5, 'tall design height = zone height');
      near(bt.w, Math.round(z.h) / 4, 1.5, 'aspect kept');
    });

    it('handles blanks that are not square', async () => {
      const jpeg = await sharp(whiteTeeJpeg).resize(641, 803, { fit: 'fill' }).jpeg().toBuffer();
      const blank = await prepareBlank('t/odd.jpg', jpeg, await deriveFabricMaps(jpeg));
      assert.equal(blank.width, 641);
      assert.equal(blank.height, 803);
      const r = await composite({ blank, design: red, zone: teeZone, placement: place({}), applyTexture: true });
      const m = await sharp(r.mockup).metadata();
      assert.equal(m.width, 641);
      assert.equal(m.height, 803);
      const z = zonePx(teeZone, 641, 803);
      const b = bbox(await decode(r.mockup), isRed)!;
      const side = Math.min(Math.round(0.5 * z.w), Math.round(0.5 * z.h));
      near(b.cx, z.x + z.w / 2, 3, 'center x');
      near(b.cy, z.y + z.h / 2, 3, 'center y');
      near(b.w, side, 3, 'width');
    });

    it("places into the small chest zones (the wearer's left chest is right of the image center)", async () => {
      const lc = zonesFor('tee')['left-chest']!.rect;
      const r = await composite({ blank: whiteTee, design: red, zone: lc, placement: place({}), applyTexture: false });
      const b = bbox(await decode(r.mockup), isRed)!;
      const z = zonePx(lc, SIZE, SIZE);
      near(b.cx, z.x + z.w / 2, 2, 'center x');
      assert.ok(b.cx > SIZE / 2, "wearer's left chest is on the right of the image");
    });
  });

  describe('realism', () => {
    it('transparent areas leave the garment unchanged', async () => {
      // left half opaque red, right half fully transparent (with junk color under alpha 0)
      const design = await sharp({
        create: { width: 200, height: 200, channels: 4, background: { r: 0, g: 255, b: 0, alpha: 0 } },
      })
        .composite([{ input: await solid(100, 200, [255, 0, 0, 255]), left: 0, top: 0 }])
        .png()
        .toBuffer();
      const r = await composite({
        blank: whiteTee,
        design,
        zone: teeZone,
        placement: place({ scale: 0.8 }),
        applyTexture: true,
      });
      const out = await decode(r.mockup);
      const b = bbox(out, isRed)!;
      // the transparent right half of the design box, away from the red edge
      const box = { x0: b.x1 + 6, y0: b.y0 + 4, x1: b.x1 + b.w - 6, y1: b.y1 - 4 };
      let diff = 0;
      let n = 0;
      let green = 0;
      for (let y = box.y0; y < box.y1; y++) {
        for (let x = box.x0; x < box.x1; x++) {
          const i = (y * SIZE + x) * 3;
          for (let c = 0; c < 3; c++) diff += Math.abs(out.data[i + c]! - whiteTeeRaw.data[i + c]!);
          if (out.data[i + 1]! - out.data[i]! > 20) green++;
          n++;
        }
      }
      assert.ok(n > 1000);
      assert.ok(diff / (3 * n) < 1.5, `mean abs difference ${diff / (3 * n)} (JPEG re-encoding only)`);
      assert.equal(green, 0, 'color under alpha 0 must not leak');
    });

    it('outside the design the whole image equals the blank (up to JPEG re-encoding)', async () => {
      const r = await composite({
        blank: whiteTee,
        design: red,
        zone: teeZone,
        placement: place({ scale: 0.3 }),
        applyTexture: true,
      });
      const out = await decode(r.mockup);
      const s = luminanceStats(out, { x0: 0, y0: 0, x1: SIZE, y1: 150 });
      const t = luminanceStats(whiteTeeRaw, { x0: 0, y0: 0, x1: SIZE, y1: 150 });
      near(s.mean, t.mean, 0.5, 'top band mean');
    });

    it('shading modulates a flat design on a folded blank; the flat paste does not', async () => {
      const gray = await solid(300, 300, [170, 170, 170, 255]);
      const args = {
        blank: blackHoodie,
        design: gray,
        zone: hoodieZone,
        placement: place({ scale: 1 }),
        applyTexture: false,
      } as const;
      const photo = await composite({ ...args, realism: 'photo' });
      const flat = await composite({ ...args, realism: 'flat' });
      const b = photo.designBox;
      const inner = { x0: b.left + 4, y0: b.top + 4, x1: b.left + b.width - 4, y1: b.top + b.height - 4 };
      const sp = luminanceStats(await decode(photo.mockup), inner);
      const sf = luminanceStats(await decode(flat.mockup), inner);
      assert.ok(sf.sd < 1, `flat paste of a solid color is uniform (sd ${sf.sd})`);
      assert.ok(sp.sd > 3, `photo mode shows the folds (sd ${sp.sd})`);
      // on the calm white tee too, a little
      const tee = await composite({
        blank: whiteTee,
        design: gray,
        zone: teeZone,
        placement: place({ scale: 1 }),
        applyTexture: false,
      });
      const bt = tee.designBox;
      const st = luminanceStats(await decode(tee.mockup), {
        x0: bt.left + 4,
        y0: bt.top + 4,
        x1: bt.left + bt.width - 4,
        y1: bt.top + bt.height - 4,
      });
      assert.ok(st.sd > 0.5, `white tee sd ${st.sd}`);
    });

    it('applyTexture adds a subtle knit texture', async () => {
      const gray = await solid(300, 300, [170, 170, 170, 255]);
      const args = { blank: whiteTee, design: gray, zone: teeZone, placement: place({ scale: 0.6 }) } as const;
      const plain = await composite({ ...args, applyTexture: false });
      const tex = await composite({ ...args, applyTexture: true });
      const b = plain.designBox;
      const inner = { x0: b.left + 4, y0: b.top + 4, x1: b.left + b.width - 4, y1: b.top + b.height - 4 };
      const sp = luminanceStats(await decode(plain.mockup), inner);
      const st = luminanceStats(await decode(tex.mockup), inner);
      assert.ok(st.sd > sp.sd * 1.3 + 0.3, `texture sd ${st.sd} vs ${sp.sd}`);
      assert.ok(st.sd < 12, `subtle (sd ${st.sd})`);
      near(st.mean, sp.mean, 4, 'texture keeps the color');
    });

    it('white ink on a black garment is clearly light but below pure white', async () => {
      const white = await solid(300, 300, [255, 255, 255, 255]);
      const r = await composite({
        blank: blackHoodie,
        design: white,
        zone: hoodieZone,
        placement: place({ scale: 0.6 }),
        applyTexture: true,
      });
      const b = r.designBox;
      const s = luminanceStats(await decode(r.mockup), {
        x0: b.left + 3,
        y0: b.top + 3,
        x1: b.left + b.width - 3,
        y1: b.top + b.height - 3,
      });
      assert.ok(s.mean > 190, `ink is light (mean ${s.mean})`);
      assert.ok(s.mean < 250, `but not a hole of pure white (mean ${s.mean})`);
      assert.ok(s.sd > 1, `and carries the fabric's shading (sd ${s.sd})`);
    });

    it('a colored design on a dark garment stays visible (opaque ink, not multiplied by the garment)', async () => {
      const red2 = await solid(300, 300, [220, 40, 40, 255]);
      const r = await composite({
        blank: blackHoodie,
        design: red2,
        zone: hoodieZone,
        placement: place({ scale: 0.6 }),
        applyTexture: true,
      });
      const b = r.designBox;
      const out = await decode(r.mockup);
      let rs = 0;
      let n = 0;
      for (let y = b.top + 3; y < b.top + b.height - 3; y++) {
        for (let x = b.left + 3; x < b.left + b.width - 3; x++) {
          rs += out.data[(y * SIZE + x) * 3]!;
          n++;
        }
      }
      assert.ok(rs / n > 150, `red channel ${rs / n}`);
    });

    it('keeps semi-transparent design pixels semi-transparent', async () => {
      const half = await solid(200, 200, [255, 0, 0, 128]);
      const r = await composite({
        blank: whiteTee,
        design: half,
        zone: teeZone,
        placement: place({}),
        applyTexture: false,
        realism: 'flat',
      });
      const b = r.designBox;
      const out = await decode(r.mockup);
      const i = ((b.top + b.height / 2) * SIZE + b.left + b.width / 2) * 3;
      const j = i; // same pixel of the blank
      near(out.data[i]!, (255 + whiteTeeRaw.data[j]!) / 2, 6, 'red channel');
      near(out.data[i + 1]!, whiteTeeRaw.data[j + 1]! / 2, 6, 'green channel');
    });

    it('is deterministic', async () => {
      const design = await solid(300, 200, [30, 90, 200, 255]);
      const args = {
        blank: whiteTee,
        design,
        zone: teeZone,
        placement: place({ rotation: 30, scale: 0.7 }),
        applyTexture: true,
      } as const;
      const a = await composite({ ...args, cacheDesign: false });
      const b = await composite({ ...args, cacheDesign: false });
      const c = await composite({ ...args }); // through the design cache
      const d = await composite({ ...args });
      assert.ok(a.mockup.equals(b.mockup) && a.mockup.equals(c.mockup) && a.mockup.equals(d.mockup));
      assert.ok(a.thumbnail.equals(b.thumbnail) && a.thumbnail.equals(d.thumbnail));
    });
  });

  describe('outputs and inputs', () => {
    it('returns a JPEG at the blank resolution and a small JPEG thumbnail', async () => {
      const r = await composite({
        blank: whiteTee,
        design: red,
        zone: teeZone,
        placement: place({}),
        applyTexture: true,
      });
      const m = await sharp(r.mockup).metadata();
      const t = await sharp(r.thumbnail).metadata();
      assert.equal(m.format, 'jpeg');
      assert.equal(m.width, SIZE);
      assert.equal(m.height, SIZE);
      assert.equal(r.width, SIZE);
      assert.equal(r.height, SIZE);
      assert.equal(t.format, 'jpeg');
      assert.ok(t.width! <= 400 && t.width! >= 300, `thumbnail ${t.width}`);
      assert.ok(r.thumbnail.length < r.mockup.length / 3);
      // the thumbnail shows the design too
      const tr = bbox(await decode(r.thumbnail), isRed);
      assert.ok(tr, 'red visible in the thumbnail');
      near(tr.cx * (SIZE / t.width!), SIZE * (teeZone.x + teeZone.width / 2), 4, 'thumbnail placement');
    });

    it('accepts JPEG, WebP, GIF, grayscale and 16-bit PNG designs and honors EXIF orientation', async () => {
      const z = zonePx(teeZone, SIZE, SIZE);
      const base = sharp({ create: { width: 200, height: 100, channels: 3, background: { r: 255, g: 0, b: 0 } } });
      for (const bytes of [
        await base.clone().jpeg().toBuffer(),
        await base.clone().webp().toBuffer(),
        await base.clone().gif().toBuffer(),
      ]) {
        const r = await composite({
          blank: whiteTee,
          design: bytes,
          zone: teeZone,
          placement: place({}),
          applyTexture: false,
          realism: 'flat',
        });
        const b = bbox(await decode(r.mockup), isRed)!;
        near(b.w / b.h, 2, 0.1, 'aspect');
      }
      const gray = await sharp({
        create: { width: 100, height: 100, channels: 3, background: { r: 40, g: 40, b: 40 } },
      })
        .grayscale()
        .png()
        .toBuffer();
      const g = await composite({
        blank: whiteTee,
        design: gray,
        zone: teeZone,
        placement: place({}),
        applyTexture: false,
        realism: 'flat',
      });
      const gs = luminanceStats(await decode(g.mockup), {
        x0: g.designBox.left + 2,
        y0: g.designBox.top + 2,
        x1: g.designBox.left + 20,
        y1: g.designBox.top + 20,
      });
      near(gs.mean, 40, 4, 'grayscale design');
      const deep = await sharp({
        create: { width: 100, height: 100, channels: 4, background: { r: 255, g: 0, b: 0, alpha: 1 } },
      })
        .toColorspace('rgb16')
        .png()
        .toBuffer();
      const d = await composite({
        blank: whiteTee,
        design: deep,
        zone: teeZone,
        placement: place({}),
        applyTexture: false,
        realism: 'flat',
      });
      assert.ok(bbox(await decode(d.mockup), isRed));
      // a 2:1 JPEG tagged "rotate 90": placed as 1:2
      const rotated = await base.clone().jpeg().withMetadata({ orientation: 6 }).toBuffer();
      const ro = await composite({
        blank: whiteTee,
        design: rotated,
        zone: teeZone,
        placement: place({}),
        applyTexture: false,
        realism: 'flat',
      });
      const rb = bbox(await decode(ro.mockup), isRed)!;
      near(rb.h / rb.w, 2, 0.1, 'EXIF orientation applied');
      assert.ok(rb.h <= Math.round(0.5 * z.h) + 1);
    });

    it('throws DesignImageError for garbage, empty, fully transparent and oversized designs', async () => {
      const args = { blank: whiteTee, zone: teeZone, placement: place({}), applyTexture: true } as const;
      await assert.rejects(composite({ ...args, design: Buffer.from('definitely not an image') }), DesignImageError);
      await assert.rejects(composite({ ...args, design: Buffer.alloc(0) }), DesignImageError);
      await assert.rejects(
        composite({ ...args, design: (await solid(64, 64, [255, 0, 0, 255])).subarray(0, 60) }),
        DesignImageError,
      );
      await assert.rejects(composite({ ...args, design: await solid(64, 64, [255, 255, 255, 0]) }), DesignImageError);
      await assert.rejects(
        composite({ ...args, design: pngHeaderOnly(8000, 7000) }),
        (err: unknown) => err instanceof DesignImageError && /megapixels/.test(err.message),
      );
    });

    it('refuses placements and zones out of range', async () => {
      const args = { blank: whiteTee, design: red, zone: teeZone, applyTexture: true } as const;
      await assert.rejects(composite({ ...args, placement: place({ scale: 1.5 }) }), BadInputError);
      await assert.rejects(composite({ ...args, placement: place({ x: -1 }) }), BadInputError);
      await assert.rejects(composite({ ...args, placement: place({ rotation: 181 }) }), BadInputError);
      await assert.rejects(composite({ ...args, placement: place({ y: Number.NaN }) }), BadInputError);
      await assert.rejects(
        composite({ ...args, placement: place({}), zone: { x: 0.9, y: 0.1, width: 0.2, height: 0.2 } }),
        BadInputError,
      );
    });
  });

  describe('fabric maps and the prepared-blank cache', () => {
    it('fabricMapKeys sit next to the blank', () => {
      const k = fabricMapKeys('blanks/tee/f7f7f5-blank-render-v1-front.jpg');
      assert.match(k.shading, /^blanks\/tee\/f7f7f5-blank-render-v1-front-shading-v\d+\.png$/);
      assert.match(k.displacement, /^blanks\/tee\/f7f7f5-blank-render-v1-front-displace-v\d+\.png$/);
    });

    it('derives single-channel 16-bit PNG maps normalized to the garment (~1.0)', async () => {
      const maps = await deriveFabricMaps(whiteTeeJpeg);
      for (const [buf, div] of [
        [maps.shading, 2],
        [maps.displacement, 4],
      ] as const) {
        const m = await sharp(buf).metadata();
        assert.equal(m.format, 'png');
        assert.equal(m.channels, 1);
        assert.equal(m.depth, 'ushort');
        assert.equal(m.width, SIZE / div);
      }
      const { data } = await sharp(maps.shading)
        .toColorspace('grey16')
        .raw({ depth: 'ushort' })
        .toBuffer({ resolveWithObject: true });
      const u16 = new Uint16Array(data.buffer.slice(data.byteOffset, data.byteOffset + data.length));
      const w = SIZE / 2;
      const z = zonePx(teeZone, w, w);
      let s = 0;
      let n = 0;
      for (let y = Math.round(z.y); y < z.y + z.h; y++)
        for (let x = Math.round(z.x); x < z.x + z.w; x++, n++) s += u16[y * w + x]! / 8192;
      near(s / n, 1, 0.08, 'mean shading over the print zone');
    });

    it('loads a blank and its maps once, shares concurrent loads and derives missing maps', async () => {
      const maps = await deriveFabricMaps(whiteTeeJpeg);
      const keys = fabricMapKeys('b/white.jpg');
      const store = new Map<string, Buffer>([
        ['b/white.jpg', whiteTeeJpeg],
        [keys.shading, maps.shading],
        [keys.displacement, maps.displacement],
        ['b/old.jpg', whiteTeeJpeg], // old data: no maps stored
      ]);
      const loads: string[] = [];
      const cache = new PreparedBlankCache({
        load: async (k) => {
          loads.push(k);
          return store.get(k) ?? null;
        },
      });
      const [a, b] = await Promise.all([cache.get('b/white.jpg'), cache.get('b/white.jpg')]);
      assert.equal(a, b);
      assert.equal(a.mapsSource, 'storage');
      assert.equal(a.width, SIZE);
      await cache.get('b/white.jpg');
      assert.equal(loads.filter((k) => k === 'b/white.jpg').length, 1);
      const old = await cache.get('b/old.jpg');
      assert.equal(old.mapsSource, 'derived');
      // derived in memory = what the seeder stores: same mockup
      const r1 = await composite({ blank: a, design: red, zone: teeZone, placement: place({}), applyTexture: true });
      const r2 = await composite({ blank: old, design: red, zone: teeZone, placement: place({}), applyTexture: true });
      assert.ok(r1.mockup.equals(r2.mockup));
      await assert.rejects(cache.get('b/missing.jpg'), /not found/);
      await assert.rejects(cache.get('b/missing.jpg'), /not found/);
      assert.equal(loads.filter((k) => k === 'b/missing.jpg').length, 2, 'failures are not cached');
    });

    it('evicts least recently used blanks beyond maxBytes', async () => {
      const store = new Map<string, Buffer>([
        ['a.jpg', whiteTeeJpeg],
        ['b.jpg', whiteTeeJpeg],
        ['c.jpg', whiteTeeJpeg],
      ]);
      let loads = 0;
      const cache = new PreparedBlankCache({
        load: async (k) => {
          if (k.endsWith('.jpg')) loads++;
          return store.get(k) ?? null;
        },
        maxBytes: 1, // keeps only the newest
      });
      await cache.get('a.jpg');
      await cache.get('b.jpg');
      assert.equal(cache.stats().entries, 1);
      await cache.get('a.jpg');
      assert.equal(loads, 3);
      const big = new PreparedBlankCache({ load: async (k) => store.get(k) ?? null });
      await big.get('a.jpg');
      await big.get('b.jpg');
      assert.equal(big.stats().entries, 2);
      assert.ok(big.stats().bytes > 2 * SIZE * SIZE * 3);
    });
  });
});

/** A PNG with a valid header claiming `w` x `h` and (almost) no pixel data. */
function pngHeaderOnly(w: number, h: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const td = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(td) >>> 0);
    return Buffer.concat([len, td, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr[8] = 8;
  ihdr[9] = 6;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(Buffer.alloc(64))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

describe('output buffer pool', () => {
  it('keeps idle buffers under its byte cap, evicting the sizes used least recently', () => {
    const pool = new BufferPool(4, 100);
    pool.give(Buffer.alloc(40));
    pool.give(Buffer.alloc(30));
    assert.equal(pool.pooledBytes, 70);
    pool.give(Buffer.alloc(50)); // evicts the 40-byte size, used least recently
    assert.equal(pool.pooledBytes, 80);
    assert.equal(pool.take(40).length, 40); // a new buffer: that size was evicted
    assert.equal(pool.pooledBytes, 80);
    // blanks of many sizes: never more than the cap
    for (let size = 1; size <= 60; size++) {
      pool.give(Buffer.alloc(size));
      assert.ok(pool.pooledBytes <= 100, `${pool.pooledBytes} bytes pooled`);
    }
    pool.give(Buffer.alloc(500)); // larger than the cap: not kept
    assert.ok(pool.pooledBytes <= 100);
    const again = pool.take(60);
    assert.equal(again.length, 60);
    assert.ok(pool.pooledBytes <= 40);
  });

  it('keeps no entry for a size it does not hold: its bookkeeping stays bounded by the buffers it keeps', () => {
    const pool = new BufferPool(2, 100);
    // foreign blanks of many sizes too large to keep
    for (let size = 101; size <= 5000; size++) pool.give(Buffer.alloc(size));
    assert.equal(pool.sizes, 0);
    assert.equal(pool.pooledBytes, 0);
    // sizes that fit, given and taken again: the emptied entries go too
    for (let size = 1; size <= 2000; size++) {
      pool.give(Buffer.alloc(size % 90 || 1));
      const b = pool.take(size % 90 || 1);
      assert.equal(b.length, size % 90 || 1);
      assert.equal(pool.sizes, 0, `after size ${size}`);
    }
    // evicted sizes leave no entry either; never more entries than buffers
    for (let size = 1; size <= 60; size++) {
      pool.give(Buffer.alloc(size));
      assert.ok(pool.sizes <= pool.pooledBytes, `${pool.sizes} entries for ${pool.pooledBytes} bytes`);
    }
    assert.ok(pool.sizes <= 100);
    const emptyPool = new BufferPool(0, 100);
    emptyPool.give(Buffer.alloc(10));
    assert.equal(emptyPool.sizes, 0);
  });
});
