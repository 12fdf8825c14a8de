// The mip pyramid the templates engine samples reduced content from (lib/templates/sample.ts): level k's pixel i
// covers the content's pixels [2^k i, 2^k (i + 1)) exactly, so an odd width or height must keep its last column or
// row (half covered) rather than drop it. Dropped, the right and bottom edges of every reduced smart object moved in
// by up to 2^k - 1 content px (issue 32: Photoshop's right and bottom edges looked as if they overshot ours).
import assert from 'node:assert/strict';
import { buildMips, tap } from '../../lib/templates/sample';

function opaque(w: number, h: number): Float32Array {
  return new Float32Array(w * h * 4).fill(1);
}

describe('templates engine: mip pyramid of odd-sized content', () => {
  it('every level spans the whole image and keeps its coverage', () => {
    const [w, h] = [999, 37];
    const { levels } = buildMips(opaque(w, h), w, h);
    for (let k = 0; k < levels.length; k++) {
      const L = levels[k]!;
      assert.equal(L.w, Math.ceil(w / 2 ** k), `level ${k} width`);
      assert.equal(L.h, Math.ceil(h / 2 ** k), `level ${k} height`);
      let a = 0;
      for (let i = 3; i < L.data.length; i += 4) a += L.data[i]!;
      // each level pixel stands for 4^k content pixels: the covered area is the image's
      assert.ok(Math.abs(a * 4 ** k - w * h) < 1e-3 * w * h, `level ${k}: coverage ${a * 4 ** k} vs ${w * h}`);
    }
  });

  it('the right and bottom edges stay where the content ends at every level', () => {
    const [w, h] = [13, 11];
    const { levels } = buildMips(opaque(w, h), w, h);
    const acc = new Float64Array(4);
    for (let k = 1; k < 3; k++) {
      const s = 1 / 2 ** k;
      // half a content pixel inside the right edge and outside it: covered, then not (bilinear at the level)
      acc.fill(0);
      tap(levels[k]!, (w - 0.5) * s, (h / 2) * s, 1, acc);
      const inside = acc[3]!;
      acc.fill(0);
      tap(levels[k]!, (w + 2 ** k) * s, (h / 2) * s, 1, acc);
      assert.ok(inside > 0.4, `level ${k}: alpha ${inside.toFixed(2)} just inside the right edge`);
      assert.ok(acc[3]! < 0.3, `level ${k}: alpha ${acc[3]!.toFixed(2)} a level pixel past it`);
      acc.fill(0);
      tap(levels[k]!, (w / 2) * s, (h - 0.5) * s, 1, acc);
      assert.ok(acc[3]! > 0.4, `level ${k}: alpha ${acc[3]!.toFixed(2)} just inside the bottom edge`);
    }
  });
});
