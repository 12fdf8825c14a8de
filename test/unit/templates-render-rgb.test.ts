// The render's fast path (lib/templates/fast.ts, docs/templates.md#render-speed) against the general compositor:
// renderTemplateRgb must be renderTemplate's picture flattened on white, exactly where it composites step by step
// and within the 8-bit rounding of the folded layers where it folds them; only the smart objects' frames change.
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { benchKindTemplate, perspectiveTemplatePsd, testDesign } from '../helpers/template-psd';
import {
  designTarget,
  parseTemplate,
  prepareTemplate,
  renderOwnContent,
  renderPlan,
  renderTemplate,
  renderTemplateOrderedRgb,
  renderTemplateRgb,
  type PreparedTemplate,
  type RawImage,
  type TemplateFill,
} from '../../lib/templates';
import { foldedPass, footprints, STEP_BLOCK } from '../../lib/templates/fast-pass';
import { designLevels, fillMatrix } from '../../lib/templates/paint';

const FIX = path.join(__dirname, '../fixtures/templates');

/** RGBA over white as RGB, rounded. */
function flat(img: RawImage): Buffer {
  const out = Buffer.alloc(img.width * img.height * 3);
  for (let p = 0; p < img.width * img.height; p++) {
    const a = img.data[p * 4 + 3]! / 255;
    for (let c = 0; c < 3; c++) out[p * 3 + c] = Math.round(img.data[p * 4 + c]! * a + 255 * (1 - a));
  }
  return out;
}

/** Largest difference, and PSNR in dB (Infinity when identical). */
function compare(a: Buffer, b: Buffer): { max: number; psnr: number } {
  let max = 0;
  let se = 0;
  for (let i = 0; i < a.length; i++) {
    const d = Math.abs(a[i]! - b[i]!);
    if (d > max) max = d;
    se += d * d;
  }
  return { max, psnr: se === 0 ? Infinity : 10 * Math.log10((255 * 255) / (se / a.length)) };
}

function check(p: PreparedTemplate, fills: TemplateFill[], displace: 'auto' | 'off') {
  // the service's entry: the fast path, or renderTemplate's layer order where filled smart objects overlap
  const fast = renderTemplateOrderedRgb(p, fills, { displace });
  const general = flat(renderTemplate(p, fills, { displace }));
  return { fast, ...compare(fast.data, general) };
}

/** A design with transparent margins (its edges antialiased by the sampler) and detail. */
function design(w: number, h: number): RawImage {
  const img = testDesign(w, h);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) if (x < w * 0.1 || y < h * 0.1 || x > w * 0.9) img.data[(y * w + x) * 4 + 3] = 0;
  return img;
}

