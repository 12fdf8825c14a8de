// Finding the garment in a client's own blank photo and fitting the catalogue print zone onto it
// (lib/compositing/garment-detect.ts, garment-zone.ts): our own blank, shrunk to half and placed in a corner of a
// larger canvas, must get its print where the catalogue blank has it, relative to the garment.
import assert from 'node:assert/strict';
import sharp from 'sharp';
import {
  choosePrintZone,
  composite,
  detectGarment,
  detectGarmentInImage,
  prepareBlank,
  referenceLandmarks,
  type GarmentDetection,
  type ZoneRect,
} from '../../lib/compositing';
import { zonesFor } from '../../lib/blanks';
import { busyPhoto, framedPhoto, ownBlank, type Backdrop, type OwnBlank } from '../helpers/customer-photos';

const SIZE = 1000;
const placement = { x: 50, y: 35, scale: 0.8, rotation: 0 };

async function design(): Promise<Buffer> {
  return sharp({ create: { width: 400, height: 300, channels: 4, background: { r: 220, g: 20, b: 20, alpha: 1 } } })
    .png()
    .toBuffer();
}

describe('garment detection on clients’ own photos', function () {
  this.timeout(60_000);
  const blanks: Record<string, OwnBlank> = {};
  let red: Buffer;

  before(async () => {
    blanks.redTee = await ownBlank('tee', 'front', '#B3262E', SIZE);
    blanks.navyHoodie = await ownBlank('hoodie', 'front', '#1F2A44', SIZE);
    red = await design();
  });

  const cases: [string, string, Backdrop][] = [
    ['red tee on its own studio backdrop', 'redTee', 'studio'],
    ['red tee on a transparent background (alpha)', 'redTee', 'transparent'],
    ['red tee on a darker backdrop', 'redTee', [96, 100, 108]],
    ['navy hoodie on its own studio backdrop', 'navyHoodie', 'studio'],
    ['navy hoodie on a darker backdrop', 'navyHoodie', [120, 112, 100]],
  ];
  for (const [label, which, backdrop] of cases) {
    it(`${label}: shrunk to half in a corner of a larger canvas, the design lands on the same place of the garment (3 % of its width)`, async () => {
      const blank = blanks[which]!;
      const zone: ZoneRect = zonesFor(blank.silhouette).front!.rect;
      // the original: our blank as it is, the catalogue zone
      const original = await prepareBlank('orig', blank.jpeg);
      const before = await composite({ blank: original, design: red, zone, placement, applyTexture: false });
      // the customer's framing: half size, bottom-right corner of a 1800x1400 canvas
      const photo = await framedPhoto(blank, {
        width: 1800,
        height: 1400,
        scale: 0.5,
        left: 1800 - SIZE / 2,
        top: 1400 - SIZE / 2,
        backdrop,
      });
      const prepared = await prepareBlank('url:photo', photo.image, null, { findGarment: true });
      assert.ok(prepared.garment?.found, JSON.stringify(prepared.garment));
      assert.equal(prepared.garment.source, backdrop === 'transparent' ? 'alpha' : 'outline');
      const chosen = await choosePrintZone({ blank: prepared, zone, silhouette: blank.silhouette, view: 'front' });
      assert.equal(chosen.basis, 'garment');
      const after = await composite({
        blank: prepared,
        design: red,
        zone: chosen.zone,
        placement,
        applyTexture: false,
      });
      const ref = await referenceLandmarks(blank.silhouette, 'front');
      const garmentWidth = ref.box.width * SIZE * photo.scale;
      const expected = {
        left: before.designBox.left * photo.scale + photo.left,
        top: before.designBox.top * photo.scale + photo.top,
        width: before.designBox.width * photo.scale,
        height: before.designBox.height * photo.scale,
      };
      for (const k of ['left', 'top', 'width', 'height'] as const) {
        const off = Math.abs(after.designBox[k] - expected[k]) / garmentWidth;
        assert.ok(
          off <= 0.03,
          `${k}: ${after.designBox[k]} vs ${expected[k].toFixed(1)} (${(off * 100).toFixed(2)} %)`,
        );
      }
      // without the fit (today's fractions of the image) the design would be far off the garment
      const naiveLeft = zone.x * photo.width + (zone.width * photo.width * (1 - placement.scale)) / 2;
      assert.ok(Math.abs(naiveLeft - expected.left) / garmentWidth > 0.3);
    });
  }

  it('finds nothing on a busy background (no clear backdrop): the zone stays in fractions of the image, basis "image"', async () => {
    const busy = await busyPhoto(blanks.redTee!, 1200, 900);
    const found = await detectGarmentInImage(busy);
    assert.equal(found.found, false);
    assert.match(found.found ? '' : found.reason, /no clear backdrop/);
    const zone = zonesFor('tee').front!.rect;
    const chosen = await choosePrintZone({
      blank: { width: 1200, height: 900, garment: found },
      zone,
      silhouette: 'tee',
      view: 'front',
    });
    assert.equal(chosen.basis, 'image');
    assert.deepEqual(chosen.zone, zone);
    assert.ok(chosen.fallback);
  });

  it('a uniform image (nothing stands out) is not found either', () => {
    const data = new Uint8Array(100 * 80 * 3).fill(200);
    const found = detectGarment({ data, width: 100, height: 80, channels: 3 });
    assert.equal(found.found, false);
  });

  it('fills holes: a ring-shaped garment is one solid region', () => {
    const w = 120;
    const h = 100;
    const data = new Uint8Array(w * h * 3).fill(240);
    for (let y = 20; y < 80; y++)
      for (let x = 30; x < 90; x++) {
        const inHole = x >= 50 && x < 70 && y >= 40 && y < 60;
        if (!inHole) data.fill(30, (y * w + x) * 3, (y * w + x) * 3 + 3);
      }
    const found = detectGarment({ data, width: w, height: h, channels: 3 });
    assert.ok(found.found);
    assert.equal(found.area, (60 * 60) / (w * h));
    assert.deepEqual(found.box, { left: 30 / w, top: 20 / h, width: 60 / w, height: 60 / h });
  });

  it('a printArea overrides the zone (basis "image"), clipped to the photo', async () => {
    const chosen = await choosePrintZone({
      blank: { width: 1000, height: 500, garment: null },
      zone: { x: 0.1, y: 0.1, width: 0.2, height: 0.2 },
      silhouette: 'tee',
      view: 'front',
      printArea: { x: 40, y: 20, width: 30, height: 50 },
    });
    assert.equal(chosen.basis, 'image');
    assert.deepEqual(chosen.printArea, { left: 400, top: 100, width: 300, height: 250 });
  });

  it('our own blanks (garment not looked for) keep the catalogue zone, basis "garment"', async () => {
    const zone = zonesFor('tee').front!.rect;
    const chosen = await choosePrintZone({
      blank: { width: 2000, height: 2000, garment: null },
      zone,
      silhouette: 'tee',
      view: 'front',
    });
    assert.equal(chosen.basis, 'garment');
    assert.deepEqual(chosen.zone, zone);
  });
});

