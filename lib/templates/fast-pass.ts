// The fast path's pass over one smart object's frame (fast.ts): the design sampled bilinearly through the content map
// (mip levels, transparent outside), blended over the flattened layers below in the smart object's mode, and the
// fold of the layers above applied (x * gain + offset per pixel and channel, fixed point).
import type { Frame } from './composite';
import * as sample from './sample';
import type { Mips } from './sample';

// sample.ts's kernels, read once: through an import binding (a getter per call where tsx runs the code as CommonJS)
// each call in the pass cost ~40 % of a render's CPU (docs/templates.md#render-speed)
const { footprint2, tap, trilinear } = sample;

/** Fixed-point scales of the fold: gain (0..1) in 1/32768, offset (0..255) in 1/128. */
export const G_ONE = 32768;
export const O_ONE = 128;

export interface Fold {
  /** 3 per frame pixel */
  gain: Uint16Array;
  offset: Uint16Array;
  /** the smart object's layer: separable mode's table (null: normal), opacity, fill inside the blend, mask */
  lut: Uint8Array | null;
  opacity: number;
  fillIn: number;
  mask: Uint8Array | null;
  /** the smart object clipped to a normal layer below it: that base's pixels over the frame (RGBA), its coverage
   * there (its alpha x mask x opacity, 0..1) and its fill; the design is blended onto the base's colour (of alpha
   * its fill), the result composited over the layers below with that coverage (composite.ts's clipping group) */
  base: { rgba: Uint8ClampedArray; cover: Float32Array; fill: number } | null;
  /** the rows' spans of mapped pixels of the content map, and of the displaced one */
  plain: Int32Array;
  displaced: Int32Array | null;
  /** their steps per block of pixels (footprints()) */
  plainSteps: Float32Array;
  displacedSteps: Float32Array | null;
}

/** Pixels per block of a row in footprints(). */
export const STEP_BLOCK = 16;

/**
 * Per block of STEP_BLOCK pixels of a row, the largest squared step (content pixels) from a mapped pixel to the
 * neighbours foldedPass measures its footprint with (right or left, below or above). Times the placement's largest
 * stretch it bounds the footprint of every pixel of the block: a block the design is not shrunk in (most of them)
 * skips the per-pixel footprint, with the same outcome.
 */
export function footprints(uv: Float32Array, f: Frame, spans: Int32Array): Float32Array {
  const fw = f.w;
  const fh = f.h;
  const nb = Math.ceil(fw / STEP_BLOCK);
  const out = new Float32Array(fh * nb);
  for (let y = 0; y < fh; y++) {
    for (let x = spans[y * 2]!, k = y * fw + x; x < spans[y * 2 + 1]!; x++, k++) {
      const cx = uv[k * 2]!;
      if (cx !== cx) continue;
      const kx = x + 1 < fw ? k + 1 : k - 1;
      const ky = y + 1 < fh ? k + fw : k - fw;
      const max = footprint2(uv, cx, uv[k * 2 + 1]!, kx, ky, 1, 0, 0, 1);
      const b = y * nb + ((x / STEP_BLOCK) | 0);
      if (max > out[b]!) out[b] = max;
    }
  }
  return out;
}

const acc = new Float64Array(4);

/**
 * One pass over the frame's mapped pixels: the design sampled (bilinear where it is about one design pixel per
 * output pixel, trilinear over its mips where the map shrinks it more, as sample.ts does), blended over the layers
 * below in the smart object's mode, the fold applied, written as RGB. Pixels the design leaves empty keep the
 * frame's empty picture, copied before.
 */