describe('templates engine: the RGB render (fast path)', function () {
  this.timeout(120000);

  it('folds the multiply and screen layers above a smart object: the general picture within 8-bit rounding', () => {
    const p = prepareTemplate(parseTemplate(perspectiveTemplatePsd()));
    const plan = renderPlan(p);
    assert.ok(plan.smart[0]?.fold, 'the shadow (multiply) and highlight (screen, 70 %) fold');
    const so = p.smartObjects[0]!.id;
    for (const [fill, displace] of [
      [{ smartObjectId: so, design: design(600, 600) }, 'auto'],
      [{ smartObjectId: so, design: design(300, 500), placement: { x: 40, y: 55, scale: 0.7, rotation: 30 } }, 'off'],
      // far larger than the quad: the trilinear (mip) path
      [{ smartObjectId: so, design: design(1600, 1600) }, 'auto'],
    ] as const) {
      const r = check(p, [fill], displace);
      assert.ok(r.max <= 3 && r.psnr >= 50, `${displace}: max ${r.max}, ${r.psnr.toFixed(1)} dB`);
    }
    // a full-size template of the bench's kind (the layers above cover the whole document)
    const big = benchKindTemplate();
    assert.ok(renderPlan(big).smart[0]?.fold);
    const r = check(big, [{ smartObjectId: big.smartObjects[0]!.id, design: design(420, 420) }], 'auto');
    assert.ok(r.max <= 3 && r.psnr >= 50, `bench kind: max ${r.max}, ${r.psnr.toFixed(1)} dB`);
  });

  it('Photoshop files: exactly the general picture where nothing folds, within rounding where it does', () => {
    for (const file of [
      'smart-objects-ag-psd.psd',
      'blend-modes-smart-objects-psd-tools.psd',
      'layers-smartobject-layer-psd-tools.psd',
      'warp-cylinder-ag-psd.psd',
      'perspective-ag-psd-placed-transform.psd',
    ]) {
      const t = parseTemplate(readFileSync(path.join(FIX, file)));
      const p = prepareTemplate(t);
      const fills = p.smartObjects.map((s: { id: string }, i: number) => ({
        smartObjectId: s.id,
        design: design(200 + 40 * i, 160),
      }));
      if (!fills.length) continue;
      const r = check(p, fills, 'auto');
      const folded = renderPlan(p).smart.some((s) => s?.fold);
      assert.ok(folded ? r.max <= 3 : r.max === 0, `${file}: max ${r.max} (folded: ${folded})`);
    }
  });

  it('a design resized per axis to designTarget (placedAs) renders as the design itself', async () => {
    const p = prepareTemplate(parseTemplate(perspectiveTemplatePsd()));
    const so = p.smartObjects[0]!.id;
    const d = design(900, 700);
    const placement = { x: 45, y: 55, scale: 0.8, rotation: 20 };
    const target = designTarget(p, so, d, placement, 'auto');
    assert.ok(target.width < 900 && target.height < 700, JSON.stringify(target));
    assert.notEqual(target.width / target.height, 900 / 700, 'reduced more along one axis');
    const small = await sharp(d.data, { raw: { width: 900, height: 700, channels: 4 } })
      .resize(target.width, target.height, { fit: 'fill', kernel: 'lanczos3' })
      .raw()
      .toBuffer();
    const direct = renderTemplateRgb(p, [{ smartObjectId: so, design: d, placement }]);
    const sized = renderTemplateRgb(p, [
      { smartObjectId: so, design: { ...target, data: small }, placement, placedAs: { width: 900, height: 700 } },
    ]);
    const r = compare(direct.data, sized.data);
    assert.ok(r.psnr >= 35, `${r.psnr.toFixed(1)} dB`);
    // without placedAs the placement is computed for the resized image: another picture
    const wrong = renderTemplateRgb(p, [{ smartObjectId: so, design: { ...target, data: small }, placement }]);
    assert.ok(compare(direct.data, wrong.data).psnr < r.psnr - 5);
  });

  it('only the filled smart objects’ frames change; no fill is the baseline', () => {
    const p = prepareTemplate(parseTemplate(perspectiveTemplatePsd()));
    const own = flat(renderOwnContent(p));
    const none = renderTemplateRgb(p, []);
    assert.ok(none.data.equals(own));
    assert.deepEqual(none.frames, []);
    const r = renderTemplateRgb(p, [{ smartObjectId: p.smartObjects[0]!.id, design: design(500, 500) }]);
    assert.equal(r.frames.length, 1);
    const f = r.frames[0]!;
    let changed = 0;
    for (let y = 0; y < p.height; y++)
      for (let x = 0; x < p.width; x++) {
        const i = (y * p.width + x) * 3;
        if (r.data.subarray(i, i + 3).equals(own.subarray(i, i + 3))) continue;
        changed++;
        assert.ok(x >= f.x && x < f.x + f.w && y >= f.y && y < f.y + f.h, `changed outside the frame at ${x},${y}`);
      }
    assert.ok(changed > 50000, `changed ${changed}`);
    // a given output buffer receives it
    const out = Buffer.alloc(p.width * p.height * 3);
    const again = renderTemplateRgb(p, [{ smartObjectId: p.smartObjects[0]!.id, design: design(500, 500) }], {}, out);
    assert.equal(again.data, out);
    assert.ok(out.equals(r.data));
  });

  it('the footprint bound per block of pixels settles only blocks where every pixel samples bilinearly', () => {
    const p = benchKindTemplate();
    const ps = p.smart[0]!;
    const f = ps.frame!;
    const fold = renderPlan(p).smart[0]!.fold!;
    assert.ok(ps.uvDisplaced && fold.displaced && fold.displacedSteps, 'the displaced map has its own bounds');
    assert.equal(fold.plainSteps.length, f.h * Math.ceil(f.w / STEP_BLOCK));
    assert.deepEqual(footprints(ps.uv, f, fold.plain), fold.plainSteps);
    for (const [uv, spans, steps] of [
      [ps.uv, fold.plain, fold.plainSteps],
      [ps.uvDisplaced, fold.displaced, fold.displacedSteps],
    ] as const) {
      // about its size (bilinear nearly everywhere), rotated, and far larger (trilinear over the mips)
      for (const [size, placement] of [
        [420, { x: 50, y: 50, scale: 1, rotation: 0 }],
        [380, { x: 40, y: 55, scale: 0.7, rotation: 30 }],
        [1800, { x: 50, y: 50, scale: 1, rotation: 0 }],
      ] as const) {
        const d = design(size, size);
        const m = fillMatrix(ps.geometry.width, ps.geometry.height, { design: d, placement });
        const { mips, mm } = designLevels(uv, f, d, m);
        const bounded = Buffer.from(renderPlan(p).rgb);
        const everywhere = Buffer.from(renderPlan(p).rgb);
        foldedPass(bounded, p.width, f, uv, spans, steps, mips, mm, ps.below, fold);
        // no block settled: the footprint of every pixel measured
        const none = new Float32Array(steps.length).fill(Infinity);
        foldedPass(everywhere, p.width, f, uv, spans, none, mips, mm, ps.below, fold);
        assert.ok(bounded.equals(everywhere), `${size} px at ${placement.rotation} deg: the same pixels`);
      }
    }
  });
});
