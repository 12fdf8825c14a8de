// Print files through HTTP on the real stack (issue 36): GET /api/v1/generations/<id>/print-file makes the file once
// (pixel size of the zone at 300 DPI, pHYs, sRGB ICC profile, transparency), with the design where the mockup has it
// (within 1 % of the zone, measured on both images); sizes; preflight of a low-resolution design and of a navy
// design on a black garment (its underbase file); errors.
import assert from 'node:assert/strict';
import sharp from 'sharp';
import * as inspect from '../helpers/db-inspect';
import { account, http } from '../helpers/http';
import { storeDesign, useStack } from '../helpers/stack';
import { perspectiveTemplatePsd } from '../helpers/template-psd';

const svgPng = (w: number, h: number, body: string) =>
  sharp(Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}">${body}</svg>`))
    .png()
    .toBuffer();

async function download(url: string): Promise<Buffer> {
  const res = await fetch(url);
  assert.equal(res.status, 200, url);
  assert.equal(res.headers.get('content-type'), 'image/png');
  return Buffer.from(await res.arrayBuffer());
}

/** Box of the pixels with alpha >= 128. */
async function inkBox(png: Buffer) {
  const { data, info } = await sharp(png).ensureAlpha().extractChannel(3).raw().toBuffer({ resolveWithObject: true });
  let x0 = Infinity,
    y0 = Infinity,
    x1 = -1,
    y1 = -1;
  for (let y = 0; y < info.height; y++)
    for (let x = 0; x < info.width; x++)
      if (data[y * info.width + x]! >= 128) {
        if (x < x0) x0 = x;
        if (x > x1) x1 = x;
        if (y < y0) y0 = y;
        if (y > y1) y1 = y;
      }
  return { left: x0, top: y0, width: x1 - x0 + 1, height: y1 - y0 + 1 };
}

