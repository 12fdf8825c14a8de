// Rendering a prepared template: the baseline, and over each filled smart object's frame the layers below
// (flattened), the design mapped through the smart object's transform and warp, and the layers above.
import { BadInputError } from '../errors';
import { compositeList, type SmartPainter } from './composite';
import { DEFAULT_PLACEMENT, designSizeFor, paintImage, placementMatrix } from './paint';
import type { PreparedTemplate } from './prepare';
import type { RawImage, RenderOptions, TemplateFill, TemplatePlacement } from './types';

function checkDesign(d: RawImage): void {
  if (!(d.width > 0 && d.height > 0) || d.data.length !== d.width * d.height * 4)
    throw new BadInputError('design must be RGBA, width x height x 4 bytes');
}

export function renderTemplate(p: PreparedTemplate, fills: TemplateFill[], opts: RenderOptions = {}): RawImage {
  const displace = opts.displace ?? 'auto';
  if (displace !== 'auto' && displace !== 'off') throw new BadInputError(`displace must be "auto" or "off"`);
  const out = Buffer.from(p.baseline.buffer, p.baseline.byteOffset, p.baseline.byteLength);
  const data = Buffer.allocUnsafe(out.length);
  out.copy(data);
  const byIndex = new Map<number, TemplateFill>();
  for (const f of fills) {
    const i = p.smartObjects.findIndex((s) => s.id === f.smartObjectId);
    if (i < 0) throw new BadInputError(`no smart object ${f.smartObjectId} in this template`);
    if (byIndex.has(i)) throw new BadInputError(`smart object ${f.smartObjectId} filled twice`);
    checkDesign(f.design);
    byIndex.set(i, f);
  }
  // bottom first, so a smart object above another one is drawn after it
  for (const [i, fill] of [...byIndex.entries()].sort((a, b) => a[0] - b[0])) {
    const ps = p.smart[i]!;
    const f = ps.frame;
    if (!f) continue;
    const pl = fill.placement ?? DEFAULT_PLACEMENT;
    const m = placementMatrix(ps.geometry.width, ps.geometry.height, fill.design.width, fill.design.height, pl);
    const uv = displace === 'auto' && ps.uvDisplaced ? ps.uvDisplaced : ps.uv;
    const paint: SmartPainter = (so) => (so === i ? paintImage(uv, f, fill.design, m) : null);
    const dst = ps.below.slice();
    compositeList(ps.above, f, dst, paint);
    for (let y = 0; y < f.h; y++)
      data.set(dst.subarray(y * f.w * 4, (y + 1) * f.w * 4), ((f.y + y) * p.width + f.x) * 4);
  }
  return { width: p.width, height: p.height, data };
}

/** The template with each smart object's own embedded content (what Photoshop's composite shows). */
export function renderOwnContent(p: PreparedTemplate): RawImage {
  return { width: p.width, height: p.height, data: Buffer.from(p.baseline) };
}

/** PSNR in dB over RGB, both images composited over white (transparent areas compare as white). */
export function psnr(a: RawImage, b: RawImage): number {
  if (a.width !== b.width || a.height !== b.height) throw new RangeError('psnr: images differ in size');
  let se = 0;
  const n = a.width * a.height;
  for (let i = 0; i < n * 4; i += 4) {
    const aa = a.data[i + 3]! / 255;
    const ba = b.data[i + 3]! / 255;
    for (let c = 0; c < 3; c++) {
      const d = a.data[i + c]! * aa + 255 * (1 - aa) - (b.data[i + c]! * ba + 255 * (1 - ba));
      se += d * d;
    }
  }
  const mse = se / (n * 3);
  return mse === 0 ? Infinity : 10 * Math.log10((255 * 255) / mse);
}

/** The size a design needs on a smart object for a placement (see paint.ts designSizeFor): resize a larger design
 * to it (keeping its aspect ratio) before renderTemplate to spare the engine's own reduction. */
export function designSize(
  p: PreparedTemplate,
  smartObjectId: string,
  design: { width: number; height: number },
  placement: TemplatePlacement = DEFAULT_PLACEMENT,
): { width: number; height: number } {
  const ps = p.smart.find((s) => s.info.id === smartObjectId);
  if (!ps) throw new BadInputError(`no smart object ${smartObjectId} in this template`);
  if (!ps.frame) return { width: design.width, height: design.height };
  return designSizeFor(ps.uv, ps.frame, ps.geometry.width, ps.geometry.height, design, placement);
}