describe('garment detection on an uneven backdrop', () => {
  it('a dark block on a coarse checker backdrop is found to the pixel', () => {
    const w = 160;
    const h = 120;
    const data = new Uint8Array(w * h * 3);
    // a light backdrop in a coarse checker of +-9 levels (not smooth, yet of one colour within the tolerance)
    for (let y = 0; y < h; y++)
      for (let x = 0; x < w; x++) {
        const v = ((x >> 2) + (y >> 2)) % 2 ? 229 : 211;
        const garment = x >= 40 && x < 120 && y >= 30 && y < 100;
        data.fill(garment ? 40 : v, (y * w + x) * 3, (y * w + x) * 3 + 3);
      }
    const found = detectGarment({ data, width: w, height: h, channels: 3 });
    assert.ok(found.found, JSON.stringify(found));
    assert.equal(found.source, 'backdrop'); // the outline path declines a textured backdrop
    assert.deepEqual(found.box, { left: 40 / w, top: 30 / h, width: 80 / w, height: 70 / h });
  });
});

describe('garment not found: what the warning says (issue 38)', () => {
  it('when no path finds the garment on an uneven backdrop, the warning quotes why the outline path declined', async () => {
    const w = 160;
    const h = 120;
    const data = new Uint8Array(w * h * 3);
    let s = 7;
    const rnd = () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
    // a light backdrop in a coarse checker of +-15 levels (not smooth: the outline path declines; of one colour
    // within the colour path's tolerance) and, in the middle, grains of every hue within that tolerance (no plain
    // garment for the seeded path, nothing of another colour for the colour path)
    for (let y = 0; y < h; y++)
      for (let x = 0; x < w; x++) {
        const middle = x >= 50 && x < 110 && y >= 35 && y < 85;
        for (let c = 0; c < 3; c++)
          data[(y * w + x) * 3 + c] = middle
            ? 220 + Math.round((rnd() * 2 - 1) * 45)
            : ((x >> 2) + (y >> 2)) % 2
              ? 235
              : 205;
      }
    const found = detectGarment({ data, width: w, height: h, channels: 3 });
    assert.equal(found.found, false);
    const chosen = await choosePrintZone({
      blank: { width: w, height: h, garment: found },
      zone: zonesFor('tee').front!.rect,
      silhouette: 'tee',
      view: 'front',
    });
    assert.equal(chosen.basis, 'image');
    assert.equal(chosen.warning?.code, 'garment_not_found');
    assert.match(chosen.warning.message, /by its outline: the backdrop is not smooth \(texture \d+\.\d levels\)/);
    assert.match(
      chosen.warning.message,
      /from the photo\u2019s centre: the middle of the photo is not one plain colour/,
    );
  });
});

