// The TEST watermark of test-mode mockups: visible red strokes along the rising diagonal, the corners untouched.
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { JPEG_QUALITY, testWatermarkSvg, watermarkTest } from '../../lib/compositing';

async function raw(jpeg: Buffer) {
  const { data, info } = await sharp(jpeg).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

const gray = (w: number, h: number, v: number) =>
  sharp({ create: { width: w, height: h, channels: 3, background: { r: v, g: v, b: v } } })
    .jpeg({ quality: 95 })
    .toBuffer();

/** Pixels that are clearly the watermark's red: red well above green and blue. */
function redShare(
  img: { data: Buffer; width: number; height: number },
  x0 = 0,
  y0 = 0,
  x1 = img.width,
  y1 = img.height,
) {
  let red = 0;
  for (let y = y0; y < y1; y++)
    for (let x = x0; x < x1; x++) {
      const i = (y * img.width + x) * 3;
      if (img.data[i]! > 150 && img.data[i + 1]! < 100 && img.data[i + 2]! < 100) red++;
    }
  return red / ((x1 - x0) * (y1 - y0));
}

describe('TEST watermark (lib/compositing/watermark.ts)', () => {
  it('draws red strokes across the middle of light and dark images, same size, corners untouched', async () => {
    for (const v of [235, 40]) {
      const before = await raw(await gray(800, 600, v));
      const marked = await raw(await watermarkTest(await gray(800, 600, v), JPEG_QUALITY));
      assert.equal(marked.width, 800);
      assert.equal(marked.height, 600);
      assert.equal(redShare(before), 0);
      // the middle third holds much of the word; a corner holds none of it
      assert.ok(redShare(marked, 267, 200, 533, 400) > 0.05, `red in the middle on gray ${v}`);
      assert.equal(redShare(marked, 0, 0, 80, 60), 0, 'top-left corner untouched');
      assert.equal(redShare(marked, 720, 540, 800, 600), 0, 'bottom-right corner untouched');
      const corner = (marked.data[0]! + marked.data[1]! + marked.data[2]!) / 3;
      assert.ok(Math.abs(corner - v) < 6, `corner keeps its gray (${corner} vs ${v})`);
    }
  });

  it('runs along the rising diagonal: its ends are near the bottom-left and top-right, not the other corners', async () => {
    const marked = await raw(await watermarkTest(await gray(900, 900, 200), JPEG_QUALITY));
    const q = (x: number, y: number) => redShare(marked, x, y, x + 300, y + 300);
    assert.ok(q(0, 600) > 0.01 && q(600, 0) > 0.01, 'strokes in the bottom-left and top-right thirds');
    assert.equal(q(0, 0), 0, 'nothing in the top-left third');
    assert.equal(q(600, 600), 0, 'nothing in the bottom-right third');
  });

  it('is an SVG of the image size, drawn without any font', () => {
    const svg = testWatermarkSvg(400, 300);
    assert.match(svg, /^<svg [^>]*width="400" height="300"/);
    assert.doesNotMatch(svg, /<text/);
  });

  it('refuses bytes that are not an image', async () => {
    await assert.rejects(watermarkTest(Buffer.from('not an image'), JPEG_QUALITY));
  });
});
