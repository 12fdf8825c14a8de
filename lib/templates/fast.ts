// A render's fast path (issue 32's render target, docs/templates.md#render-speed). What renders on a prepared
// template need is derived once per template (renderPlan, kept with it): the baseline as RGB over white (what the
// mockup shows), and per smart object the frame with the smart object empty, and, where the layers allow it, the
// layers above folded into one gain and offset per pixel and channel. A render (renderTemplateRgb) copies the RGB
// baseline and, per filled smart object, writes its frame in one pass: the design sampled through the content map,
// blended over the flattened layers below in the smart object's mode, the fold applied.
//
// The fold: over an opaque backdrop, a layer in normal, multiply or screen mode changes each channel affinely (out =
// x * gain + offset, gain and offset set by the layer's pixel, opacity and mask), and so does any stack of such
// layers. It is exact up to the 8-bit rounding the step-by-step compositor does between layers (at most a level or
// so). Anything else (a backdrop with transparency, other modes, groups or clipping above, a smart object inside a
// group or clipped to) renders through the general compositor (composite.ts) over the frame, flattened on white.
import { blendLut, FILL_INSIDE_MODES, isSeparable } from './blend';
import { compositeList, maskOver, type Frame, type SmartPainter } from './composite';
import { BadInputError } from '../errors';
import { DEFAULT_PLACEMENT, designLevels, fillMatrix, paintImage, placementMatrix, reductionOf } from './paint';
import type { PreparedSmart, PreparedTemplate } from './prepare';
import type { Mips } from './sample';
import type { RenderOptions, TemplateFill, TemplatePlacement } from './types';

/** Fixed-point scales of the fold: gain (0..1) in 1/32768, offset (0..255) in 1/128. */
const G_ONE = 32768;
const O_ONE = 128;
/** Modes of layers above a smart object that fold (affine in the backdrop). */
const FOLDABLE = new Set(['normal', 'multiply', 'screen']);

interface Fold {
  /** 3 per frame pixel */
  gain: Uint16Array;
  offset: Uint16Array;
  /** the smart object's layer: separable mode's table (null: normal), opacity, fill inside the blend, mask */
  lut: Uint8Array | null;
  opacity: number;
  fillIn: number;
  mask: Uint8Array | null;
  /** the rows' spans of mapped pixels of the content map, and of the displaced one */
  plain: Int32Array;
  displaced: Int32Array | null;
}

interface SmartPlan {
  /** frame-sized RGB of the template with this smart object empty, over white */
  empty: Uint8Array;
  fold: Fold | null;
}

export interface RenderPlan {
  /** the baseline (every smart object with its own content) as RGB over white */
  rgb: Buffer;
  smart: (SmartPlan | null)[];
  /** memory it holds */
  bytes: number;
}

/** RGBA over white into RGB (rounded). */
function flattenRow(src: Uint8ClampedArray | Uint8Array, si: number, dst: Uint8Array, di: number, n: number): void {
  for (let x = 0; x < n; x++, si += 4, di += 3) {
    const a = src[si + 3]!;
    if (a === 255) {
      dst[di] = src[si]!;
      dst[di + 1] = src[si + 1]!;
      dst[di + 2] = src[si + 2]!;
      continue;
    }
    const k = a / 255;
    const w = 255 * (1 - k);
    dst[di] = (src[si]! * k + w + 0.5) | 0;
    dst[di + 1] = (src[si + 1]! * k + w + 0.5) | 0;
    dst[di + 2] = (src[si + 2]! * k + w + 0.5) | 0;
  }
}

/** The rows' spans of a content map's mapped pixels: [x0, x1) per row. */
function spansOf(uv: Float32Array, f: Frame): Int32Array {
  const spans = new Int32Array(f.h * 2);
  for (let y = 0; y < f.h; y++) {
    let x0 = -1;
    let x1 = -1;
    for (let x = 0, k = y * f.w; x < f.w; x++, k++) {
      if (uv[k * 2] !== uv[k * 2]) continue;
      if (x0 < 0) x0 = x;
      x1 = x + 1;
    }
    spans[y * 2] = Math.max(0, x0);
    spans[y * 2 + 1] = Math.max(0, x1);
  }
  return spans;
}

