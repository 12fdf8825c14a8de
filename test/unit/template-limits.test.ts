// The hostile-file checks that run before ag-psd reads a template (lib/templates/limits.ts): every refusal is a
// TemplateLimitError naming what was wrong, found from headers and lengths alone, fast and without allocating pixels.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import {
  checkTemplateFile,
  TEMPLATE_LIMITS,
  TemplateLimitError,
  type TemplateLimitReason,
} from '../../lib/templates/limits';
import { mockupPsd, rawPsd, zipChannel, type RawLayer } from '../helpers/psd';

function refused(bytes: Buffer, reason: TemplateLimitReason, message?: RegExp): TemplateLimitError {
  const before = process.memoryUsage().arrayBuffers;
  const start = performance.now();
  let caught: unknown;
  try {
    checkTemplateFile(bytes);
  } catch (err) {
    caught = err;
  }
  assert.ok(caught instanceof TemplateLimitError, `expected a TemplateLimitError, got ${String(caught)}`);
  assert.equal(caught.reason, reason, caught.message);
  if (message) assert.match(caught.message, message);
  // nothing near the claimed sizes was allocated, and the refusal is quick
  assert.ok(process.memoryUsage().arrayBuffers - before < 64 * 1024 ** 2, 'the check allocated pixel memory');
  assert.ok(performance.now() - start < 5000);
  return caught;
}

const box = (w: number, h: number): RawLayer => ({ top: 0, left: 0, bottom: h, right: w });

describe('template limits: hostile files refused before reading', () => {
  it('accepts a mockup written by ag-psd (PSD and PSB) and counts what it holds', () => {
    for (const psb of [false, true]) {
      const scan = checkTemplateFile(mockupPsd({ psb }));
      assert.equal(scan.format, psb ? 'psb' : 'psd');
      assert.deepEqual([scan.width, scan.height, scan.smartObjects, scan.embeddedFiles], [600, 400, 1, 1]);
      assert.equal(scan.layers, 4);
      // background, design box, two full-canvas layers, the composite, the embedded document's layer and composite
      assert.ok(scan.decodedBytes >= 600 * 400 * 4 * 4);
    }
  });

  it("accepts every file of the engine's corpus (test/fixtures/templates)", () => {
    const dir = path.join(__dirname, '../fixtures/templates');
    const files = readdirSync(dir).filter((f) => /\.ps[db]$/i.test(f));
    assert.ok(files.length > 0);
    for (const f of files) {
      const scan = checkTemplateFile(readFileSync(path.join(dir, f)));
      assert.ok(scan.width > 0 && scan.layers > 0, f);
    }
  });

  it('a 30000x30000 canvas', () => {
    const psd = rawPsd({ width: 10, height: 10, layers: [], composite: false });
    psd.writeUInt32BE(30000, 14);
    psd.writeUInt32BE(30000, 18);
    const err = refused(psd, 'canvas_too_large', /30000x30000 pixels/);
    assert.equal(err.details.maxSide, TEMPLATE_LIMITS.maxSide);
  });

  it('a layer claiming 2 GB: by its bounds, and by its channel length', () => {
    refused(rawPsd({ width: 100, height: 100, layers: [box(25_000, 25_000)] }), 'layer_too_large', /Layer 1/);
    const liar: RawLayer = { ...box(10, 10), channels: [{ id: 0, length: 2 ** 31, data: Buffer.from([0, 0, 1, 2]) }] };
    refused(rawPsd({ width: 100, height: 100, layers: [liar] }), 'truncated');
  });

  it('10 000 nested groups, and groups nested deeper than the limit', () => {
    const nested = (n: number): RawLayer[] => [
      ...Array.from({ length: n }, (): RawLayer => ({ divider: 3 })),
      ...Array.from({ length: n }, (): RawLayer => ({ divider: 1 })),
    ];
    refused(
      rawPsd({ width: 10, height: 10, layers: nested(5000).concat(nested(5000)).slice(0, 20_000) }),
      'too_many_layers',
    );
    refused(rawPsd({ width: 10, height: 10, layers: nested(TEMPLATE_LIMITS.maxGroupDepth + 1) }), 'groups_too_deep');
    assert.equal(checkTemplateFile(rawPsd({ width: 10, height: 10, layers: nested(3) })).groupDepth, 3);
  });

  it('a truncated file', () => {
    const whole = mockupPsd();
    for (const at of [10, 30, Math.floor(whole.length / 3), whole.length - 100])
      refused(whole.subarray(0, at), 'truncated');
  });

  it('a PNG renamed .psd, and other files that are no PSD', async () => {
    const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#f00' } })
      .png()
      .toBuffer();
    refused(png, 'not_psd', /looks like a PNG image/);
    refused(Buffer.from('%PDF-1.7 hello'), 'not_psd');
    refused(Buffer.alloc(0), 'not_psd');
  });

  it('a ZIP channel that inflates past its layer (a zip bomb), and RLE counts past the data', () => {
    const bomb: RawLayer = { ...box(10, 10), channels: [{ id: 0, length: 0, data: zipChannel(50 * 1024 ** 2) }] };
    bomb.channels![0]!.length = bomb.channels![0]!.data.length;
    refused(rawPsd({ width: 100, height: 100, layers: [bomb] }), 'too_much_pixel_data', /inflates/);
    // RLE: compression 1, ten rows claiming 60 000 bytes each, then 4 bytes of data
    const table = Buffer.alloc(20);
    for (let r = 0; r < 10; r++) table.writeUInt16BE(60_000, r * 2);
    const rle = Buffer.concat([Buffer.from([0, 1]), table, Buffer.alloc(4)]);
    refused(
      rawPsd({
        width: 100,
        height: 100,
        layers: [{ ...box(10, 10), channels: [{ id: 0, length: rle.length, data: rle }] }],
      }),
      'truncated',
    );
  });

  it('many large layers whose pixels together pass the memory limit', () => {
    const layers = Array.from({ length: 40 }, () => box(8000, 8000)); // 40 x 256 MB once read
    refused(rawPsd({ width: 8000, height: 8000, layers, composite: false }), 'too_much_pixel_data', /1024 MiB/);
  });
});
