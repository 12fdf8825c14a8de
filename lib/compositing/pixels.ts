// Small pixel helpers: sRGB <-> linear lookup tables and a float blur. Deterministic, allocation-light.

function srgbToLinear(c: number): number {
  return c <= 0.04045 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4);
}

/** sRGB byte -> linear light (0..1). */
export const LIN8 = (() => {
  const t = new Float32Array(256);
  for (let i = 0; i < 256; i++) t[i] = srgbToLinear(i / 255);
  return t;
})();

/** sRGB value in quarter steps (index = round(v * 4), v in 0..255) -> linear light; for interpolated colors. */
export const LIN_Q4 = (() => {
  const t = new Float32Array(1021);
  for (let i = 0; i < t.length; i++) t[i] = srgbToLinear(i / 1020);
  return t;
})();

/** Linear light in 1/OUT_STEPS steps -> sRGB byte. */
export const OUT_STEPS = 16384;
export const OUT_LUT = (() => {
  const t = new Uint8Array(OUT_STEPS + 1);
  for (let i = 0; i <= OUT_STEPS; i++) {
    const l = i / OUT_STEPS;
    const c = l <= 0.0031308 ? 12.92 * l : 1.055 * Math.pow(l, 1 / 2.4) - 0.055;
    t[i] = Math.max(0, Math.min(255, Math.round(c * 255)));
  }
  return t;
})();

export function boxSizesForGauss(sigma: number, n: number): number[] {
  const wIdeal = Math.sqrt((12 * sigma * sigma) / n + 1);
  let wl = Math.floor(wIdeal);
  if (wl % 2 === 0) wl--;
  const wu = wl + 2;
  const mIdeal = (12 * sigma * sigma - n * wl * wl - 4 * n * wl - 3 * n) / (-4 * wl - 4);
  const m = Math.round(mIdeal);
  const sizes: number[] = [];
  for (let i = 0; i < n; i++) sizes.push(i < m ? wl : wu);
  return sizes;
}

/** Index helper for edges: clamped (extend the border pixel) or wrapped (tileable textures). r < n assumed. */
function edge(i: number, n: number, wrap: boolean): number {
  if (i < 0) return wrap ? i + n : 0;
  if (i >= n) return wrap ? i - n : n - 1;
  return i;
}

function boxH(src: Float32Array, dst: Float32Array, w: number, h: number, r: number, wrap: boolean): void {
  const inv = 1 / (2 * r + 1);
  for (let y = 0; y < h; y++) {
    const o = y * w;
    let acc = 0;
    for (let x = -r; x <= r; x++) acc += src[o + edge(x, w, wrap)]!;
    for (let x = 0; x < w; x++) {
      dst[o + x] = acc * inv;
      const a = x + r + 1;
      const s = x - r;
      acc += src[o + (a < w ? a : edge(a, w, wrap))]! - src[o + (s >= 0 ? s : edge(s, w, wrap))]!;
    }
  }
}

function boxV(src: Float32Array, dst: Float32Array, w: number, h: number, r: number, wrap: boolean): void {
  const inv = 1 / (2 * r + 1);
  const acc = new Float64Array(w);
  for (let y = -r; y <= r; y++) {
    const o = edge(y, h, wrap) * w;
    for (let x = 0; x < w; x++) acc[x]! += src[o + x]!;
  }
  for (let y = 0; y < h; y++) {
    const o = y * w;
    for (let x = 0; x < w; x++) dst[o + x] = acc[x]! * inv;
    const oa = edge(y + r + 1, h, wrap) * w;
    const os = edge(y - r, h, wrap) * w;
    for (let x = 0; x < w; x++) acc[x]! += src[oa + x]! - src[os + x]!;
  }
}

/** Gaussian-like blur (3 box passes per axis) of a float image; sigmas in pixels. Returns a new array. */
export function blurFloat(
  data: Float32Array,
  w: number,
  h: number,
  sigma: number,
  wrap = false,
  sigmaY = sigma,
): Float32Array {
  let a = Float32Array.from(data);
  let b = new Float32Array(a.length);
  if (sigma >= 0.5) {
    for (const size of boxSizesForGauss(sigma, 3)) {
      boxH(a, b, w, h, Math.min((size - 1) >> 1, w - 1), wrap);
      [a, b] = [b, a];
    }
  }
  if (sigmaY >= 0.5) {
    for (const size of boxSizesForGauss(sigmaY, 3)) {
      boxV(a, b, w, h, Math.min((size - 1) >> 1, h - 1), wrap);
      [a, b] = [b, a];
    }
  }
  return a;
}

/** Average `k` x `k` blocks (edge blocks average what exists). */
export function downsampleFloat(
  data: Float32Array,
  w: number,
  h: number,
  k: number,
): { data: Float32Array; width: number; height: number } {
  const ow = Math.ceil(w / k);
  const oh = Math.ceil(h / k);
  const out = new Float32Array(ow * oh);
  for (let oy = 0; oy < oh; oy++) {
    const y0 = oy * k;
    const y1 = Math.min(h, y0 + k);
    for (let ox = 0; ox < ow; ox++) {
      const x0 = ox * k;
      const x1 = Math.min(w, x0 + k);
      let s = 0;
      for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) s += data[y * w + x]!;
      out[oy * ow + ox] = s / ((y1 - y0) * (x1 - x0));
    }
  }
  return { data: out, width: ow, height: oh };
}

/** Deterministic 32-bit integer hash -> [0, 1). */
export function hash01(n: number): number {
  let t = (n + 0x6d2b79f5) >>> 0;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
