/** Deterministic pseudo-random numbers and noise fields (no Math.random anywhere). */

/** mulberry32: small, fast, good enough for texture noise. Returns floats in [0, 1). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Seeds from names (lib/hash.ts), re-exported for the blank builders. */
export { hashString } from '../hash';

/**
 * Smooth value noise on a lattice of `cell` pixels, values in [-1, 1].
 * Bicubic-smoothstep interpolation of a random lattice.
 */
export function valueNoise(width: number, height: number, cell: number, seed: number): Float32Array {
  const rnd = prng(seed);
  const gw = Math.ceil(width / cell) + 2;
  const gh = Math.ceil(height / cell) + 2;
  const grid = new Float32Array(gw * gh);
  for (let i = 0; i < grid.length; i++) grid[i] = rnd() * 2 - 1;
  const out = new Float32Array(width * height);
  const inv = 1 / cell;
  // precompute x weights
  const xi = new Int32Array(width);
  const xw = new Float32Array(width);
  for (let x = 0; x < width; x++) {
    const gx = x * inv;
    const i = Math.floor(gx);
    const t = gx - i;
    xi[x] = i;
    xw[x] = t * t * (3 - 2 * t);
  }
  for (let y = 0; y < height; y++) {
    const gy = y * inv;
    const j = Math.floor(gy);
    let t = gy - j;
    t = t * t * (3 - 2 * t);
    const r0 = j * gw;
    const r1 = r0 + gw;
    const o = y * width;
    for (let x = 0; x < width; x++) {
      const i = xi[x]!;
      const w = xw[x]!;
      const a = grid[r0 + i]! + (grid[r0 + i + 1]! - grid[r0 + i]!) * w;
      const b = grid[r1 + i]! + (grid[r1 + i + 1]! - grid[r1 + i]!) * w;
      out[o + x] = a + (b - a) * t;
    }
  }
  return out;
}

/** Sum of octaves of value noise (fractal), roughly in [-1, 1]. */
export function fbm(width: number, height: number, cell: number, octaves: number, seed: number): Float32Array {
  const out = new Float32Array(width * height);
  let amp = 1;
  let norm = 0;
  let c = cell;
  for (let o = 0; o < octaves; o++) {
    const n = valueNoise(width, height, Math.max(1, c), seed + o * 7919);
    for (let i = 0; i < out.length; i++) out[i]! += n[i]! * amp;
    norm += amp;
    amp *= 0.5;
    c /= 2;
  }
  for (let i = 0; i < out.length; i++) out[i]! /= norm;
  return out;
}

/**
 * Knit-like grain at full resolution: fine white noise, correlated vertically
 * (knit wales run vertically), plus faint column structure. Values ~[-1, 1].
 * `pitch` is the wale spacing in pixels (may be < 1 at small sizes; then the
 * column term is skipped).
 */
export function knitGrain(width: number, height: number, pitch: number, seed: number): Float32Array {
  const rnd = prng(seed);
  const n = width * height;
  const white = new Float32Array(n);
  for (let i = 0; i < n; i++) white[i] = rnd() * 2 - 1;
  const out = new Float32Array(n);
  // vertical 3-tap smoothing -> elongated "stitch" speckles
  for (let y = 0; y < height; y++) {
    const o = y * width;
    const up = y > 0 ? o - width : o;
    const dn = y < height - 1 ? o + width : o;
    for (let x = 0; x < width; x++) {
      out[o + x] = 0.5 * white[o + x]! + 0.3 * white[up + x]! + 0.3 * white[dn + x]!;
    }
  }
  if (pitch >= 1.5) {
    // faint wale columns with slowly wandering phase
    const wob = valueNoise(width, height, Math.max(8, pitch * 24), seed ^ 0x9e3779b9);
    const k = (2 * Math.PI) / pitch;
    for (let y = 0; y < height; y++) {
      const o = y * width;
      for (let x = 0; x < width; x++) {
        out[o + x]! += 0.35 * Math.sin(k * x + wob[o + x]! * 3);
      }
    }
  }
  return out;
}