describe('print files: GET /api/v1/generations/<id>/print-file', function () {
  this.timeout(180_000);
  const stack = useStack('print-files', { env: { ALLOW_PRIVATE_URLS: 'true' } });
  let acct: { key: string; cookie: string };
  let tee: any;

  before(async () => {
    acct = await account(stack.baseUrl);
    const list = await http(stack.baseUrl, 'GET', '/api/v1/garments?category=t-shirts&limit=1', { key: acct.key });
    tee = list.body.garments[0];
  });

  async function generate(design: Buffer, color: any, placement: object) {
    const res = await http(stack.baseUrl, 'POST', '/api/v1/generate', {
      key: acct.key,
      json: {
        designUrl: await storeDesign(stack, design),
        garmentId: tee.id,
        garmentImageUrl: color.imageUrl,
        color: color.name,
        placement,
      },
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.status, 'completed');
    return res.body;
  }

  it('makes the print file once: zone size at 300 DPI, sRGB, transparent, the design where the mockup has it', async () => {
    const white = tee.colors.find((c: any) => c.name === 'White') ?? tee.colors[0];
    const front = tee.printZones.find((z: any) => z.id === 'front');
    const placement = { x: 45, y: 40, scale: 0.6, rotation: 0 };
    const gen = await generate(
      await svgPng(2400, 3000, '<rect width="2400" height="3000" fill="#c02030"/>'),
      white,
      placement,
    );
    const res = await http(stack.baseUrl, 'GET', `/api/v1/generations/${gen.id}/print-file`, { key: acct.key });
    assert.equal(res.status, 200, res.text);
    const f = res.body;
    assert.equal(f.generationId, gen.id);
    assert.equal(f.size, 'M');
    assert.equal(f.zone, 'front');
    assert.equal(f.color, white.name);
    assert.equal(f.widthPx, Math.round(front.maxWidth * 300));
    assert.equal(f.heightPx, Math.round(front.maxHeight * 300));
    assert.equal(f.dpi, 300);
    assert.equal(f.fileName, `${gen.id}-front-M.png`);
    assert.equal(f.underbaseUrl, null);
    assert.equal(f.preflight.status, 'pass', JSON.stringify(f.preflight));

    const png = await download(f.url);
    const meta = await sharp(png).metadata();
    assert.deepEqual(
      [meta.format, meta.width, meta.height, meta.density, meta.hasAlpha],
      ['png', f.widthPx, f.heightPx, 300, true],
    );
    assert.ok(meta.icc!.includes(Buffer.from('s\0R\0G\0B', 'latin1')), 'an sRGB ICC profile');
    const phys = png.indexOf('pHYs');
    assert.equal(png.readUInt32BE(phys + 4), 11811, '300 DPI in pixels per metre');

    // the design's box on the print, as fractions of the zone, against the mockup's (its zone and design box in the
    // blank's pixels, and the ink measured on the mockup)
    const box = await inkBox(png);
    const area = gen.printArea;
    const mockFrac = (b: any) => [
      (b.left - area.left) / area.width,
      (b.top - area.top) / area.height,
      b.width / area.width,
      b.height / area.height,
    ];
    const printFrac = [box.left / f.widthPx, box.top / f.heightPx, box.width / f.widthPx, box.height / f.heightPx];
    const mockup = await sharp(Buffer.from(await (await fetch(gen.mockupUrl)).arrayBuffer()))
      .raw()
      .toBuffer({ resolveWithObject: true });
    // red ink on the white tee: red well above green
    let x0 = Infinity,
      y0 = Infinity,
      x1 = -1,
      y1 = -1;
    const { data, info } = mockup;
    for (let y = 0; y < info.height; y++)
      for (let x = 0; x < info.width; x++) {
        const o = (y * info.width + x) * info.channels;
        if (data[o]! - data[o + 1]! > 80) {
          x0 = Math.min(x0, x);
          x1 = Math.max(x1, x);
          y0 = Math.min(y0, y);
          y1 = Math.max(y1, y);
        }
      }
    const measured = mockFrac({ left: x0, top: y0, width: x1 - x0 + 1, height: y1 - y0 + 1 });
    const reported = mockFrac(gen.designBox);
    for (let k = 0; k < 4; k++) {
      assert.ok(Math.abs(printFrac[k]! - reported[k]!) < 0.01, `reported box ${reported} vs print ${printFrac}`);
      assert.ok(Math.abs(printFrac[k]! - measured[k]!) < 0.01, `mockup ink ${measured} vs print ${printFrac}`);
    }

    // once: the same file again
    const again = await http(stack.baseUrl, 'GET', `/api/v1/generations/${gen.id}/print-file?size=M`, {
      key: acct.key,
    });
    assert.equal(again.status, 200);
    assert.deepEqual(again.body, f);
    assert.equal((await inspect.printFileIds([gen.id])).length, 1);

    // a smaller size: a smaller zone, named for its size
    const s = await http(stack.baseUrl, 'GET', `/api/v1/generations/${gen.id}/print-file?size=S`, { key: acct.key });
    assert.equal(s.status, 200, s.text);
    assert.equal(s.body.widthPx, Math.round(front.maxWidth * 0.92 * 300));
    assert.equal(s.body.fileName, `${gen.id}-front-S.png`);
    assert.notEqual(s.body.id, f.id);

    const bad = await http(stack.baseUrl, 'GET', `/api/v1/generations/${gen.id}/print-file?size=XXXL`, {
      key: acct.key,
    });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.code, 'invalid_request');
    assert.match(bad.body.error.message, /not a size/);
    const extra = await http(stack.baseUrl, 'GET', `/api/v1/generations/${gen.id}/print-file?colour=red`, {
      key: acct.key,
    });
    assert.equal(extra.status, 400);
  });

  it('preflights a 600x750 design as low DPI and a navy design on black as needing an underbase', async () => {
    const white = tee.colors.find((c: any) => c.name === 'White') ?? tee.colors[0];
    const small = await generate(await svgPng(600, 750, '<rect width="600" height="750" fill="#208040"/>'), white, {
      x: 50,
      y: 50,
      scale: 0.8,
      rotation: 0,
    });
    const low = await http(stack.baseUrl, 'GET', `/api/v1/generations/${small.id}/print-file`, { key: acct.key });
    assert.equal(low.status, 200, low.text);
    const dpi = low.body.preflight.checks.find((c: any) => c.code === 'low_dpi');
    assert.ok(dpi, JSON.stringify(low.body.preflight));
    assert.equal(dpi.level, 'error');
    assert.ok(low.body.preflight.effectiveDpi < 100);
    assert.equal(low.body.preflight.status, 'error');

    const black = tee.colors.find((c: any) => c.name === 'Black');
    assert.ok(black, 'the tee comes in black');
    const navy = await generate(
      await svgPng(2400, 3000, '<circle cx="1200" cy="1500" r="1100" fill="#1F2A44"/>'),
      black,
      { x: 50, y: 45, scale: 0.8, rotation: 0 },
    );
    const dark = await http(stack.baseUrl, 'GET', `/api/v1/generations/${navy.id}/print-file`, { key: acct.key });
    assert.equal(dark.status, 200, dark.text);
    const ub = dark.body.preflight.checks.find((c: any) => c.code === 'underbase_needed');
    assert.ok(ub, JSON.stringify(dark.body.preflight));
    assert.equal(dark.body.preflight.underbase, true);
    assert.match(dark.body.underbaseUrl, /-front-M-underbase\.png$/);
    const under = await download(dark.body.underbaseUrl);
    const m = await sharp(under).metadata();
    assert.deepEqual([m.width, m.height, m.density], [dark.body.widthPx, dark.body.heightPx, 300]);
    const centre = await sharp(under)
      .extract({
        left: Math.round(dark.body.widthPx / 2),
        top: Math.round(dark.body.heightPx * 0.45),
        width: 1,
        height: 1,
      })
      .raw()
      .toBuffer();
    assert.deepEqual([...centre], [255, 255, 255, 255], 'white ink under the navy');

    // before Generate (the studio's check): POST /print-preflight of the same placement answers the same layout and
    // the same preflight as the print file made afterwards, and keeps nothing
    const files = await inspect.printFileCount();
    for (const [gen, file, color] of [
      [small, low.body, 'White'],
      [navy, dark.body, 'Black'],
    ] as const) {
      const pre = await http(stack.baseUrl, 'POST', '/api/v1/print-preflight', {
        key: acct.key,
        json: { designUrl: gen.designUrl, garmentId: tee.id, color, zone: 'front', placement: gen.placement },
      });
      assert.equal(pre.status, 200, pre.text);
      assert.deepEqual(pre.body, {
        garmentId: tee.id,
        color,
        zone: 'front',
        size: 'M',
        widthPx: file.widthPx,
        heightPx: file.heightPx,
        dpi: 300,
        widthIn: file.widthIn,
        heightIn: file.heightIn,
        designBox: file.designBox,
        preflight: file.preflight,
      });
    }
    assert.equal(await inspect.printFileCount(), files, 'nothing made');
  });

  it('POST /print-preflight: sizes follow the size rule; bad input is a 400, an unknown garment 404, no key 401', async () => {
    const designUrl = await storeDesign(
      stack,
      await svgPng(1200, 1500, '<rect width="1200" height="1500" fill="#333"/>'),
    );
    const ask = (json: object) => http(stack.baseUrl, 'POST', '/api/v1/print-preflight', { key: acct.key, json });
    const base = { designUrl, garmentId: tee.id, placement: { x: 50, y: 40, scale: 0.8, rotation: 0 } };
    const s = await ask({ ...base, size: 'S' });
    assert.equal(s.status, 200, s.text);
    assert.deepEqual([s.body.size, s.body.widthIn, s.body.heightIn], ['S', 11.04, 14.72]);
    assert.equal(s.body.color, tee.colors[0].name, "the garment's first colour by default");
    let res = await ask({ ...base, size: 'XXXXL' });
    assert.equal(res.status, 400, res.text);
    assert.match(res.body.error.message, /^size: XXXXL is not a size of /);
    res = await ask({ ...base, color: 'Plaid' });
    assert.equal(res.status, 400, res.text);
    assert.match(res.body.error.message, /^color: Plaid is not a colour of /);
    res = await ask({ ...base, zone: 'sleeve' });
    assert.equal(res.status, 400, res.text);
    res = await ask({ ...base, placement: { x: 50, y: 50, scale: 7, rotation: 0 } });
    assert.equal(res.status, 400, res.text);
    res = await ask({ ...base, extra: 1 });
    assert.equal(res.status, 400, res.text);
    res = await ask({ ...base, designUrl: await storeDesign(stack, Buffer.from('not an image')) });
    assert.equal(res.status, 400, res.text);
    assert.equal(res.body.error.code, 'invalid_request');
    res = await ask({ ...base, garmentId: 'no-such-garment' });
    assert.equal(res.status, 404, res.text);
    res = await http(stack.baseUrl, 'POST', '/api/v1/print-preflight', { json: base });
    assert.equal(res.status, 401, res.text);
  });

  it('answers 404 for an unknown or foreign generation and 409 for one not completed', async () => {
    const other = await account(stack.baseUrl);
    const white = tee.colors[0];
    const gen = await generate(await svgPng(400, 400, '<rect width="400" height="400" fill="#333"/>'), white, {
      x: 50,
      y: 50,
      scale: 0.5,
      rotation: 0,
    });
    let res = await http(stack.baseUrl, 'GET', `/api/v1/generations/${gen.id}/print-file`, { key: other.key });
    assert.equal(res.status, 404);
    assert.equal(res.body.error.code, 'not_found');
    res = await http(stack.baseUrl, 'GET', '/api/v1/generations/gen_1_nope/print-file', { key: acct.key });
    assert.equal(res.status, 404);
    res = await http(stack.baseUrl, 'GET', `/api/v1/generations/${gen.id}/print-file`);
    assert.equal(res.status, 401);
    await inspect.setGenerationStatus(gen.id, 'processing');
    res = await http(stack.baseUrl, 'GET', `/api/v1/generations/${gen.id}/print-file`, { key: acct.key });
    assert.equal(res.status, 409);
    assert.equal(res.body.error.code, 'conflict');
  });

  async function templateRender(ppi: number | undefined, placement?: object) {
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(perspectiveTemplatePsd(1, { ppi }))]), 'Card on a wall.psd');
    const tpl = await http(stack.baseUrl, 'POST', '/api/v1/templates', { key: acct.key, body: form });
    assert.equal(tpl.status, 201, tpl.text);
    const design = await sharp({ create: { width: 600, height: 300, channels: 4, background: '#c03030' } })
      .png()
      .toBuffer();
    const gen = await http(stack.baseUrl, 'POST', '/api/v1/generate', {
      key: acct.key,
      json: { templateId: tpl.body.id, designUrl: await storeDesign(stack, design), ...(placement && { placement }) },
    });
    assert.equal(gen.status, 200, gen.text);
    assert.equal(gen.body.status, 'completed');
    return { tpl: tpl.body, gen: gen.body };
  }

  it("makes a template render's print file on its smart object's physical size, the design where the render has it", async () => {
    // the smart object's 400 x 400 px content kept at 100 ppi: 4 x 4 in, 1200 x 1200 px at 300 DPI
    const placement = { x: 40, y: 55, scale: 0.5, rotation: 0 };
    const { tpl, gen } = await templateRender(100, placement);
    assert.deepEqual(Object.keys(tpl.smartObjects[0]).sort(), [
      'blendMode',
      'height',
      'id',
      'name',
      'quad',
      'warp',
      'width',
    ]);
    const res = await http(stack.baseUrl, 'GET', `/api/v1/generations/${gen.id}/print-file`, { key: acct.key });
    assert.equal(res.status, 200, res.text);
    const f = res.body;
    assert.deepEqual(
      [f.widthPx, f.heightPx, f.dpi, f.widthIn, f.heightIn, f.size, f.zone, f.color, f.underbaseUrl],
      [1200, 1200, 300, 4, 4, 'One size', 'smart-object-1', '', null],
    );
    assert.equal(f.fileName, `${gen.id}-smart-object-1-One_size.png`);
    const png = await download(f.url);
    const meta = await sharp(png).metadata();
    assert.deepEqual([meta.width, meta.height, meta.density, meta.hasAlpha], [1200, 1200, 300, true]);
    assert.ok(meta.icc!.includes(Buffer.from('s\0R\0G\0B', 'latin1')), 'an sRGB ICC profile');
    // the 2:1 design fitted in half the smart object (600 x 600 px) is 600 x 300, centred at 40 %, 55 %
    const box = await inkBox(png);
    const want = { left: 480 - 300, top: 660 - 150, width: 600, height: 300 };
    for (const k of ['left', 'top', 'width', 'height'] as const)
      assert.ok(Math.abs(box[k] - want[k]) <= 12, `${k}: ${box[k]} vs ${want[k]} (1 % of the canvas)`);
    assert.deepEqual(f.designBox, want);
    // made once; one size only
    const again = await http(stack.baseUrl, 'GET', `/api/v1/generations/${gen.id}/print-file?size=One%20size`, {
      key: acct.key,
    });
    assert.equal(again.status, 200, again.text);
    assert.equal(again.body.id, f.id);
    const s = await http(stack.baseUrl, 'GET', `/api/v1/generations/${gen.id}/print-file?size=S`, { key: acct.key });
    assert.equal(s.status, 400, s.text);
    assert.equal(s.body.error.message, `size: S is not a size of ${tpl.name} (One size)`);
  });

  it('answers 409 for a template render whose smart object has no usable physical size', async () => {
    // 10 ppi: the 400 px content reads as 40 x 40 in, larger than any press
    const big = await templateRender(10);
    let res = await http(stack.baseUrl, 'GET', `/api/v1/generations/${big.gen.id}/print-file`, { key: acct.key });
    assert.equal(res.status, 409, res.text);
    assert.equal(res.body.error.code, 'conflict');
    assert.equal(
      res.body.error.message,
      `Generation ${big.gen.id} is a render on template ${big.tpl.id}: its smart object "Your design here" is 40 x 40 ` +
        'in at 10 ppi, larger than the 24 in a print may be on a side (set its resolution in Photoshop)',
    );
    // a template imported before print sizes were read keeps none
    const old = await templateRender(undefined);
    assert.deepEqual(
      await inspect.templatePrintSize(old.tpl.id),
      { widthIn: 5.556, heightIn: 5.556, ppi: 72 },
      'ag-psd writes 72 ppi by default',
    );
    await inspect.forgetTemplatePrintSize(old.tpl.id);
    res = await http(stack.baseUrl, 'GET', `/api/v1/generations/${old.gen.id}/print-file`, { key: acct.key });
    assert.equal(res.status, 409, res.text);
    assert.match(res.body.error.message, /smart object "Your design here" keeps no resolution/);
    assert.deepEqual(await inspect.printFileIds([big.gen.id, old.gen.id]), []);
  });
});