export function foldedPass(
  data: Buffer,
  W: number,
  f: Frame,
  uv: Float32Array,
  spans: Int32Array,
  steps: Float32Array,
  mips: Mips,
  mm: number[],
  below: Uint8ClampedArray,
  fold: Fold,
): void {
  const out = new Uint8ClampedArray(data.buffer, data.byteOffset, data.length);
  const { gain, offset, lut, mask, opacity, fillIn } = fold;
  const baseRgba = fold.base?.rgba;
  const cover = fold.base?.cover;
  const baseFill = fold.base?.fill ?? 1;
  const levels = mips.levels;
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
  // the placement's largest stretch, squared (the larger eigenvalue of AtA, A its 2x2 part): a block whose steps
  // (footprints()) stay under `lim` has every footprint under the bilinear threshold (with a margin against rounding)
  const q11 = m0 * m0 + m3 * m3;
  const q22 = m1 * m1 + m4 * m4;
  const q12 = m0 * m1 + m3 * m4;
  const stretch2 = (q11 + q22) / 2 + Math.sqrt(((q11 - q22) / 2) ** 2 + q12 * q12);
  const lim = (1.5625 / stretch2) * (1 - 1e-6);
  const nb = Math.ceil(fw / STEP_BLOCK);
  for (let y = 0; y < fh; y++) {
    const xa = spans[y * 2]!;
    const xb = spans[y * 2 + 1]!;
    const rb = y * nb;
    let o = ((f.y + y) * W + f.x + xa) * 3;
    for (let x = xa, k = y * fw + xa; x < xb; x++, k++, o += 3) {
      const cx = uv[k * 2]!;
      if (cx !== cx) continue;
      const cy = uv[k * 2 + 1]!;
      const ix = m0 * cx + m1 * cy + m2;
      const iy = m3 * cx + m4 * cy + m5;
      // footprint: design pixels per output pixel (squared), from the neighbours' content coordinates, where the
      // block's bound does not settle it
      let f2 = 0;
      if (steps[rb + ((x / STEP_BLOCK) | 0)]! >= lim) {
        const kx = x + 1 < fw ? k + 1 : k - 1;
        const ky = y + 1 < fh ? k + fw : k - fw;
        f2 = footprint2(uv, cx, cy, kx, ky, m0, m1, m3, m4);
      }
      let pr: number;
      let pg: number;
      let pb: number;
      let pa: number;
      if (f2 <= 1.5625) {
        // about one design pixel per output pixel: bilinear on the base level; inside it, tap()'s interior written
        // out here with the alpha first (tap() is too large for V8 to inline, and calling it per pixel doubled the
        // pass's CPU time: docs/templates.md#render-speed)
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
          tap(L0, ix, iy, 1, acc);
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
        trilinear(levels, ix, iy, f2, acc);
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
      if (baseRgba) {
        clippedPixel(out, o, k, as, dr, dg, db, below, baseRgba, cover!, baseFill, lut, fillIn, gain, offset);
        continue;
      }
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

/** One channel of the design (straight colour d, coverage as) blended onto a clipping base's colour b of alpha a
 * (its fill; the W3C formula, as composite.ts blends a clipped layer onto its base), in the smart object's mode. */
function ontoBase(b: number, a: number, d: number, as: number, lut: Uint8Array | null, fillIn: number): number {
  let x = d;
  if (lut) {
    x = lut[(b << 8) | ((d + 0.5) | 0)]!;
    if (fillIn < 1) x = b + (x - b) * fillIn;
  }
  if (a >= 1) return b + (x - b) * as;
  const ao = as + a * (1 - as);
  return ((d + (x - d) * a) * as + b * a * (1 - as)) / ao;
}

/** A pixel of a smart object clipped to a base: the design onto the base's colour (of alpha its fill `a`), the
 * result over the layers below with the base's coverage, the fold applied. */
function clippedPixel(
  out: Uint8ClampedArray,
  o: number,
  k: number,
  as: number,
  dr: number,
  dg: number,
  db: number,
  below: Uint8ClampedArray,
  base: Uint8ClampedArray,
  cover: Float32Array,
  a: number,
  lut: Uint8Array | null,
  fillIn: number,
  gain: Uint16Array,
  offset: Uint16Array,
): void {
  // the base's coverage times what covers it inside: its fill, and the design over that
  const c = cover[k]! * (a + as - a * as);
  if (c <= 0) return;
  const bi = k * 4;
  const g = k * 3;
  const lr = below[bi]!;
  const lg = below[bi + 1]!;
  const lb = below[bi + 2]!;
  const r = ontoBase(base[bi]!, a, dr, as, lut, fillIn);
  const gg = ontoBase(base[bi + 1]!, a, dg, as, lut, fillIn);
  const b = ontoBase(base[bi + 2]!, a, db, as, lut, fillIn);
  out[o] = ((lr + (r - lr) * c) * gain[g]!) / G_ONE + offset[g]! / O_ONE;
  out[o + 1] = ((lg + (gg - lg) * c) * gain[g + 1]!) / G_ONE + offset[g + 1]! / O_ONE;
  out[o + 2] = ((lb + (b - lb) * c) * gain[g + 2]!) / G_ONE + offset[g + 2]! / O_ONE;
}