/** The layers above smart object `so` folded into gain and offset per pixel, or null when they do not fold. */
function foldOf(ps: PreparedSmart, so: number, f: Frame): Omit<Fold, 'plain' | 'displaced'> | null {
  const below = ps.below;
  for (let i = 3; i < below.length; i += 4) if (below[i] !== 255) return null;
  const [top, ...rest] = ps.above;
  if (!top || top.kind !== 'smart' || top.so !== so || top.hidden) return null;
  if (!isSeparable(top.mode) || top.mode === 'dissolve') return null;
  for (const n of rest) {
    if (n.clip) return null;
    if (n.hidden) continue;
    if (n.kind !== 'pixels' || !FOLDABLE.has(n.mode)) return null;
  }
  const N = f.w * f.h;
  const G = new Float32Array(N * 3).fill(1);
  const O = new Float32Array(N * 3);
  for (const n of rest) {
    if (n.hidden || n.kind !== 'pixels' || !n.img) continue;
    const b = n.img;
    const op = n.opacity * n.fill;
    if (op <= 0) continue;
    const mask = n.mask ? maskOver(n.mask, b.x, b.y, b.w, b.h) : null;
    const d = b.data;
    const mode = n.mode;
    const x0 = Math.max(b.x, f.x);
    const x1 = Math.min(b.x + b.w, f.x + f.w);
    for (let y = Math.max(b.y, f.y); y < Math.min(b.y + b.h, f.y + f.h); y++) {
      for (let x = x0; x < x1; x++) {
        const si = (y - b.y) * b.w + (x - b.x);
        let as = (d[si * 4 + 3]! / 255) * op;
        if (mask) as *= mask[si]! / 255;
        if (as <= 0) continue;
        const k = ((y - f.y) * f.w + (x - f.x)) * 3;
        for (let c = 0; c < 3; c++) {
          const s = d[si * 4 + c]!;
          let kk: number;
          let add: number;
          if (mode === 'normal') {
            kk = 1 - as;
            add = as * s;
          } else if (mode === 'multiply') {
            kk = 1 - as * (1 - s / 255);
            add = 0;
          } else {
            kk = 1 - (as * s) / 255;
            add = as * s;
          }
          G[k + c] = G[k + c]! * kk;
          O[k + c] = O[k + c]! * kk + add;
        }
      }
    }
  }
  const gain = new Uint16Array(N * 3);
  const offset = new Uint16Array(N * 3);
  for (let i = 0; i < N * 3; i++) {
    gain[i] = Math.round(Math.min(1, Math.max(0, G[i]!)) * G_ONE);
    offset[i] = Math.round(Math.min(255, Math.max(0, O[i]!)) * O_ONE);
  }
  const inside = FILL_INSIDE_MODES.has(top.mode);
  return {
    gain,
    offset,
    lut: top.mode === 'normal' ? null : blendLut(top.mode),
    opacity: inside ? top.opacity : top.opacity * top.fill,
    fillIn: inside ? top.fill : 1,
    mask: top.mask ? Uint8Array.from(maskOver(top.mask, f.x, f.y, f.w, f.h)) : null,
  };
}

function smartPlan(ps: PreparedSmart, so: number): SmartPlan | null {
  const f = ps.frame;
  if (!f) return null;
  const dst = ps.below.slice();
  compositeList(ps.above, f, dst, () => null);
  const empty = new Uint8Array(f.w * f.h * 3);
  flattenRow(dst, 0, empty, 0, f.w * f.h);
  const fold = foldOf(ps, so, f);
  return {
    empty,
    fold: fold
      ? { ...fold, plain: spansOf(ps.uv, f), displaced: ps.uvDisplaced ? spansOf(ps.uvDisplaced, f) : null }
      : null,
  };
}

