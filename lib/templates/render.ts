// Rendering a prepared template: the baseline, and over each filled smart object's frame the layers below
// (flattened), the design mapped through the smart object's transform and warp, and the layers above.
import { BadInputError } from '../errors';
import { compositeList, type Frame, type SmartPainter } from './composite';
import { DEFAULT_PLACEMENT, designSizeFor, fillMatrix, paintImage } from './paint';
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
  // Bottom first. Each filled smart object's frame is composited from its own stack position up: the layers below
  // it flattened, then every layer above with any other filled smart object there drawn with its design. Where the
  // frame of a filled smart object lower in the stack reaches, that one's result (computed from further down, with
  // this one's design in it) is kept: the flattened backdrop here still shows the lower one's own content.
  const order = [...byIndex.entries()].sort((a, b) => a[0] - b[0]);
  const maps = new Map(
    order.map(([i, fill]) => {
      const ps = p.smart[i]!;
      const uv = displace === 'auto' && ps.uvDisplaced ? ps.uvDisplaced : ps.uv;
      return [i, { uv, m: fillMatrix(ps.geometry.width, ps.geometry.height, fill) }];
    }),
  );
  const done: Frame[] = [];
  for (const [i] of order) {
    const f = p.smart[i]!.frame;
    if (!f) continue;
    const paint: SmartPainter = (so, node) => {
      const fill = byIndex.get(so);
      const ps = p.smart[so]!;
      if (!fill || !ps.frame) return node.img ? (node.img.data as Uint8ClampedArray) : null;
      const { uv, m } = maps.get(so)!;
      return paintImage(so === i ? uv : mapOnFrame(uv, ps.frame, f), f, fill.design, m);
    };
    const dst = p.smart[i]!.below.slice();
    compositeList(p.smart[i]!.above, f, dst, paint);
    for (let y = 0; y < f.h; y++) {
      const Y = f.y + y;
      const lower = done.filter((d) => Y >= d.y && Y < d.y + d.h);
      for (const [x0, x1] of spansOutside(f.x, f.x + f.w, lower))
        data.set(dst.subarray((y * f.w + x0 - f.x) * 4, (y * f.w + x1 - f.x) * 4), (Y * p.width + x0) * 4);
    }
    done.push(f);
  }
  return { width: p.width, height: p.height, data };
}

/** A content map of frame `from` laid on frame `to` (empty where `from` does not reach). */
function mapOnFrame(uv: Float32Array, from: Frame, to: Frame): Float32Array {
  const out = new Float32Array(to.w * to.h * 2).fill(NaN);
  const x0 = Math.max(from.x, to.x);
  const x1 = Math.min(from.x + from.w, to.x + to.w);
  if (x1 <= x0) return out;
  for (let y = Math.max(from.y, to.y); y < Math.min(from.y + from.h, to.y + to.h); y++) {
    const s = ((y - from.y) * from.w + (x0 - from.x)) * 2;
    out.set(uv.subarray(s, s + (x1 - x0) * 2), ((y - to.y) * to.w + (x0 - to.x)) * 2);
  }
  return out;
}

/** The parts of the row span [a, b) outside every frame of `frames` (which all cover the row). */
function spansOutside(a: number, b: number, frames: Frame[]): [number, number][] {
  let spans: [number, number][] = [[a, b]];
  for (const d of frames) {
    const next: [number, number][] = [];
    for (const [s, e] of spans) {
      if (d.x + d.w <= s || d.x >= e) next.push([s, e]);
      else {
        if (d.x > s) next.push([s, d.x]);
        if (d.x + d.w < e) next.push([d.x + d.w, e]);
      }
    }
    spans = next;
  }
  return spans;
}

/** The template with each smart object's own embedded content (what Photoshop's composite shows): the prepared
 * baseline itself, not a copy (read it; a render starts from its own copy). */
export function renderOwnContent(p: PreparedTemplate): RawImage {
  return {
    width: p.width,
    height: p.height,
    data: Buffer.from(p.baseline.buffer, p.baseline.byteOffset, p.baseline.byteLength),
  };
}

/** PSNR in dB over RGB, both images composited over white (transparent areas compare as white). */
export function psnr(a: RawImage, b: RawImage): number {
  if (a.width !== b.width || a.height !== b.height) throw new RangeError('psnr: images differ in size');
  let se = 0;
  const n = a.width * a.height;
  const A = a.data;
  const B = b.data;
  for (let i = 0; i < n * 4; i += 4) {
    if (A[i + 3] === 255 && B[i + 3] === 255) {
      // both opaque (most pixels): the same differences in integers
      const dr = A[i]! - B[i]!;
      const dg = A[i + 1]! - B[i + 1]!;
      const db = A[i + 2]! - B[i + 2]!;
      se += dr * dr + dg * dg + db * db;
      continue;
    }
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
