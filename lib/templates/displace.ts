// Displacement: the design follows the surface under the smart object. Derived from the flattened layers below it
// (their luminance, blurred, as a height field: its gradient moves the design a few pixels along folds), as the
// blank renderer does (lib/compositing/maps.ts). A template's Displace smart filter sets the strength from its
// horizontal/vertical scales; when the filter's map is embedded in the file, the map itself drives it (mapDisplacement).
import type { DisplaceFilter } from './model';
import type { Rect } from './sample';

/** Largest displacement, as a fraction of the frame's long side, and the typical (95th percentile) one. */
export const DISPLACE_MAX = 0.012;
export const DISPLACE_P95 = 0.006;
/** The slope (luminance change across the frame's long side, 0..1 per side) under which a backdrop counts as nearly
 * flat: its displacement is scaled down in proportion, so a faint texture (a wall's grain) does not bend the design
 * as much as a fold does. */
export const DISPLACE_FLAT_SLOPE = 1;

/** A box blur of radius r along x then y, edges clamped: the running sums as a plain loop would add them (the same
 * values), with the clamping only where the window crosses an edge. */
function boxBlur(src: Float32Array, w: number, h: number, r: number): Float32Array {
  const tmp = new Float32Array(w * h);
  const out = new Float32Array(w * h);
  const n = 2 * r + 1;
  for (let y = 0; y < h; y++) {
    const row = y * w;
    let acc = 0;
    for (let x = -r; x <= r; x++) acc += src[row + (x < 0 ? 0 : x > w - 1 ? w - 1 : x)]!;
    // interior: x + r + 1 <= w - 1 and x - r >= 0
    const a = Math.min(w, r);
    const b = Math.max(a, w - r - 1);
    let x = 0;
    for (; x < a; x++) {
      tmp[row + x] = acc / n;
      acc += src[row + Math.min(w - 1, x + r + 1)]! - src[row]!;
    }
    for (; x < b; x++) {
      tmp[row + x] = acc / n;
      acc += src[row + x + r + 1]! - src[row + x - r]!;
    }
    for (; x < w; x++) {
      tmp[row + x] = acc / n;
      acc += src[row + w - 1]! - src[row + Math.max(0, x - r)]!;
    }
  }
  // columns, all at once row by row (reads and writes in memory order)
  const acc = new Float64Array(w);
  for (let y = -r; y <= r; y++) {
    const s = (y < 0 ? 0 : y > h - 1 ? h - 1 : y) * w;
    for (let x = 0; x < w; x++) acc[x] = acc[x]! + tmp[s + x]!;
  }
  for (let y = 0; y < h; y++) {
    const o = y * w;
    const add = Math.min(h - 1, y + r + 1) * w;
    const sub = Math.max(0, y - r) * w;
    for (let x = 0; x < w; x++) {
      out[o + x] = acc[x]! / n;
      acc[x] = acc[x]! + (tmp[add + x]! - tmp[sub + x]!);
    }
  }
  return out;
}

/** Per frame pixel (dx, dy) in document pixels, or null when the backdrop is flat. */
export function autoDisplacement(
  below: Uint8ClampedArray,
  f: Rect,
  filter: Omit<DisplaceFilter, 'map'> | null,
): Float32Array | null {
  const { w, h } = f;
  if (w < 3 || h < 3) return null;
  let lum: Float32Array = new Float32Array(w * h);
  for (let i = 0; i < w * h; i++) {
    const a = below[i * 4 + 3]! / 255;
    lum[i] = ((0.2126 * below[i * 4]! + 0.7152 * below[i * 4 + 1]! + 0.0722 * below[i * 4 + 2]!) / 255) * a + (1 - a);
  }
  const r = Math.max(1, Math.round(Math.max(w, h) / 120));
  for (let k = 0; k < 3; k++) lum = boxBlur(lum, w, h, r);
  const off = new Float32Array(w * h * 2);
  // the gradient's magnitude sampled on every 7th diagonal, for its 95th percentile
  const mags = new Float64Array(Math.ceil((w * h) / 7) + h);
  let nm = 0;
  for (let y = 0; y < h; y++) {
    const up = Math.max(0, y - 1) * w;
    const down = Math.min(h - 1, y + 1) * w;
    const row = y * w;
    let nx = (7 - (y % 7)) % 7;
    for (let x = 0; x < w; x++) {
      const gx = (lum[row + (x + 1 < w ? x + 1 : w - 1)]! - lum[row + (x > 0 ? x - 1 : 0)]!) / 2;
      const gy = (lum[down + x]! - lum[up + x]!) / 2;
      off[(row + x) * 2] = gx;
      off[(row + x) * 2 + 1] = gy;
      if (x === nx) {
        mags[nm++] = Math.hypot(gx, gy);
        nx += 7;
      }
    }
  }
  const sorted = mags.subarray(0, nm).sort();
  const p95 = nm ? sorted[Math.floor(nm * 0.95)]! : 0;
  if (p95 < 1e-5) return null;
  const side = Math.max(w, h);
  const strength = filter ? Math.max(filter.horizontalScale, filter.verticalScale) / 10 : 1;
  const gain = ((DISPLACE_P95 * side) / Math.max(p95, DISPLACE_FLAT_SLOPE / side)) * strength;
  const max = DISPLACE_MAX * side * strength;
  const sx = filter ? filter.horizontalScale / Math.max(filter.horizontalScale, filter.verticalScale, 1e-9) : 1;
  const sy = filter ? filter.verticalScale / Math.max(filter.horizontalScale, filter.verticalScale, 1e-9) : 1;
  for (let i = 0; i < off.length; i += 2) {
    const dx = off[i]! * gain * sx;
    const dy = off[i + 1]! * gain * sy;
    const len = Math.hypot(dx, dy);
    const k = len > 1e-9 ? (max * Math.tanh(len / max)) / len : 1;
    off[i] = dx * k;
    off[i + 1] = dy * k;
  }
  return off;
}