const plans = new WeakMap<PreparedTemplate, RenderPlan>();

/** What renders on `p` need, derived once (and kept with it for as long as it lives). */
export function renderPlan(p: PreparedTemplate): RenderPlan {
  let plan = plans.get(p);
  if (plan) return plan;
  const rgb = Buffer.allocUnsafe(p.width * p.height * 3);
  flattenRow(p.baseline, 0, rgb, 0, p.width * p.height);
  const smart = p.smart.map((ps, so) => smartPlan(ps, so));
  let bytes = rgb.length;
  for (const s of smart) {
    if (!s) continue;
    bytes += s.empty.byteLength;
    const fo = s.fold;
    if (!fo) continue;
    bytes += fo.gain.byteLength + fo.offset.byteLength + (fo.mask?.byteLength ?? 0);
    bytes += fo.plain.byteLength + (fo.displaced?.byteLength ?? 0);
  }
  plan = { rgb, smart, bytes };
  plans.set(p, plan);
  return plan;
}

/**
 * The size (per axis) a design placed as `design` needs for a render of smart object `smartObjectId` with
 * `placement` and `displace`: about one design pixel per output pixel along each of its axes where the smart object
 * shows it most enlarged (as the engine would reduce it itself), never larger than the design. A caller that resizes
 * to it with a native resampler and passes `placedAs` spares the engine's own (JS) reduction.
 */
export function designTarget(
  p: PreparedTemplate,
  smartObjectId: string,
  design: { width: number; height: number },
  placement: TemplatePlacement = DEFAULT_PLACEMENT,
  displace: 'auto' | 'off' = 'auto',
): { width: number; height: number } {
  const ps = p.smart.find((s) => s.info.id === smartObjectId);
  if (!ps) throw new BadInputError(`no smart object ${smartObjectId} in this template`);
  if (!ps.frame) return { width: design.width, height: design.height };
  const uv = displace === 'auto' && ps.uvDisplaced ? ps.uvDisplaced : ps.uv;
  const m = placementMatrix(ps.geometry.width, ps.geometry.height, design.width, design.height, placement);
  const [ru, rv] = reductionOf(uv, ps.frame, m);
  return {
    width: Math.max(1, Math.min(design.width, Math.ceil(design.width / Math.max(1, ru)))),
    height: Math.max(1, Math.min(design.height, Math.ceil(design.height / Math.max(1, rv)))),
  };
}

/** A render as RGB over white, and the frames it changed (everything else is the baseline). */
export interface RgbRender {
  width: number;
  height: number;
  data: Buffer;
  frames: Frame[];
}

/** The fills by smart object index, checked. */
export function fillsByIndex(p: PreparedTemplate, fills: TemplateFill[]): [number, TemplateFill][] {
  const byIndex = new Map<number, TemplateFill>();
  for (const f of fills) {
    const i = p.smartObjects.findIndex((s) => s.id === f.smartObjectId);
    if (i < 0) throw new BadInputError(`no smart object ${f.smartObjectId} in this template`);
    if (byIndex.has(i)) throw new BadInputError(`smart object ${f.smartObjectId} filled twice`);
    const d = f.design;
    if (!(d.width > 0 && d.height > 0) || d.data.length !== d.width * d.height * 4)
      throw new BadInputError('design must be RGBA, width x height x 4 bytes');
    byIndex.set(i, f);
  }
  // bottom first, so a smart object above another one is drawn after it
  return [...byIndex.entries()].sort((a, b) => a[0] - b[0]);
}

/**
 * The template rendered with each design in its smart object, as RGB over white (transparent areas of the template
 * show white, as the mockup does). The same picture as renderTemplate flattened on white, within the 8-bit rounding
 * of the layers folded (docs/templates.md#render-speed). `out`, when given, receives it (width x height x 3 bytes).
 */
