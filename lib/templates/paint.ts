// Painting a smart object over a frame: its content (or a customer's design placed in it) sampled through the
// content map, optionally displaced.
import { contentToDoc, squareToQuad, type Geometry } from './geometry';
import type { Block, SmartData } from './model';
import { boxFromBytes, premultiply, reduce } from './resample';
import { buildMips, contentMap, sampleMap, type Rect } from './sample';
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

/** A fill's placement affine (content pixels to its design's pixels): computed for the size the design was placed
 * as (`placedAs`), then scaled to the design's actual size (a design resized per axis for the render). */
export function fillMatrix(
  cw: number,
  ch: number,
  fill: {
    design: { width: number; height: number };
    placement?: TemplatePlacement;
    placedAs?: { width: number; height: number };
  },
): number[] {
  const d = fill.design;
  const as = fill.placedAs ?? d;
  const m = placementMatrix(cw, ch, as.width, as.height, fill.placement ?? DEFAULT_PLACEMENT);
  const kx = d.width / as.width;
  const ky = d.height / as.height;
  return [m[0]! * kx, m[1]! * kx, m[2]! * kx, m[3]! * ky, m[4]! * ky, m[5]! * ky];
}

/** How many image pixels one output pixel spans along the image's x and y axes (a low percentile over the map,
 * so no part of the smart object is blurred more than it needs). */
export function reductionOf(uv: Float32Array, f: Rect, m: number[]): [number, number] {
  const ru: number[] = [];
  const rv: number[] = [];
  const step = Math.max(1, Math.floor(Math.min(f.w, f.h) / 24));
  for (let y = 0; y + 1 < f.h; y += step)
    for (let x = 0; x + 1 < f.w; x += step) {
      const k = y * f.w + x;
      const cx = uv[k * 2]!;
      const ax = uv[(k + 1) * 2]!;
      const ay = uv[(k + f.w) * 2]!;
      if (cx !== cx || ax !== ax || ay !== ay) continue;
      const cy = uv[k * 2 + 1]!;
      const dxu = ax - cx;
      const dxv = uv[(k + 1) * 2 + 1]! - cy;
      const dyu = ay - cx;
      const dyv = uv[(k + f.w) * 2 + 1]! - cy;
      // gradients of the image coordinates over the output
      ru.push(Math.hypot(m[0]! * dxu + m[1]! * dxv, m[0]! * dyu + m[1]! * dyv));
      rv.push(Math.hypot(m[3]! * dxu + m[4]! * dxv, m[3]! * dyu + m[4]! * dyv));
    }
  if (!ru.length) return [1, 1];
  ru.sort((a, b) => a - b);
  rv.sort((a, b) => a - b);
  return [ru[Math.floor(ru.length * 0.1)]!, rv[Math.floor(rv.length * 0.1)]!];
}

/** How an image is reduced before it is sampled at a content map (designLevels): an integer box `k` (1: none) from
 * the bytes, then to `tw` x `th` (Lanczos-3) when that is smaller still. Fixed by the image's size and how much the
 * map shrinks it, so images of the same pixels with the same plan have the same levels. */
export interface LevelsPlan {
  k: number;
  tw: number;
  th: number;
}

/** An image's levels for a plan: its mip pyramid (premultiplied) and the two scalings of the placement affine, per
 * axis, that take the image's pixels to the pyramid's base (the box's, then the Lanczos reduction's). */
export interface DesignLevels {
  mips: ReturnType<typeof buildMips>;
  scale: [number, number, number, number];
}

/**
 * Where renders keep the levels of designs they see again (the caller's cache, bounded by it): `key` names the
 * design's pixels (TemplateFill.designKey) and the plan. get answers what set kept, or undefined.
 */
export interface LevelsCache {
  get(key: string): DesignLevels | undefined;
  set(key: string, levels: DesignLevels, bytes: number): void;
}

/** The plan for an image sampled at `uv` over `frame` with the placement affine `m`. */
export function levelsPlan(uv: Float32Array, frame: Rect, img: { width: number; height: number }, m: number[]) {
  const [ru, rv] = reductionOf(uv, frame, m);
  // the bulk of a large reduction by an integer box straight from the bytes (the design is read once)
  const k = Math.max(1, Math.floor(Math.min(ru, rv) / 1.5));
  const w = k > 1 ? Math.max(1, Math.floor(img.width / k)) : img.width;
  const h = k > 1 ? Math.max(1, Math.floor(img.height / k)) : img.height;
  const ru2 = ru / (img.width / w);
  const rv2 = rv / (img.height / h);
  const reduce = ru2 > 1.05 || rv2 > 1.05;
  return {
    k,
    tw: reduce ? Math.max(1, Math.min(w, Math.round(w / Math.max(1, ru2)))) : w,
    th: reduce ? Math.max(1, Math.min(h, Math.round(h / Math.max(1, rv2)))) : h,
  };
}

