// The templates engine with several designs and with displacement: smart objects that overlap are filled in layer
// order (each at its own stack position, with the layers between them), and displace "auto" moves a design along the
// folds of the photo under it while "off" maps it through the transform only. The oracle of a render is the same
// template written with the designs as its smart objects' own content (test/helpers/template-stack.ts).
import assert from 'node:assert/strict';
import {
  parseTemplate,
  prepareTemplate,
  psnr,
  renderOwnContent,
  renderTemplate,
  renderPlan,
  renderTemplateOrderedRgb,
  type RawImage,
} from '../../lib/templates';
import { clippedTemplatePsd, foldedTemplatePsd, overlappingTemplatePsd, stripes } from '../helpers/template-stack';

const grey = stripes(100, 100, [128, 128, 128], [128, 128, 128]);
const red = stripes(100, 100, [220, 30, 40], [250, 200, 20]);
const blue = stripes(100, 100, [30, 60, 220], [20, 200, 160]);

const prepared = (psd: Buffer) => prepareTemplate(parseTemplate(psd));
const oracle = (psd: Buffer) => renderOwnContent(prepared(psd));

/** Pixels (over the whole image) where two renders differ by more than `tol` in some channel. */
function differing(a: RawImage, b: RawImage, tol = 8): number {
  let n = 0;
  for (let i = 0; i < a.data.length; i += 4)
    for (let c = 0; c < 4; c++)
      if (Math.abs(a.data[i + c]! - b.data[i + c]!) > tol) {
        n++;
        break;
      }
  return n;
}

/** `a` and `b` have the same RGBA at each of the points. */
function samePixelsAt(a: RawImage, b: RawImage, points: [number, number][]): void {
  for (const [x, y] of points) {
    const k = (y * a.width + x) * 4;
    assert.deepEqual([...a.data.subarray(k, k + 4)], [...b.data.subarray(k, k + 4)], `(${x}, ${y})`);
  }
}