export function renderTemplateRgb(
  p: PreparedTemplate,
  fills: TemplateFill[],
  opts: RenderOptions = {},
  out?: Buffer,
): RgbRender {
  const displace = opts.displace ?? 'auto';
  if (displace !== 'auto' && displace !== 'off') throw new BadInputError(`displace must be "auto" or "off"`);
  const plan = renderPlan(p);
  const W = p.width;
  const data = out ?? Buffer.allocUnsafe(plan.rgb.length);
  if (data.length !== plan.rgb.length) throw new RangeError('renderTemplateRgb: output buffer of the wrong size');
  plan.rgb.copy(data);
  const frames: Frame[] = [];
  for (const [i, fill] of fillsByIndex(p, fills)) {
    const ps = p.smart[i]!;
    const sp = plan.smart[i];
    const f = ps.frame;
    if (!f || !sp) continue;
    frames.push(f);
    const m = fillMatrix(ps.geometry.width, ps.geometry.height, fill);
    const useDisplaced = displace === 'auto' && ps.uvDisplaced !== null;
    const uv = useDisplaced ? ps.uvDisplaced! : ps.uv;
    if (sp.fold) {
      for (let y = 0; y < f.h; y++)
        data.set(sp.empty.subarray(y * f.w * 3, (y + 1) * f.w * 3), ((f.y + y) * W + f.x) * 3);
      const spans = useDisplaced && sp.fold.displaced ? sp.fold.displaced : sp.fold.plain;
      const { mips, mm } = designLevels(uv, f, fill.design, m);
      foldedPass(data, W, f, uv, spans, mips, mm, ps.below, sp.fold);
      continue;
    }
    // the general compositor over the frame, flattened on white
    const paint: SmartPainter = (so) => (so === i ? paintImage(uv, f, fill.design, m) : null);
    const dst = ps.below.slice();
    compositeList(ps.above, f, dst, paint);
    for (let y = 0; y < f.h; y++) flattenRow(dst, y * f.w * 4, data, ((f.y + y) * W + f.x) * 3, f.w);
  }
  return { width: p.width, height: p.height, data, frames };
}

const acc = new Float64Array(4);

/** Bilinear sample (premultiplied, transparent outside) of a mip level at level pixel (x, y), weighted, into acc. */
function tap(L: { w: number; h: number; data: Float32Array }, x: number, y: number, k: number): void {
  const fx = x - 0.5;
  const fy = y - 0.5;
  const x0 = Math.floor(fx);
  const y0 = Math.floor(fy);
  const { w, h, data } = L;
  if (x0 < -1 || y0 < -1 || x0 >= w || y0 >= h) return;
  const ax = fx - x0;
  const ay = fy - y0;
  if (x0 >= 0 && y0 >= 0 && x0 + 1 < w && y0 + 1 < h) {
    const s = (y0 * w + x0) * 4;
    const t = s + w * 4;
    const w00 = (1 - ax) * (1 - ay) * k;
    const w10 = ax * (1 - ay) * k;
    const w01 = (1 - ax) * ay * k;
    const w11 = ax * ay * k;
    acc[0] = acc[0]! + data[s]! * w00 + data[s + 4]! * w10 + data[t]! * w01 + data[t + 4]! * w11;
    acc[1] = acc[1]! + data[s + 1]! * w00 + data[s + 5]! * w10 + data[t + 1]! * w01 + data[t + 5]! * w11;
    acc[2] = acc[2]! + data[s + 2]! * w00 + data[s + 6]! * w10 + data[t + 2]! * w01 + data[t + 6]! * w11;
    acc[3] = acc[3]! + data[s + 3]! * w00 + data[s + 7]! * w10 + data[t + 3]! * w01 + data[t + 7]! * w11;
    return;
  }
  tapEdge(data, w, h, x0, y0, ax, ay, k);
}

