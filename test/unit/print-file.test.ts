// The print-file engine (lib/print): canvas size, DPI, ICC profile and transparency of the PNG; the design placed
// where the mockup places it (the same maths, measured on both images' pixels); the size rule; every preflight check
// on designs made to trip it (and not on one made to pass); the print cost's calibration.
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { renderBlank, zonesFor } from '../../lib/blanks';
import { composite, deriveFabricMaps, prepareBlank, type Placement } from '../../lib/compositing';
import {
  CALIBRATION_AREA_IN2,
  defaultPrintSize,
  isDarkGarment,
  preflight,
  preflightPrint,
  printCostCents,
  printFileKey,
  printSourceId,
  renderPrintFile,
  sourceMockupIndex,
  storedFileName,
  thinInk,
  zoneForSize,
} from '../../lib/print';

const svgPng = (w: number, h: number, body: string) =>
  sharp(Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}">${body}</svg>`))
    .png()
    .toBuffer();

/** Bounding box of pixels with alpha >= 128 of a PNG. */
async function alphaBox(png: Buffer) {
  const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  let x0 = Infinity,
    y0 = Infinity,
    x1 = -1,
    y1 = -1;
  for (let y = 0; y < info.height; y++)
    for (let x = 0; x < info.width; x++)
      if (data[(y * info.width + x) * 4 + 3]! >= 128) {
        x0 = Math.min(x0, x);
        x1 = Math.max(x1, x);
        y0 = Math.min(y0, y);
        y1 = Math.max(y1, y);
      }
  return { left: x0, top: y0, width: x1 - x0 + 1, height: y1 - y0 + 1, W: info.width, H: info.height };
}

const FRONT = { widthIn: 12, heightIn: 16 };

