// Painting a smart object over a frame: its content (or a customer's design placed in it) sampled through the
// content map, optionally displaced.
import { contentToDoc, squareToQuad, type Geometry } from './geometry';
import type { Block, SmartData } from './model';
import { buildMips, contentMap, sampleMap, type Mips, type Rect } from './sample';
import type { RawImage, TemplatePlacement } from './types';

export const DEFAULT_PLACEMENT: TemplatePlacement = { x: 50, y: 50, scale: 1, rotation: 0 };

/** Document bounding box of the smart object's content (integer pixels, with a margin), clamped to the document;
 * null when it lies outside. */
export function frameOf(g: Geometry, docW: number, docH: number, margin: number): Rect | null {
  const H = squareToQuad(g.quad);
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  const N = g.warp.kind === 'none' ? 1 : 32;
  for (let j = 0; j <= N; j++)
    for (let i = 0; i <= N; i++) {
      if (g.warp.kind !== 'none' && i > 0 && i < N && j > 0 && j < N && (i % 4 || j % 4)) continue;
      const [X, Y] = contentToDoc(g, H, (i / N) * g.width, (j / N) * g.height);
      if (!Number.isFinite(X) || !Number.isFinite(Y)) continue;
      x0 = Math.min(x0, X);
      y0 = Math.min(y0, Y);
      x1 = Math.max(x1, X);
      y1 = Math.max(y1, Y);
    }
  const fx0 = Math.max(0, Math.floor(x0 - margin));
  const fy0 = Math.max(0, Math.floor(y0 - margin));
  const fx1 = Math.min(docW, Math.ceil(x1 + margin));
  const fy1 = Math.min(docH, Math.ceil(y1 + margin));
  if (!(fx1 > fx0 && fy1 > fy0)) return null;
  return { x: fx0, y: fy0, w: fx1 - fx0, h: fy1 - fy0 };
}

/** The affine taking content pixels to design pixels for a placement (spec semantics). */
export function placementMatrix(cw: number, ch: number, dw: number, dh: number, p: TemplatePlacement): number[] {
  const s = Math.min(cw / dw, ch / dh) * p.scale;
  const cx = (p.x / 100) * cw;
  const cy = (p.y / 100) * ch;
  const t = (p.rotation * Math.PI) / 180;
  const cos = Math.cos(t) / s;
  const sin = Math.sin(t) / s;
  // design = R(-t) * (content - center) / s + design center
  return [cos, sin, dw / 2 - cos * cx - sin * cy, -sin, cos, dh / 2 + sin * cx - cos * cy];
}

/** Frame-sized RGBA of an image sampled at the content map `uv`. */
export function paintImage(uv: Float32Array, frame: Rect, img: RawImage | Mips, m: number[]): Uint8ClampedArray {
  const mips = 'levels' in img ? img : buildMips(img.data, img.width, img.height);
  const out = new Uint8ClampedArray(frame.w * frame.h * 4);
  sampleMap(uv, frame, mips, m, out);
  return out;
}

/** Frame-sized RGBA copy of a block (Photoshop's stored pixels of a layer). */
export function blockOnFrame(b: Block, f: Rect): Uint8ClampedArray {
  const out = new Uint8ClampedArray(f.w * f.h * 4);
  const x0 = Math.max(b.x, f.x);
  const x1 = Math.min(b.x + b.w, f.x + f.w);
  for (let y = Math.max(b.y, f.y); y < Math.min(b.y + b.h, f.y + f.h); y++) {
    if (x1 <= x0) break;
    const s = ((y - b.y) * b.w + (x0 - b.x)) * 4;
    out.set(b.data.subarray(s, s + (x1 - x0) * 4), ((y - f.y) * f.w + (x0 - f.x)) * 4);
  }
  return out;
}

/** A smart object's own content over a frame (as Photoshop shows it), or null when it has none to show. */
export function paintOwn(sd: SmartData, stored: Block | null, f: Rect): Uint8ClampedArray | null {
  if (sd.useStored || !sd.content) return stored ? blockOnFrame(stored, f) : null;
  const uv = contentMap(sd.geometry, f);
  const c = sd.content;
  // the content fills the smart object exactly (its pixel size may differ from the placed size)
  const m = [c.width / sd.geometry.width, 0, 0, 0, c.height / sd.geometry.height, 0];
  return paintImage(uv, f, c, m);
}
