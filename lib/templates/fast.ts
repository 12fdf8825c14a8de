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
// so). A smart object clipped to a normal layer below it, alone in its clipping group, folds too (the design blended
// onto the base's pixels in the pass). Anything else (a backdrop with transparency, other modes, groups or clipping
// above, a smart object inside a group or clipped to) renders through the general compositor (composite.ts) over the
// frame, flattened on white.
// The per-pixel pass of a folded smart object is in fast-pass.ts.
import { blendLut, FILL_INSIDE_MODES, isSeparable } from './blend';
import { compositeList, maskOver, type Frame, type SmartPainter } from './composite';
import { BadInputError } from '../errors';
import {
  DEFAULT_PLACEMENT,
  designLevels,
  blockOnFrame,
  fillMatrix,
  paintImage,
  placementMatrix,
  reductionOf,
  type LevelsCache,
} from './paint';
import type { PreparedSmart, PreparedTemplate } from './prepare';
import type { RenderOptions, TemplateFill, TemplatePlacement } from './types';
import { foldedPass, footprints, G_ONE, O_ONE, type Fold } from './fast-pass';

/** Modes of layers above a smart object that fold (affine in the backdrop). */
const FOLDABLE = new Set(['normal', 'multiply', 'screen']);

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
function foldOf(
  ps: PreparedSmart,
  so: number,
  f: Frame,
): Omit<Fold, 'plain' | 'displaced' | 'plainSteps' | 'displacedSteps'> | null {
  const below = ps.below;
  for (let i = 3; i < below.length; i += 4) if (below[i] !== 255) return null;
  let [top, ...rest] = ps.above;
  // a smart object clipped to a layer below it (alone in its clipping group): the base's pixels and coverage
  let base: Fold['base'] = null;
  if (top && !top.clip && rest[0]?.clip) {
    if (top.kind !== 'pixels' || top.hidden || top.mode !== 'normal' || !top.img) return null;
    const b = top;
    const bm = b.mask ? maskOver(b.mask, f.x, f.y, f.w, f.h) : null;
    const rgba = blockOnFrame(b.img!, f);
    const cover = new Float32Array(f.w * f.h);
    const k = b.opacity / 255;
    for (let p = 0; p < cover.length; p++) cover[p] = rgba[p * 4 + 3]! * k * (bm ? bm[p]! / 255 : 1);
    base = { rgba, cover, fill: b.fill };
    [top, ...rest] = rest;
  }
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
    base,
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
  if (!fold) return { empty, fold: null };
  const plain = spansOf(ps.uv, f);
  const displaced = ps.uvDisplaced ? spansOf(ps.uvDisplaced, f) : null;
  return {
    empty,
    fold: {
      ...fold,
      plain,
      displaced,
      plainSteps: footprints(ps.uv, f, plain),
      displacedSteps: ps.uvDisplaced && displaced ? footprints(ps.uvDisplaced, f, displaced) : null,
    },
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
    bytes += fo.base ? fo.base.rgba.byteLength + fo.base.cover.byteLength : 0;
    bytes += fo.plain.byteLength + (fo.displaced?.byteLength ?? 0);
    bytes += fo.plainSteps.byteLength + (fo.displacedSteps?.byteLength ?? 0);
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
 * `levels`, when given, keeps the designs' mip pyramids between renders (for fills with a designKey).
 */
export function renderTemplateRgb(
  p: PreparedTemplate,
  fills: TemplateFill[],
  opts: RenderOptions = {},
  out?: Buffer,
  levels?: LevelsCache,
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
      const fo = sp.fold;
      const displaced = useDisplaced && fo.displaced && fo.displacedSteps;
      const spans = displaced ? fo.displaced! : fo.plain;
      const steps = displaced ? fo.displacedSteps! : fo.plainSteps;
      const key = levels && fill.designKey;
      const { mips, mm } = designLevels(uv, f, fill.design, m, key ? { cache: levels, key } : undefined);
      foldedPass(data, W, f, uv, spans, steps, mips, mm, ps.below, fo);
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
