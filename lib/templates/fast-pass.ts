// The fast path's pass over one smart object's frame (fast.ts): the design sampled bilinearly through the content map
// (mip levels, transparent outside), blended over the flattened layers below in the smart object's mode, and the
// fold of the layers above applied (x * gain + offset per pixel and channel, fixed point).
import type { Frame } from './composite';
import type { Mips } from './sample';

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
      const cy = uv[k * 2 + 1]!;
      const kx = x + 1 < fw ? k + 1 : k - 1;
      const ky = y + 1 < fh ? k + fw : k - fw;
      let max = 0;
      const ax = uv[kx * 2]!;
      if (ax === ax) {
        const du = ax - cx;
        const dv = uv[kx * 2 + 1]! - cy;
        max = du * du + dv * dv;
      }
      const ay = uv[ky * 2]!;
      if (ay === ay) {
        const du = ay - cx;
        const dv = uv[ky * 2 + 1]! - cy;
        const e = du * du + dv * dv;
        if (e > max) max = e;
      }
      const b = y * nb + ((x / STEP_BLOCK) | 0);
      if (max > out[b]!) out[b] = max;
    }
  }
  return out;
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