/** An image's levels for a plan: reduced (an integer box from the bytes for the bulk of a large reduction, then
 * Lanczos-3 to about one image pixel per output pixel), premultiplied, with its mip pyramid. */
export function buildLevels(img: RawImage, plan: LevelsPlan): DesignLevels {
  let w = img.width;
  let h = img.height;
  let pm: Float32Array;
  const scale: [number, number, number, number] = [1, 1, 1, 1];
  if (plan.k > 1) {
    const r = boxFromBytes(img.data, w, h, plan.k);
    scale[0] = r.w / w;
    scale[1] = r.h / h;
    pm = r.data;
    w = r.w;
    h = r.h;
  } else pm = premultiply(img);
  if (plan.tw !== w || plan.th !== h) {
    const r = reduce(pm, w, h, plan.tw, plan.th);
    scale[2] = r.w / w;
    scale[3] = r.h / h;
    pm = r.data;
    w = r.w;
    h = r.h;
  }
  return { mips: buildMips(pm, w, h), scale };
}

/** The bytes levels hold. */
export const levelsBytes = (l: DesignLevels) => l.mips.levels.reduce((n, L) => n + L.data.byteLength, 0);

/**
 * The image ready to be sampled at the content map `uv` over `frame` (buildLevels for its plan), and the affine `mm`
 * taking content pixels to its base level's pixels. With a cache and a key naming the image's pixels, levels made
 * for the same pixels and plan before are used again (the same levels: they depend on nothing else).
 */
export function designLevels(
  uv: Float32Array,
  frame: Rect,
  img: RawImage,
  m: number[],
  cached?: { cache: LevelsCache; key: string },
): { mips: ReturnType<typeof buildMips>; mm: number[] } {
  const plan = levelsPlan(uv, frame, img, m);
  const key = cached && `${cached.key}|B${plan.k}|${plan.tw}x${plan.th}`;
  let lv = key ? cached.cache.get(key) : undefined;
  if (!lv) {
    lv = buildLevels(img, plan);
    if (key) cached.cache.set(key, lv, levelsBytes(lv));
  }
  // the box's scaling, then the reduction's (applied in that order, as the levels were made)
  const [ax, ay, bx, by] = lv.scale;
  let mm = m;
  if (plan.k > 1) mm = [m[0]! * ax, m[1]! * ax, m[2]! * ax, m[3]! * ay, m[4]! * ay, m[5]! * ay];
  if (bx !== 1 || by !== 1) mm = [mm[0]! * bx, mm[1]! * bx, mm[2]! * bx, mm[3]! * by, mm[4]! * by, mm[5]! * by];
  return { mips: lv.mips, mm };
}

/** Frame-sized RGBA of an image sampled at the content map `uv` (image pixels = m x content pixels). */
export function paintImage(uv: Float32Array, frame: Rect, img: RawImage, m: number[]): Uint8ClampedArray {
  const { mips, mm } = designLevels(uv, frame, img, m);
  const out = new Uint8ClampedArray(frame.w * frame.h * 4);
  sampleMap(uv, frame, mips, mm, out);
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

/** The design size (pixels) a render needs for a placement: about one design pixel per template pixel where the
 * smart object shows it most enlarged. A caller that decodes designs with a native resampler (sharp) can reduce a
 * larger design to this size first; the render then skips its own (JS) reduction. Never larger than the design. */
export function designSizeFor(
  uv: Float32Array,
  frame: Rect,
  contentW: number,
  contentH: number,
  design: { width: number; height: number },
  placement: TemplatePlacement,
): { width: number; height: number } {
  const m = placementMatrix(contentW, contentH, design.width, design.height, placement);
  const [ru, rv] = reductionOf(uv, frame, m);
  const f = Math.max(1, Math.min(ru, rv));
  return {
    width: Math.max(1, Math.min(design.width, Math.ceil(design.width / f))),
    height: Math.max(1, Math.min(design.height, Math.ceil(design.height / f))),
  };
}