describe('print files (lib/print)', function () {
  this.timeout(120_000);

  it('is a 300 DPI sRGB PNG of the zone with transparency, the design alone on it', async () => {
    const design = await svgPng(2400, 3000, '<rect width="2400" height="3000" fill="#c03020"/>');
    const f = await renderPrintFile({
      design,
      zone: FRONT,
      size: 'L',
      placement: { x: 50, y: 35, scale: 0.8, rotation: 0 },
    });
    assert.equal(f.widthPx, 3600);
    assert.equal(f.heightPx, 4800);
    const meta = await sharp(f.png).metadata();
    assert.equal(meta.format, 'png');
    assert.equal(meta.width, 3600);
    assert.equal(meta.height, 4800);
    assert.equal(meta.density, 300);
    assert.equal(meta.hasAlpha, true);
    assert.ok(meta.icc && meta.icc.length > 100, 'an ICC profile is embedded');
    assert.equal(meta.icc!.subarray(16, 20).toString('latin1'), 'RGB ');
    assert.ok(meta.icc!.includes(Buffer.from('s\0R\0G\0B', 'latin1')), 'its description is sRGB');
    // pHYs: 300 DPI = 11811 pixels per metre, unit 1
    const i = f.png.indexOf('pHYs');
    assert.ok(i > 0, 'a pHYs chunk');
    assert.equal(f.png.readUInt32BE(i + 4), 11811);
    assert.equal(f.png.readUInt32BE(i + 8), 11811);
    assert.equal(f.png[i + 12], 1);
    // placed: fitted in 0.8 x the zone (2880 x 3840) keeping 4:5 -> 2880 x 3600, centred at 50 %, 35 %
    assert.deepEqual(f.designBox, { left: 360, top: 1680 - 1800, width: 2880, height: 3600 });
    const box = await alphaBox(f.png);
    assert.deepEqual([box.left, box.top, box.width, box.height], [360, 0, 2880, 1680 + 1800]);
    // the canvas is clear around it
    const corner = await sharp(f.png).extract({ left: 0, top: 4700, width: 100, height: 100 }).raw().toBuffer();
    assert.ok(corner.every((v, k) => k % 4 !== 3 || v === 0));
    assert.equal(f.underbase, null);
    assert.equal(f.preflight.checks.find((c) => c.code === 'outside_zone')?.level, 'warning', 'the top is cut off');
  });

  it('places the design where the mockup places it (box within 1 % of the zone), rotated too', async () => {
    const size = 800;
    const jpeg = (await renderBlank({ silhouette: 'tee', view: 'front', colorHex: '#F7F7F5', size })).image;
    const blank = await prepareBlank('t/white.jpg', jpeg, await deriveFabricMaps(jpeg));
    const zone = zonesFor('tee').front!;
    const design = await svgPng(900, 600, '<rect width="900" height="600" fill="#102080"/>');
    for (const placement of [
      { x: 40, y: 30, scale: 0.5, rotation: 0 },
      { x: 55, y: 60, scale: 0.7, rotation: 30 },
    ] as Placement[]) {
      const m = await composite({ blank, design, zone: zone.rect, placement, applyTexture: false, realism: 'flat' });
      const f = await renderPrintFile({
        design,
        zone: { widthIn: zone.maxWidthIn, heightIn: zone.maxHeightIn },
        size: 'M',
        placement,
      });
      // the mockup's ink, measured: pixels changed from the blank
      const mock = await sharp(m.mockup).raw().toBuffer();
      const plain = blank.rgb;
      let x0 = Infinity,
        y0 = Infinity,
        x1 = -1,
        y1 = -1;
      for (let y = 0; y < m.height; y++)
        for (let x = 0; x < m.width; x++) {
          const o = (y * m.width + x) * 3;
          if (Math.abs(mock[o + 2]! - plain[o + 2]!) + Math.abs(mock[o]! - plain[o]!) > 120) {
            x0 = Math.min(x0, x);
            x1 = Math.max(x1, x);
            y0 = Math.min(y0, y);
            y1 = Math.max(y1, y);
          }
        }
      const zx = zone.rect.x * m.width,
        zy = zone.rect.y * m.height,
        zw = zone.rect.width * m.width,
        zh = zone.rect.height * m.height;
      const mockFrac = [(x0 - zx) / zw, (y0 - zy) / zh, (x1 + 1 - zx) / zw, (y1 + 1 - zy) / zh];
      const b = await alphaBox(f.png);
      const printFrac = [b.left / b.W, b.top / b.H, (b.left + b.width) / b.W, (b.top + b.height) / b.H];
      for (let k = 0; k < 4; k++)
        assert.ok(
          Math.abs(mockFrac[k]! - printFrac[k]!) < 0.01,
          `${JSON.stringify(placement)}: ${mockFrac} vs ${printFrac}`,
        );
      // and the reported boxes are the same placement in each image's zone
      assert.ok(Math.abs((m.designBox.left - zx) / zw - f.designBox.left / f.widthPx) < 0.01);
      assert.ok(Math.abs(m.designBox.width / zw - f.designBox.width / f.widthPx) < 0.01);
    }
  });

  it('scales the print for small sizes (the documented rule) and names M the default', async () => {
    assert.deepEqual(zoneForSize(FRONT, 'M'), { widthIn: 12, heightIn: 16, scale: 1 });
    assert.deepEqual(zoneForSize(FRONT, '2XL'), { widthIn: 12, heightIn: 16, scale: 1 });
    assert.equal(zoneForSize(FRONT, 'S').scale, 0.92);
    assert.equal(zoneForSize(FRONT, 'xs').scale, 0.83);
    assert.equal(defaultPrintSize(['S', 'M', 'L']), 'M');
    assert.equal(defaultPrintSize(['XS', 'S', 'L']), 'L');
    const design = await svgPng(1200, 1500, '<rect width="1200" height="1500" fill="#000"/>');
    const placement = { x: 50, y: 50, scale: 0.8, rotation: 0 };
    const s = await renderPrintFile({ design, zone: FRONT, size: 'S', placement });
    assert.equal(s.widthPx, Math.round(12 * 0.92 * 300));
    assert.equal(s.heightPx, Math.round(16 * 0.92 * 300));
    assert.equal(s.widthIn, 11.04);
    // same place in the smaller zone
    const m = await renderPrintFile({ design, zone: FRONT, size: 'M', placement });
    assert.ok(Math.abs(s.designBox.left / s.widthPx - m.designBox.left / m.widthPx) < 0.002);
  });

  it('flags a 600x750 design as low DPI (error) and 1200x1500 as a warning; 2400x3000 passes', async () => {
    const placement = { x: 50, y: 50, scale: 0.8, rotation: 0 };
    const at = async (w: number, h: number) =>
      (
        await renderPrintFile({
          design: await svgPng(w, h, `<rect width="${w}" height="${h}" fill="#336699"/>`),
          zone: FRONT,
          size: 'M',
          placement,
        })
      ).preflight;
    const low = await at(600, 750);
    assert.equal(low.effectiveDpi, 63);
    assert.equal(low.status, 'error');
    assert.equal(low.checks[0]!.code, 'low_dpi');
    assert.equal(low.checks[0]!.level, 'error');
    const mid = await at(1200, 1500);
    assert.equal(mid.effectiveDpi, 125);
    assert.deepEqual(
      mid.checks.map((c) => [c.code, c.level]),
      [['low_dpi', 'warning']],
    );
    const good = await at(2400, 3000);
    assert.equal(good.effectiveDpi, 250);
    assert.equal(good.status, 'pass');
    assert.deepEqual(good.checks, []);
    // the inked area: 9.6 x 12 in of solid ink
    assert.ok(Math.abs(good.inkedAreaIn2 - 9.6 * 12) < 0.2, String(good.inkedAreaIn2));
  });

  it('needs an underbase for a navy design on a black garment, and gives it as its own file', async () => {
    assert.equal(isDarkGarment('#000000'), true);
    assert.equal(isDarkGarment('#1F2A44'), true);
    assert.equal(isDarkGarment('#F7F7F5'), false);
    assert.equal(isDarkGarment('#9E9E9E'), false);
    const design = await svgPng(1000, 1000, '<circle cx="500" cy="500" r="400" fill="#1F2A44"/>');
    const f = await renderPrintFile({
      design,
      zone: { widthIn: 4, heightIn: 4 },
      size: 'M',
      placement: { x: 50, y: 50, scale: 1, rotation: 0 },
      garmentHex: '#000000',
    });
    const c = f.preflight.checks.find((x) => x.code === 'underbase_needed');
    assert.equal(c?.level, 'warning');
    assert.equal(f.preflight.underbase, true);
    assert.ok(f.underbase);
    const ub = await sharp(f.underbase).raw().toBuffer({ resolveWithObject: true });
    assert.equal(ub.info.width, 1200);
    const mid = (600 * 1200 + 600) * 4;
    assert.deepEqual([...ub.data.subarray(mid, mid + 4)], [255, 255, 255, 255], 'white ink under the design');
    assert.equal(ub.data[3], 0, 'clear outside it');
    assert.equal((await sharp(f.underbase).metadata()).density, 300);
  });

  it('flags semi-transparent ink, thin lines and a design outside the zone; not a plain solid design', async () => {
    const zone = { widthIn: 4, heightIn: 4 };
    const run = async (body: string, placement: Placement = { x: 50, y: 50, scale: 1, rotation: 0 }) =>
      (await renderPrintFile({ design: await svgPng(1200, 1200, body), zone, size: 'M', placement })).preflight;
    const codes = (r: { checks: { code: string }[] }) => r.checks.map((c) => c.code);
    assert.deepEqual(codes(await run('<rect x="100" y="100" width="1000" height="1000" fill="#222"/>')), []);
    assert.deepEqual(
      codes(await run('<rect x="100" y="100" width="1000" height="1000" fill="#222" fill-opacity="0.5"/>')),
      ['semi_transparent'],
    );
    // hairlines: 2 px wide at 300 DPI (0.5 pt), an inch and more long
    const lines = await run(
      '<rect x="100" y="100" width="600" height="600" fill="#222"/>' +
        '<rect x="100" y="900" width="1000" height="2" fill="#222"/><rect x="900" y="100" width="2" height="600" fill="#222"/>',
    );
    assert.deepEqual(codes(lines), ['thin_lines']);
    // 6 px wide (1.44 pt): fine
    assert.deepEqual(
      codes(
        await run(
          '<rect x="100" y="100" width="600" height="600" fill="#222"/><rect x="100" y="900" width="1000" height="6" fill="#222"/>',
        ),
      ),
      [],
    );
    const off = await run('<rect width="1200" height="1200" fill="#222"/>', { x: 90, y: 50, scale: 1, rotation: 0 });
    assert.deepEqual(codes(off), ['outside_zone']);
    assert.equal(off.checks[0]!.level, 'warning');
    assert.equal(off.checks[0]!.details!.sharePercent, 40);
    const gone = await run('<rect width="1200" height="1200" fill="#222"/>', {
      x: 100,
      y: 100,
      scale: 0.3,
      rotation: 45,
    });
    assert.equal(gone.status, 'warning', 'a corner still inside');
    assert.equal(
      thinInk({ data: Buffer.alloc(16), width: 2, height: 2, left: 0, top: 0 }, { width: 2, height: 2 }, 5),
      0,
    );
  });

  it('reports an error for a design entirely outside the zone', () => {
    const data = Buffer.alloc(10 * 10 * 4, 255);
    const r = preflight({
      placed: { data, width: 10, height: 10, left: 50, top: 50 },
      canvas: { width: 40, height: 40 },
      dpi: 300,
      designSize: { width: 10, height: 10 },
      placedSize: { width: 10, height: 10 },
    });
    assert.equal(r.status, 'error');
    assert.deepEqual(
      r.checks.map((c) => [c.code, c.level]),
      [['outside_zone', 'error']],
    );
  });

  it('costs the calibration print 30 USD, by inked area, double ink with an underbase', () => {
    assert.equal(printCostCents(CALIBRATION_AREA_IN2), 3000);
    assert.equal(printCostCents(0), 600);
    assert.equal(printCostCents(CALIBRATION_AREA_IN2 / 2), 1800);
    assert.equal(printCostCents(CALIBRATION_AREA_IN2, true), 5400);
    assert.throws(() => printCostCents(-1), RangeError);
  });

  it('names sources and files one way: source ids, the mockup index, the stored file name', () => {
    const gen = printSourceId.generation('gen_1_abc');
    const chat = printSourceId.chat('job_2_xyz', 1);
    assert.deepEqual([gen, chat], ['gen:gen_1_abc', 'chat:job_2_xyz:1']);
    assert.deepEqual([sourceMockupIndex(gen), sourceMockupIndex(chat)], [null, 1]);
    const key = printFileKey({ source: chat, zone: 'left-chest', size: 'S' });
    assert.equal(key, 'print-files/job_2_xyz-1/job_2_xyz-1-left-chest-S.png');
    assert.equal(storedFileName(key), 'job_2_xyz-1-left-chest-S.png');
  });

  it('preflightPrint answers the print file’s layout and preflight without making the file', async () => {
    const input = {
      design: await svgPng(600, 750, '<rect width="600" height="750" fill="#1F2A44"/>'),
      zone: { widthIn: 12, heightIn: 16 },
      size: 'M',
      placement: { x: 50, y: 50, scale: 0.8, rotation: 10 },
      garmentHex: '#1C1C1E',
    };
    const { png, underbase, ...file } = await renderPrintFile(input);
    assert.ok(png.length > 0 && underbase);
    assert.deepEqual(await preflightPrint(input), file);
    assert.deepEqual(
      file.preflight.checks.map((c) => [c.code, c.level]),
      [
        ['low_dpi', 'error'],
        ['underbase_needed', 'warning'],
      ],
    );
  });
});
