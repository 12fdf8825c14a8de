// Blend-mode maths of the templates compositor: the per-channel formulas at known points, Photoshop's edge cases
// (measured on its composites), the non-separable modes, and the alpha compositing around them.
import assert from 'node:assert/strict';
import { BLEND_MODES, blendInto, blendLut, isSeparable, nonSeparable, separable } from '../../lib/templates/blend';
import { rasterizeVectorMask } from '../../lib/templates/vector';

const close = (a: number, b: number, eps = 1e-9) => assert.ok(Math.abs(a - b) <= eps, `${a} != ${b}`);

describe('templates blend modes', () => {
  it('separable formulas at known points', () => {
    close(separable('multiply', 0.5, 0.5), 0.25);
    close(separable('screen', 0.5, 0.5), 0.75);
    close(separable('overlay', 0.25, 0.5), 0.25);
    close(separable('overlay', 0.75, 0.25), 0.625);
    close(separable('hard light', 0.25, 0.75), 0.625);
    close(separable('soft light', 0.25, 0.5), 0.25);
    close(separable('soft light', 0.25, 1), 0.5);
    close(separable('color burn', 0.5, 0.5), 0);
    close(separable('color dodge', 0.25, 0.5), 0.5);
    close(separable('linear burn', 0.7, 0.5), 0.2);
    close(separable('linear dodge', 0.7, 0.5), 1);
    close(separable('linear light', 0.5, 0.75), 1);
    close(separable('pin light', 0.8, 0.25), 0.5);
    close(separable('pin light', 0.2, 0.75), 0.5);
    close(separable('difference', 0.2, 0.75), 0.55);
    close(separable('exclusion', 0.5, 0.5), 0.5);
    close(separable('subtract', 0.5, 0.75), 0);
    close(separable('divide', 0.25, 0.5), 0.5);
    close(separable('darken', 0.3, 0.6), 0.3);
    close(separable('lighten', 0.3, 0.6), 0.6);
  });

  it("Photoshop's edge cases: vivid light's source extremes win, hard mix keeps the backdrop on its threshold", () => {
    assert.equal(separable('vivid light', 0, 1), 1);
    assert.equal(separable('vivid light', 1, 0), 0);
    assert.equal(separable('hard mix', 0, 1), 0);
    assert.equal(separable('hard mix', 1, 0), 1);
    assert.equal(separable('hard mix', 0.6, 0.6), 1);
    assert.equal(separable('hard mix', 0.3, 0.3), 0);
  });

  it('every mode of the list has a formula; the LUT rounds it to 8 bits', () => {
    for (const m of BLEND_MODES) {
      if (isSeparable(m))
        assert.equal(blendLut(m)[128 * 256 + 64], Math.round(255 * separable(m, 128 / 255, 64 / 255)));
      else {
        const out = [0, 0, 0];
        nonSeparable(m, 200, 100, 50, 20, 120, 220, out);
        for (const v of out) assert.ok(v >= 0 && v <= 255, `${m}: ${v}`);
      }
    }
  });

  it('non-separable modes keep the luminosity they should', () => {
    const lum = (c: number[]) => 0.3 * c[0]! + 0.59 * c[1]! + 0.11 * c[2]!;
    const out = [0, 0, 0];
    nonSeparable('color', 100, 100, 100, 200, 50, 50, out);
    close(lum(out), 100, 1e-6);
    nonSeparable('luminosity', 200, 50, 50, 100, 100, 100, out);
    close(lum(out), 100, 1e-6);
    nonSeparable('darker color', 0, 255, 0, 255, 0, 0, out);
    assert.deepEqual(out, [255, 0, 0]); // red is darker than green in luminance though their sums are equal
  });

  it('alpha compositing: half-opaque multiply over an opaque and over a half-transparent backdrop', () => {
    const dst = new Uint8ClampedArray([200, 100, 50, 255, 200, 100, 50, 128]);
    const src = new Uint8Array([128, 128, 128, 255, 128, 128, 128, 255]);
    blendInto({ dst, dw: 2, src, sw: 2, sh: 1, sx: 0, sy: 0, mode: 'multiply', opacity: 0.5, fill: 1 });
    // opaque backdrop: halfway between the backdrop and the product
    assert.deepEqual([...dst.subarray(0, 4)], [150, 75, 38, 255]);
    // half-transparent backdrop: coverage 0.5 + 0.5 * 0.5, colour mixed by W3C compositing
    assert.equal(dst[7], 192);
    // W3C: ((1 - ab) * cs + ab * B(cb, cs)) * as + cb * ab * (1 - as), over the resulting coverage
    const ab = 128 / 255;
    const B = Math.round((200 * 128) / 255);
    const expected = (((1 - ab) * 128 + ab * B) * 0.5 + 200 * ab * 0.5) / (0.5 + ab * 0.5);
    assert.ok(Math.abs(dst[4]! - expected) <= 1, `${dst[4]} vs ${expected}`);
  });

  it('fill opacity fades inside the blend for the eight special modes, like opacity for the others', () => {
    const run = (mode: string, opacity: number, fill: number) => {
      const dst = new Uint8ClampedArray([100, 100, 100, 255]);
      blendInto({
        dst,
        dw: 1,
        src: new Uint8Array([200, 200, 200, 255]),
        sw: 1,
        sh: 1,
        sx: 0,
        sy: 0,
        mode,
        opacity,
        fill,
      });
      return dst[0];
    };
    assert.equal(run('multiply', 0.5, 1), run('multiply', 1, 0.5));
    assert.equal(run('screen', 1, 0), 100);
  });

  it('vector masks: a square path covers its pixels, half a pixel at its edges; subtract and invert', () => {
    const sq = (x0: number, y0: number, x1: number, y1: number, operation = 'combine') => ({
      open: false,
      operation,
      fillRule: 'even-odd',
      knots: [
        [x0, y0],
        [x1, y0],
        [x1, y1],
        [x0, y1],
      ].map(([x, y]) => ({ points: [x!, y!, x!, y!, x!, y!] })),
    });
    const r = { x: 0, y: 0, w: 10, h: 10 };
    const m = rasterizeVectorMask([sq(2, 2, 6.5, 6)], false, false, r);
    assert.equal(m.data[3 * 10 + 3], 255);
    assert.equal(m.data[3 * 10 + 6], 128); // x 6..7 half covered
    assert.equal(m.data[8 * 10 + 8], 0);
    const hole = rasterizeVectorMask([sq(0, 0, 10, 10), sq(4, 4, 6, 6, 'subtract')], false, false, r);
    assert.equal(hole.data[5 * 10 + 5], 0);
    assert.equal(hole.data[1 * 10 + 1], 255);
    const inv = rasterizeVectorMask([sq(2, 2, 6, 6)], true, false, r);
    assert.equal(inv.data[3 * 10 + 3], 0);
    assert.equal(inv.data[8 * 10 + 8], 255);
  });
});