/** The content map read at displaced positions (bilinear within the map, the nearest where a neighbour is empty). */
export function displacedMap(uv: Float32Array, f: Rect, off: Float32Array): Float32Array {
  const { w, h } = f;
  const out = new Float32Array(uv.length).fill(NaN);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      const k = y * w + x;
      const px = Math.min(w - 1, Math.max(0, x + off[k * 2]!));
      const py = Math.min(h - 1, Math.max(0, y + off[k * 2 + 1]!));
      const x0 = Math.floor(px);
      const y0 = Math.floor(py);
      const x1 = Math.min(w - 1, x0 + 1);
      const y1 = Math.min(h - 1, y0 + 1);
      const fx = px - x0;
      const fy = py - y0;
      for (let c = 0; c < 2; c++) {
        const a = uv[(y0 * w + x0) * 2 + c]!;
        const b = uv[(y0 * w + x1) * 2 + c]!;
        const d = uv[(y1 * w + x0) * 2 + c]!;
        const e = uv[(y1 * w + x1) * 2 + c]!;
        const v = (a * (1 - fx) + b * fx) * (1 - fy) + (d * (1 - fx) + e * fx) * fy;
        out[k * 2 + c] = v === v ? v : uv[(Math.round(py) * w + Math.round(px)) * 2 + c]!;
      }
    }
  return out;
}

/** Pixels a Displace filter at 100 % moves content at most (a map value of 0 or 255). */
export const DISPLACE_MAP_FULL = 128;

/** The largest shift a Displace filter's scales allow, in pixels. */
export function mapReach(f: Pick<DisplaceFilter, 'horizontalScale' | 'verticalScale'>): number {
  return (Math.max(Math.abs(f.horizontalScale), Math.abs(f.verticalScale)) / 100) * DISPLACE_MAP_FULL;
}

/**
 * Per frame pixel (dx, dy) from a Displace filter's own map, as Photoshop's Displace reads it: the map stretched over
 * the smart object's bounds `b` (or tiled from its corner), red for x and green for y, 128 = no shift, 0 and 255 the
 * largest shift (scale % of 128 px); the content seen at a pixel comes from (x + dx, y + dy). Bilinear in the map.
 */
export function mapDisplacement(f: DisplaceFilter, frame: Rect, b: Rect): Float32Array | null {
  const m = f.map;
  if (!m || m.width < 1 || m.height < 1 || b.w < 1 || b.h < 1) return null;
  const kx = f.horizontalScale / 100 / 128;
  const ky = f.verticalScale / 100 / 128;
  const off = new Float32Array(frame.w * frame.h * 2);
  const at = (x: number, y: number, c: number) => m.data[(y * m.width + x) * 4 + c]!;
  for (let y = 0; y < frame.h; y++)
    for (let x = 0; x < frame.w; x++) {
      // position in the map (its pixel centres), clamped at its edges
      let u = f.tile ? frame.x + x - b.x : ((frame.x + x - b.x + 0.5) / b.w) * m.width - 0.5;
      let v = f.tile ? frame.y + y - b.y : ((frame.y + y - b.y + 0.5) / b.h) * m.height - 0.5;
      if (f.tile) {
        u = ((u % m.width) + m.width) % m.width;
        v = ((v % m.height) + m.height) % m.height;
      }
      u = Math.min(m.width - 1, Math.max(0, u));
      v = Math.min(m.height - 1, Math.max(0, v));
      const x0 = Math.floor(u);
      const y0 = Math.floor(v);
      const x1 = Math.min(m.width - 1, x0 + 1);
      const y1 = Math.min(m.height - 1, y0 + 1);
      const fx = u - x0;
      const fy = v - y0;
      const sample = (c: number) =>
        (at(x0, y0, c) * (1 - fx) + at(x1, y0, c) * fx) * (1 - fy) +
        (at(x0, y1, c) * (1 - fx) + at(x1, y1, c) * fx) * fy;
      off[(y * frame.w + x) * 2] = (sample(0) - 128) * 128 * kx;
      off[(y * frame.w + x) * 2 + 1] = (sample(1) - 128) * 128 * ky;
    }
  return off;
}