describe('several garments or a person in the photo (issue 38)', function () {
  this.timeout(120_000);
  const zone = zonesFor('tee').front!.rect;
  let red: OwnBlank;
  let navy: OwnBlank;
  before(async () => {
    red = await ownBlank('tee', 'front', '#B3262E', 800);
    navy = await ownBlank('tee', 'front', '#1F2A44', 800);
  });

  /** A tee cut out along its silhouette (PNG with alpha), `side` pixels. */
  const cutOut = async (blank: OwnBlank, side: number) =>
    (
      await framedPhoto(blank, {
        width: side,
        height: side,
        scale: side / blank.size,
        left: 0,
        top: 0,
        backdrop: 'transparent',
      })
    ).image;
  const onBackdrop = (width: number, height: number, layers: sharp.OverlayOptions[]) =>
    sharp({ create: { width, height, channels: 3, background: { r: 244, g: 244, b: 242 } } })
      .composite(layers)
      .jpeg({ quality: 90 })
      .toBuffer();

  it('a flat lay of two tees: the print goes on the larger one, never across the two', async () => {
    const photo = await onBackdrop(1600, 900, [
      { input: await cutOut(red, 800), left: 20, top: 60 },
      { input: await cutOut(navy, 600), left: 900, top: 200 },
    ]);
    const found = await detectGarmentInImage(photo);
    assert.ok(found.found && found.regions.length === 2, JSON.stringify(found.found && found.regions.length));
    const chosen = await choosePrintZone({
      blank: { width: 1600, height: 900, garment: found },
      zone,
      silhouette: 'tee',
      view: 'front',
    });
    assert.equal(chosen.basis, 'garment');
    assert.equal(chosen.warning, undefined);
    // inside the red (larger) tee's box: x 20..820
    const { left, width } = chosen.printArea;
    assert.ok(left > 20 && left + width < 820, JSON.stringify(chosen.printArea));
  });

  it('two tees lying over each other make one region of no tee\u2019s shape: garment_not_found, basis "image"', async () => {
    const photo = await onBackdrop(1400, 900, [
      { input: await cutOut(red, 800), left: 20, top: 50 },
      { input: await cutOut(navy, 800), left: 420, top: 60 },
    ]);
    const found = await detectGarmentInImage(photo);
    assert.ok(found.found);
    const chosen = await choosePrintZone({
      blank: { width: 1400, height: 900, garment: found },
      zone,
      silhouette: 'tee',
      view: 'front',
    });
    assert.equal(chosen.basis, 'image');
    assert.equal(chosen.warning?.code, 'garment_not_found');
    assert.match(chosen.warning.message, /shape of the garment.*printArea/);
    assert.deepEqual(chosen.zone, zone);
  });

  it('a person wearing the tee (head, arms and legs joined to it): the print goes on the tee, not across the person', async () => {
    const svg = Buffer.from(
      `<svg xmlns="http://www.w3.org/2000/svg" width="1000" height="1400">
         <circle cx="500" cy="150" r="110" fill="#c8906c"/>
         <rect x="450" y="230" width="100" height="120" fill="#c8906c"/>
         <rect x="60" y="420" width="90" height="420" rx="40" fill="#c8906c"/>
         <rect x="850" y="420" width="90" height="420" rx="40" fill="#c8906c"/>
         <rect x="300" y="900" width="170" height="480" fill="#34495e"/>
         <rect x="530" y="900" width="170" height="480" fill="#34495e"/>
       </svg>`,
    );
    const photo = await onBackdrop(1000, 1400, [
      { input: svg, left: 0, top: 0 },
      { input: await cutOut(red, 1000), left: 0, top: 180 },
    ]);
    const found = await detectGarmentInImage(photo);
    const chosen = await choosePrintZone({
      blank: { width: 1000, height: 1400, garment: found },
      zone,
      silhouette: 'tee',
      view: 'front',
    });
    // the person as a whole (head, arms, legs) is of no tee's shape; the tee itself, one plain colour in the middle
    // of the photo (the seeded path), is: the print goes on it, where it goes on the tee cut out, never on the skin
    assert.equal(chosen.basis, 'garment');
    const ref = await referenceLandmarks('tee', 'front');
    const want = { x: (zone.x + zone.width / 2) * 1000, y: (zone.y + 0.35 * zone.height) * 1000 + 180 };
    const got = {
      x: (chosen.zone.x + chosen.zone.width / 2) * 1000,
      y: (chosen.zone.y + 0.35 * chosen.zone.height) * 1400,
    };
    const err = Math.hypot(got.x - want.x, got.y - want.y) / (ref.box.width * 1000);
    // on the tee's chest: the seeded mask follows the tee's colour, not its exact silhouette (a few % off)
    assert.ok(err <= 0.08, `print centre ${(err * 100).toFixed(1)} % of the tee's width off`);
  });

  it('a fitted zone cut by the photo\u2019s edge: zone_clipped; cut to less than half, basis "image" too', async () => {
    const ref = await referenceLandmarks('tee', 'front');
    const regions = (await detectGarmentInImage((await ownBlank('tee', 'front', '#B3262E', 400)).jpeg)) as {
      found: true;
    } & GarmentDetection;
    assert.ok(regions.found);
    // the same garment, moved up so that its print zone's top leaves the photo
    const moved = (dy: number): GarmentDetection => {
      const shift = <T extends { box: { top: number }; shoulderY: number; neckline: { x: number; y: number } }>(
        r: T,
      ): T => ({
        ...r,
        box: { ...r.box, top: r.box.top + dy },
        shoulderY: r.shoulderY + dy,
        neckline: { ...r.neckline, y: r.neckline.y + dy },
      });
      return { ...shift(regions), regions: regions.regions.map(shift) } as GarmentDetection;
    };
    const zoneTop = zone.y - ref.shoulderY + regions.shoulderY; // where the zone starts below the photo's top
    const a = await choosePrintZone({
      blank: { width: 400, height: 400, garment: moved(-zoneTop - zone.height * 0.2) },
      zone,
      silhouette: 'tee',
      view: 'front',
    });
    assert.equal(a.basis, 'garment');
    assert.equal(a.warning?.code, 'zone_clipped');
    assert.equal(a.zone.y, 0);
    const b = await choosePrintZone({
      blank: { width: 400, height: 400, garment: moved(-zoneTop - zone.height * 0.7) },
      zone,
      silhouette: 'tee',
      view: 'front',
    });
    assert.equal(b.basis, 'image');
    assert.equal(b.warning?.code, 'zone_clipped');
    assert.deepEqual(b.zone, zone);
  });
});