describe('templates engine: overlapping smart objects and displacement', function () {
  this.timeout(120000);

  it('fills two overlapping smart objects in layer order, with the layers between them', () => {
    const p = prepared(overlappingTemplatePsd(grey, grey));
    assert.equal(p.smartObjects.length, 2);
    const both = renderTemplate(
      p,
      [
        { smartObjectId: '2', design: blue },
        { smartObjectId: '1', design: red },
      ],
      { displace: 'off' },
    );
    const want = oracle(overlappingTemplatePsd(red, blue));
    const v = psnr(both, want);
    assert.ok(v >= 45, `both filled: ${v.toFixed(2)} dB of the template drawn with them as content`);
    assert.ok(differing(both, want) < 40, `${differing(both, want)} pixels differ`);
    // the service's RGB path (renderTemplateOrderedRgb: the fast path unless filled frames overlap) draws the same
    const rgb = renderTemplateOrderedRgb(
      p,
      [
        { smartObjectId: '1', design: red },
        { smartObjectId: '2', design: blue },
      ],
      { displace: 'off' },
    );
    let worst = 0;
    for (let i = 0, j = 0; i < want.data.length; i += 4, j += 3)
      for (let c = 0; c < 3; c++) {
        const flat = Math.round((want.data[i + c]! * want.data[i + 3]! + 255 * (255 - want.data[i + 3]!)) / 255);
        worst = Math.max(worst, Math.abs(rgb.data[j + c]! - flat));
      }
    assert.ok(worst <= 1, `RGB path: ${worst} levels off`);
    // each alone: the other keeps its own content, above or below
    for (const [id, mine] of [
      ['1', overlappingTemplatePsd(red, grey)],
      ['2', overlappingTemplatePsd(grey, blue)],
    ] as const) {
      const one = renderTemplate(p, [{ smartObjectId: id, design: id === '1' ? red : blue }], { displace: 'off' });
      const w = psnr(one, oracle(mine));
      assert.ok(w >= 45, `smart object ${id} alone: ${w.toFixed(2)} dB`);
    }
  });

  it('a smart object clipped to a shape below it: the design shows only inside the shape, shaded by a layer clipped above, displaced along its folds', () => {
    const printed = new Map<string, RawImage>();
    for (const [shading, fill] of [
      [true, 1],
      [false, 1],
      [false, 0.4],
    ] as const) {
      const p = prepared(clippedTemplatePsd(grey, shading, fill));
      const want = oracle(clippedTemplatePsd(red, shading, fill));
      const one = renderTemplate(p, [{ smartObjectId: '1', design: red }], { displace: 'off' });
      printed.set(`${shading} ${fill}`, one);
      const v = psnr(one, want);
      assert.ok(
        v >= 45,
        `shading ${shading}, fill ${fill}: ${v.toFixed(2)} dB of the template drawn with the design as content`,
      );
      assert.ok(differing(one, want) < 20, `shading ${shading}, fill ${fill}: ${differing(one, want)} pixels differ`);
      // the service's RGB path too: alone in its clipping group, the print folds with its base (the fast pass)
      assert.equal(
        !!renderPlan(p).smart[0]?.fold?.base,
        !shading,
        `shading ${shading}, fill ${fill}: folds with its base`,
      );
      const rgb = renderTemplateOrderedRgb(p, [{ smartObjectId: '1', design: red }], { displace: 'off' });
      let worst = 0;
      for (let i = 0, j = 0; i < want.data.length; i += 4, j += 3)
        for (let c = 0; c < 3; c++) worst = Math.max(worst, Math.abs(rgb.data[j + c]! - want.data[i + c]!));
      assert.ok(worst <= 1, `shading ${shading}, fill ${fill}, RGB path: ${worst} levels off`);
      // inside the smart object's quad but outside the shape (an ellipse about (110, 96), radii 80 and 52) the
      // render leaves the template as it was
      const own = oracle(clippedTemplatePsd(grey, shading, fill));
      samePixelsAt(one, own, [
        [44, 44],
        [170, 56],
        [50, 140],
      ]);
    }
    // the garment's fill fades its own pixels, not the print clipped to it: where the opaque print covers the shape's
    // inside, it shows the same at fill 40 % (Photoshop's clipping: clipping-mask.psd and advanced-blending.psd)
    const full = printed.get('false 1')!;
    const faded = printed.get('false 0.4')!;
    samePixelsAt(faded, full, [
      [110, 96],
      [80, 120],
      [150, 70],
    ]);
    // displace "auto" follows the garment's folds (the photo under it is flat: it alone would move nothing)
    const p = prepared(clippedTemplatePsd(grey));
    const design = stripes(100, 100, [220, 30, 40], [30, 60, 220]);
    const auto = renderTemplate(p, [{ smartObjectId: '1', design }], { displace: 'auto' });
    const off = renderTemplate(p, [{ smartObjectId: '1', design }], { displace: 'off' });
    assert.ok(differing(auto, off) > 300, `auto moved ${differing(auto, off)} pixels`);
  });

  it('displace "auto" moves the design along the folds under it; "off" maps it through the transform only', () => {
    const design = stripes(100, 100, [220, 30, 40], [30, 60, 220]);
    const folded = prepared(foldedTemplatePsd(grey, true));
    const want = oracle(foldedTemplatePsd(design, true));
    const off = renderTemplate(folded, [{ smartObjectId: '1', design }], { displace: 'off' });
    const auto = renderTemplate(folded, [{ smartObjectId: '1', design }], { displace: 'auto' });
    const dflt = renderTemplate(folded, [{ smartObjectId: '1', design }]);
    assert.ok(psnr(off, want) >= 45, `off: ${psnr(off, want).toFixed(2)} dB of the undisplaced oracle`);
    assert.deepEqual(dflt.data, auto.data, 'auto is the default');
    const moved = differing(auto, off);
    assert.ok(moved > 300, `auto moved ${moved} pixels`);
    // the displacement follows the folds: rows where the backdrop's slope is steepest move, its crests barely
    const rowMoves = (y0: number, y1: number) => {
      let n = 0;
      for (let y = y0; y < y1; y++) {
        const a = { ...auto, height: 1, data: auto.data.subarray(y * auto.width * 4, (y + 1) * auto.width * 4) };
        const o = { ...off, height: 1, data: off.data.subarray(y * off.width * 4, (y + 1) * off.width * 4) };
        n += differing(a as RawImage, o as RawImage);
      }
      return n;
    };
    // backdrop luminance 170 + 70 sin(y / 9): steepest near y = 9 * 2 pi k (56.5, 113), flat at its crests (70.7)
    assert.ok(rowMoves(110, 117) > 2 * rowMoves(68, 74), `steep ${rowMoves(110, 117)} vs crest ${rowMoves(68, 74)}`);
    // a flat backdrop derives no displacement: auto is off
    const flat = prepared(foldedTemplatePsd(grey, false));
    const fa = renderTemplate(flat, [{ smartObjectId: '1', design }], { displace: 'auto' });
    const fo = renderTemplate(flat, [{ smartObjectId: '1', design }], { displace: 'off' });
    assert.deepEqual(fa.data, fo.data);
    // and the own-content render (Photoshop's composite has no displacement) is never displaced
    assert.ok(psnr(renderOwnContent(folded), oracle(foldedTemplatePsd(grey, true))) === Infinity);
  });

  it("a Displace smart filter's own map drives the displacement: red x, green y, 128 still, scale % of 128 px", () => {
    const design = stripes(100, 100, [220, 30, 40], [30, 60, 220]);
    // a flat backdrop: without the map, auto would move nothing
    const t = parseTemplate(foldedTemplatePsd(grey, false));
    // the map as the filter would carry it: its left half 255 (the largest shift), its right half 128 (none)
    const mw = 140;
    const mh = 110;
    const map = Buffer.alloc(mw * mh * 4);
    for (let i = 0; i < mw * mh; i++) (map.fill(i % mw < mw / 2 ? 255 : 128, i * 4, i * 4 + 3), (map[i * 4 + 3] = 255));
    t.smart[0]!.displace = { horizontalScale: 5, verticalScale: 5, map: { width: mw, height: mh, data: map } };
    const p = prepareTemplate(t);
    const auto = renderTemplate(p, [{ smartObjectId: '1', design }]);
    const off = renderTemplate(p, [{ smartObjectId: '1', design }], { displace: 'off' });
    const W = auto.width;
    const meanDiff = (x0: number, x1: number, y0: number, y1: number, shift: number) => {
      let sum = 0;
      let n = 0;
      for (let y = y0; y < y1; y++)
        for (let x = x0; x < x1; x++)
          for (let c = 0; c < 3; c++) {
            sum += Math.abs(auto.data[(y * W + x) * 4 + c]! - off.data[((y + shift) * W + x + shift) * 4 + c]!);
            n++;
          }
      return sum / n;
    };
    // the smart object spans x 40..180: on the left half the content comes from 127/128 x 5 % x 128 = 6.35 px
    // further right and down; the right half stays
    assert.ok(meanDiff(60, 95, 70, 120, 0) > 40, `left half moved: ${meanDiff(60, 95, 70, 120, 0).toFixed(1)}`);
    assert.ok(meanDiff(60, 95, 70, 120, 6) < 12, `by about 6 px: ${meanDiff(60, 95, 70, 120, 6).toFixed(1)}`);
    assert.equal(meanDiff(125, 160, 70, 120, 0), 0, 'the right half (128) does not move');
  });
});