/** tap() at the level's edge: the taps outside it are transparent. */
function tapEdge(data: Float32Array, w: number, h: number, x0: number, y0: number, ax: number, ay: number, k: number) {
  for (let j = 0; j < 2; j++) {
    const yy = y0 + j;
    if (yy < 0 || yy >= h) continue;
    const wy = (j ? ay : 1 - ay) * k;
    for (let i = 0; i < 2; i++) {
      const xx = x0 + i;
      if (xx < 0 || xx >= w) continue;
      const wt = (i ? ax : 1 - ax) * wy;
      const o = (yy * w + xx) * 4;
      acc[0] = acc[0]! + data[o]! * wt;
      acc[1] = acc[1]! + data[o + 1]! * wt;
      acc[2] = acc[2]! + data[o + 2]! * wt;
      acc[3] = acc[3]! + data[o + 3]! * wt;
    }
  }
}

/**
 * One pass over the frame's mapped pixels: the design sampled (bilinear where it is about one design pixel per
 * output pixel, trilinear over its mips where the map shrinks it more, as sample.ts does), blended over the layers
 * below in the smart object's mode, the fold applied, written as RGB. Pixels the design leaves empty keep the
 * frame's empty picture, copied before.
 */
function foldedPass(
  data: Buffer,
  W: number,
  f: Frame,
  uv: Float32Array,
  spans: Int32Array,
  mips: Mips,
  mm: number[],
  below: Uint8ClampedArray,
  fold: Fold,
): void {
  const out = new Uint8ClampedArray(data.buffer, data.byteOffset, data.length);
  const { gain, offset, lut, mask, opacity, fillIn } = fold;
  const levels = mips.levels;
  const top = levels.length - 1;
  const L0 = levels[0]!;
  const d0 = L0.data;
  const w0 = L0.w;
  const h0 = L0.h;
  const row0 = w0 * 4;
  const [m0, m1, m2, m3, m4, m5] = mm as [number, number, number, number, number, number];
  const GI = 1 / G_ONE;
  const OI = 1 / O_ONE;
  const fw = f.w;
  const fh = f.h;
  for (let y = 0; y < fh; y++) {
    const xa = spans[y * 2]!;
    const xb = spans[y * 2 + 1]!;
    let o = ((f.y + y) * W + f.x + xa) * 3;
    for (let x = xa, k = y * fw + xa; x < xb; x++, k++, o += 3) {
      const cx = uv[k * 2]!;
      if (cx !== cx) continue;
      const cy = uv[k * 2 + 1]!;
      const ix = m0 * cx + m1 * cy + m2;
      const iy = m3 * cx + m4 * cy + m5;
      // footprint: design pixels per output pixel (squared), from the neighbours' content coordinates
      const kx = x + 1 < fw ? k + 1 : k - 1;
      const ky = y + 1 < fh ? k + fw : k - fw;
      let f2 = 0;
      const ax = uv[kx * 2]!;
      if (ax === ax) {
        const du = ax - cx;
        const dv = uv[kx * 2 + 1]! - cy;
        const p = m0 * du + m1 * dv;
        const q = m3 * du + m4 * dv;
        f2 = p * p + q * q;
      }
      const ay = uv[ky * 2]!;
      if (ay === ay) {
        const du = ay - cx;
        const dv = uv[ky * 2 + 1]! - cy;
        const p = m0 * du + m1 * dv;
        const q = m3 * du + m4 * dv;
        const g2 = p * p + q * q;
        if (g2 > f2) f2 = g2;
      }
      let pr: number;
      let pg: number;
      let pb: number;
      let pa: number;
      if (f2 <= 1.5625) {
        // about one design pixel per output pixel: bilinear on the base level
        const fx = ix - 0.5;
        const fy = iy - 0.5;
        const x0 = Math.floor(fx);
        const y0 = Math.floor(fy);
        if (x0 < -1 || y0 < -1 || x0 >= w0 || y0 >= h0) continue;
        const tx = fx - x0;
        const ty = fy - y0;
        if (x0 >= 0 && y0 >= 0 && x0 + 1 < w0 && y0 + 1 < h0) {
          const s = (y0 * w0 + x0) * 4;
          const t = s + row0;
          const w00 = (1 - tx) * (1 - ty);
          const w10 = tx * (1 - ty);
          const w01 = (1 - tx) * ty;
          const w11 = tx * ty;
          pa = d0[s + 3]! * w00 + d0[s + 7]! * w10 + d0[t + 3]! * w01 + d0[t + 7]! * w11;
          if (pa <= 1e-4) continue;
          pr = d0[s]! * w00 + d0[s + 4]! * w10 + d0[t]! * w01 + d0[t + 4]! * w11;
          pg = d0[s + 1]! * w00 + d0[s + 5]! * w10 + d0[t + 1]! * w01 + d0[t + 5]! * w11;
          pb = d0[s + 2]! * w00 + d0[s + 6]! * w10 + d0[t + 2]! * w01 + d0[t + 6]! * w11;
        } else {
          acc[0] = acc[1] = acc[2] = acc[3] = 0;
          tap(L0, ix, iy, 1);
          pa = acc[3]!;
          if (pa <= 1e-4) continue;
          pr = acc[0]!;
          pg = acc[1]!;
          pb = acc[2]!;
        }
      } else {
        // outside the design by more than the filter's reach: nothing to sample
        const reach = 2 * Math.sqrt(f2) + 1;
        if (ix < -reach || iy < -reach || ix > w0 + reach || iy > h0 + reach) continue;
        acc[0] = acc[1] = acc[2] = acc[3] = 0;
        const lod = 0.5 * Math.log2(f2);
        const l0 = Math.min(top, Math.floor(lod));
        const l1 = Math.min(top, l0 + 1);
        const t = l0 === l1 ? 0 : lod - l0;
        const s0 = 1 / (1 << l0);
        tap(levels[l0]!, ix * s0, iy * s0, 1 - t);
        if (t > 0) {
          const s1 = 1 / (1 << l1);
          tap(levels[l1]!, ix * s1, iy * s1, t);
        }
        pa = acc[3]!;
        if (pa <= 1e-4) continue;
        pr = acc[0]!;
        pg = acc[1]!;
        pb = acc[2]!;
      }
      let as = pa * opacity;
      if (mask) as *= mask[k]! / 255;
      if (as <= 0) continue;
      if (as > 1) as = 1;
      // straight colour, clamped: a reduced design's ringing can leave a faint edge's colour outside 0..255
      const inv = 1 / pa;
      let dr = pr * inv;
      let dg = pg * inv;
      let db = pb * inv;
      dr = dr < 0 ? 0 : dr > 255 ? 255 : dr;
      dg = dg < 0 ? 0 : dg > 255 ? 255 : dg;
      db = db < 0 ? 0 : db > 255 ? 255 : db;
      const bi = k * 4;
      const br = below[bi]!;
      const bg = below[bi + 1]!;
      const bb = below[bi + 2]!;
      let Br: number;
      let Bg: number;
      let Bb: number;
      if (lut) {
        Br = lut[(br << 8) | ((dr + 0.5) | 0)]!;
        Bg = lut[(bg << 8) | ((dg + 0.5) | 0)]!;
        Bb = lut[(bb << 8) | ((db + 0.5) | 0)]!;
        if (fillIn < 1) {
          Br = br + (Br - br) * fillIn;
          Bg = bg + (Bg - bg) * fillIn;
          Bb = bb + (Bb - bb) * fillIn;
        }
      } else {
        Br = dr;
        Bg = dg;
        Bb = db;
      }
      const g = k * 3;
      out[o] = (br + (Br - br) * as) * gain[g]! * GI + offset[g]! * OI;
      out[o + 1] = (bg + (Bg - bg) * as) * gain[g + 1]! * GI + offset[g + 1]! * OI;
      out[o + 2] = (bb + (Bb - bb) * as) * gain[g + 2]! * GI + offset[g + 2]! * OI;
    }
  }
}
