// The pixel pass of composite(): over the design's footprint, each output pixel inverse-mapped through the fabric
// warp and the rotation, the design sampled bilinearly, and blended into the blank with the ink model (photo mode:
// linear light, knit texture, shading) or flat.
import { DISP_REDUCE, SHADE_REDUCE } from './maps';
import { LIN8, LIN_Q4, OUT_LUT, OUT_STEPS } from './pixels';
import { WARP_MAX, type PreparedBlank } from './prepared';
import { TEXTURE_SIZE } from './texture';

// ---- the ink model (photo mode), linear light ----
/** Reflectance of the darkest and lightest ink: black ink is not a black hole, white ink is not a light. */
const INK_FLOOR = 0.012; // ~ sRGB 28
const INK_WHITE = 0.87; // ~ sRGB 240
/** Ink coverage: a trace of the garment shows through even solid ink. */
const INK_OPACITY = 0.97;
/** Knit texture: brightness modulation of the ink, and how much garment the knit's valleys let through. */
const TEX_GAIN = 0.1;
const TEX_COVER = 0.035;

export interface Geometry {
  cx: number;
  cy: number;
  theta: number;
  /** padded RGBA */
  design: Buffer;
  dw: number;
  dh: number;
}

interface Rect {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/**
 * Blend the design into `out` over its footprint (clipped to `clip`). Photo mode when `tex` is given.
 * Each output pixel is inverse-mapped: minus the fabric warp, rotated back, sampled bilinearly (alpha-weighted)
 * from the sized design. Returns the rectangle that was visited, or null when nothing lies inside the clip.
 */
export function paste(
  out: Buffer,
  blank: PreparedBlank,
  g: Geometry,
  clip: Rect,
  tex: Float32Array | null,
  applyTexture: boolean,
): Rect | null {
  const photo = tex !== null;
  const W = blank.width;
  const cos = Math.cos(g.theta);
  const sin = Math.sin(g.theta);
  // footprint of the rotated design (+ the largest warp in photo mode)
  const margin = (photo ? Math.ceil(WARP_MAX * W) : 0) + 2;
  const ex = (Math.abs(cos) * g.dw + Math.abs(sin) * g.dh) / 2 + margin;
  const ey = (Math.abs(sin) * g.dw + Math.abs(cos) * g.dh) / 2 + margin;
  const x0 = Math.max(clip.x0, Math.floor(g.cx - ex));
  const x1 = Math.min(clip.x1, Math.ceil(g.cx + ex));
  const y0 = Math.max(clip.y0, Math.floor(g.cy - ey));
  const y1 = Math.min(clip.y1, Math.ceil(g.cy + ey));
  if (x1 <= x0 || y1 <= y0) return null;

  const d = g.design;
  const PW = g.dw + 2;
  const row = PW * 4;
  const uMax = g.dw + 1;
  const vMax = g.dh + 1;
  const hu = g.dw / 2 + 0.5;
  const hv = g.dh / 2 + 0.5;
  const cx = g.cx;
  const cy = g.cy;

  if (!photo) {
    for (let Y = y0; Y < y1; Y++) {
      const py = Y + 0.5 - cy;
      let o = (Y * W + x0) * 3;
      for (let X = x0; X < x1; X++, o += 3) {
        const px = X + 0.5 - cx;
        const u = cos * px + sin * py + hu;
        const v = -sin * px + cos * py + hv;
        if (!(u >= 0 && u < uMax && v >= 0 && v < vMax)) continue;
        const u0 = u | 0;
        const v0 = v | 0;
        const fu = u - u0;
        const fv = v - v0;
        const i = (v0 * PW + u0) << 2;
        const w00 = (1 - fu) * (1 - fv) * d[i + 3]!;
        const w10 = fu * (1 - fv) * d[i + 7]!;
        const w01 = (1 - fu) * fv * d[i + row + 3]!;
        const w11 = fu * fv * d[i + row + 7]!;
        const A = w00 + w10 + w01 + w11;
        if (A < 0.5) continue;
        const inv = 1 / A;
        const r = (w00 * d[i]! + w10 * d[i + 4]! + w01 * d[i + row]! + w11 * d[i + row + 4]!) * inv;
        const gg = (w00 * d[i + 1]! + w10 * d[i + 5]! + w01 * d[i + row + 1]! + w11 * d[i + row + 5]!) * inv;
        const b = (w00 * d[i + 2]! + w10 * d[i + 6]! + w01 * d[i + row + 2]! + w11 * d[i + row + 6]!) * inv;
        const a = A / 255;
        out[o] = (out[o]! + (r - out[o]!) * a + 0.5) | 0;
        out[o + 1] = (out[o + 1]! + (gg - out[o + 1]!) * a + 0.5) | 0;
        out[o + 2] = (out[o + 2]! + (b - out[o + 2]!) * a + 0.5) | 0;
      }
    }
    return { x0, y0, x1, y1 };
  }

  // ---- photo mode ----
  const { shade, shadeW, shadeH, dispW, dispH } = blank.maps;
  const warp = blank.warp;
  const dif = blank.diffuseLut;
  const sheen = blank.sheenLut;
  const n = x1 - x0;
  // per-column horizontal taps of the reduced maps (index, weight)
  const sI = new Int32Array(n);
  const sF = new Float32Array(n);
  const wI = new Int32Array(n);
  const wF = new Float32Array(n);
  for (let k = 0; k < n; k++) {
    colTap(x0 + k, SHADE_REDUCE, shadeW, sI, sF, k);
    colTap(x0 + k, DISP_REDUCE, dispW, wI, wF, k);
  }
  // one row of each map, interpolated vertically for the current output row (+1 sample for the right tap)
  const shadeRow = new Float32Array(shadeW + 1);
  const warpRow = new Float32Array(2 * (dispW + 1));
  const TM = TEXTURE_SIZE - 1;
  const texOn = applyTexture && tex !== null;
  const texture = tex!;
  const INK_RANGE = INK_WHITE - INK_FLOOR;
  // imported bindings compile to property loads on the module object: hoist them out of the pixel loop
  const lin8 = LIN8;
  const linQ4 = LIN_Q4;
  const outLut = OUT_LUT;
  const outSteps = OUT_STEPS;
  const SR = SHADE_REDUCE;
  const DR = DISP_REDUCE;

  for (let Y = y0; Y < y1; Y++) {
    // vertical interpolation of the map rows this output row needs
    let gy = (Y + 0.5) / SR - 0.5;
    gy = gy < 0 ? 0 : gy > shadeH - 1 ? shadeH - 1 : gy;
    let j0 = Math.floor(gy);
    let j1 = j0 + 1 < shadeH ? j0 + 1 : j0;
    let fy = gy - j0;
    const sLo = sI[0]!;
    const sHi = Math.min(shadeW - 1, sI[n - 1]! + 1);
    for (let c = sLo, r0 = j0 * shadeW, r1 = j1 * shadeW; c <= sHi; c++)
      shadeRow[c] = shade[r0 + c]! + (shade[r1 + c]! - shade[r0 + c]!) * fy;
    shadeRow[sHi + 1] = shadeRow[sHi]!;
    gy = (Y + 0.5) / DR - 0.5;
    gy = gy < 0 ? 0 : gy > dispH - 1 ? dispH - 1 : gy;
    j0 = Math.floor(gy);
    j1 = j0 + 1 < dispH ? j0 + 1 : j0;
    fy = gy - j0;
    const wLo = wI[0]!;
    const wHi = Math.min(dispW - 1, wI[n - 1]! + 1);
    for (let c = wLo, r0 = j0 * dispW * 2, r1 = j1 * dispW * 2; c <= wHi; c++) {
      const q = c * 2;
      warpRow[q] = warp[r0 + q]! + (warp[r1 + q]! - warp[r0 + q]!) * fy;
      warpRow[q + 1] = warp[r0 + q + 1]! + (warp[r1 + q + 1]! - warp[r0 + q + 1]!) * fy;
    }
    warpRow[(wHi + 1) * 2] = warpRow[wHi * 2]!;
    warpRow[(wHi + 1) * 2 + 1] = warpRow[wHi * 2 + 1]!;

    const texRow = (Y & TM) * TEXTURE_SIZE;
    const yc = Y + 0.5 - cy;
    let o = (Y * W + x0) * 3;
    for (let k = 0; k < n; k++, o += 3) {
      const X = x0 + k;
      // fabric warp
      const q = wI[k]! << 1;
      const fx = wF[k]!;
      const ox = warpRow[q]! + (warpRow[q + 2]! - warpRow[q]!) * fx;
      const oy = warpRow[q + 1]! + (warpRow[q + 3]! - warpRow[q + 1]!) * fx;
      const px = X + 0.5 + ox - cx;
      const py = yc + oy;
      const u = cos * px + sin * py + hu;
      const v = cos * py - sin * px + hv;
      if (!(u >= 0 && u < uMax && v >= 0 && v < vMax)) continue;
      const u0 = u | 0;
      const v0 = v | 0;
      const fu = u - u0;
      const fv = v - v0;
      const i = (v0 * PW + u0) << 2;
      const j = i + row;
      const w00 = (1 - fu) * (1 - fv) * d[i + 3]!;
      const w10 = fu * (1 - fv) * d[i + 7]!;
      const w01 = (1 - fu) * fv * d[j + 3]!;
      const w11 = fu * fv * d[j + 7]!;
      const A = w00 + w10 + w01 + w11;
      if (A < 0.5) continue;
      const inv = 4 / A; // colors in quarter steps for LIN_Q4
      const r = (w00 * d[i]! + w10 * d[i + 4]! + w01 * d[j]! + w11 * d[j + 4]!) * inv;
      const gg = (w00 * d[i + 1]! + w10 * d[i + 5]! + w01 * d[j + 1]! + w11 * d[j + 5]!) * inv;
      const b = (w00 * d[i + 2]! + w10 * d[i + 6]! + w01 * d[j + 2]! + w11 * d[j + 6]!) * inv;

      // light on the fabric at this spot
      const sc = sI[k]!;
      const sv = shadeRow[sc]!;
      const S = (sv + (shadeRow[sc + 1]! - sv) * sF[k]! + 0.5) | 0;
      let light = dif[S]!;
      let cover = A * (INK_OPACITY / 255);
      // knit relief: a micro-shadow on ink and fabric alike; the ink is thinner in the valleys
      let knit = 1;
      if (texOn) {
        const t = texture[texRow + (X & TM)]!;
        knit = 1 + TEX_GAIN * t;
        light *= knit;
        if (t < 0) cover *= 1 + TEX_COVER * t;
      }
      const hl = sheen[S]!;
      // ink under that light, then the fabric's sheen screened over it
      let ir = (INK_FLOOR + linQ4[(r + 0.5) | 0]! * INK_RANGE) * light;
      let ig = (INK_FLOOR + linQ4[(gg + 0.5) | 0]! * INK_RANGE) * light;
      let ib = (INK_FLOOR + linQ4[(b + 0.5) | 0]! * INK_RANGE) * light;
      if (hl > 0) {
        ir += hl * (1 - ir);
        ig += hl * (1 - ig);
        ib += hl * (1 - ib);
      }
      const gr = lin8[out[o]!]! * knit;
      const gG = lin8[out[o + 1]!]! * knit;
      const gb = lin8[out[o + 2]!]! * knit;
      let lr = gr + (ir - gr) * cover;
      let lg = gG + (ig - gG) * cover;
      let lb = gb + (ib - gb) * cover;
      if (lr > 1) lr = 1;
      if (lg > 1) lg = 1;
      if (lb > 1) lb = 1;
      out[o] = outLut[(lr * outSteps + 0.5) | 0]!;
      out[o + 1] = outLut[(lg * outSteps + 0.5) | 0]!;
      out[o + 2] = outLut[(lb * outSteps + 0.5) | 0]!;
    }
  }
  return { x0, y0, x1, y1 };
}

/** Horizontal bilinear tap of blank column `p` in a map reduced by `k` with `n` samples. */
function colTap(p: number, k: number, n: number, idx: Int32Array, frac: Float32Array, at: number): void {
  let g = (p + 0.5) / k - 0.5;
  if (g < 0) g = 0;
  if (g > n - 1) g = n - 1;
  const a = Math.floor(g);
  idx[at] = a;
  frac[at] = g - a;
}
