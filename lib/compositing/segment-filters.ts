// Pixel filters of the outline segmentation (garment-segment.ts): box means, the backdrop's quadratic surface (least
// squares per channel), a border ring, quantiles, and the boundary's pixel-level refinement. Pure code on raw arrays.

/** One round of boundary refinement (see segmentByOutline), in place. */
export function refine(mask: Uint8Array, ch: Float32Array[], w: number, h: number): void {
  const n = w * h;
  const edge = new Uint8Array(n);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      const m = mask[i];
      if (
        (x > 0 && mask[i - 1] !== m) ||
        (x < w - 1 && mask[i + 1] !== m) ||
        (y > 0 && mask[i - w] !== m) ||
        (y < h - 1 && mask[i + w] !== m)
      )
        edge[i] = 1;
    }
  const next = Uint8Array.from(mask);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      if (!edge[i]) continue;
      const sums = [0, 0, 0, 0, 0, 0];
      let ng = 0;
      let nb = 0;
      for (let dy = -2; dy <= 2; dy++) {
        const yy = y + dy;
        if (yy < 0 || yy >= h) continue;
        for (let dx = -2; dx <= 2; dx++) {
          const xx = x + dx;
          if (xx < 0 || xx >= w) continue;
          const j = yy * w + xx;
          if (edge[j]) continue;
          const o = mask[j] ? 0 : 3;
          sums[o]! += ch[0]![j]!;
          sums[o + 1]! += ch[1]![j]!;
          sums[o + 2]! += ch[2]![j]!;
          if (mask[j]) ng++;
          else nb++;
        }
      }
      if (!ng || !nb) continue;
      let dg = 0;
      let db = 0;
      for (let c = 0; c < 3; c++) {
        const v = ch[c]![i]!;
        dg += (v - sums[c]! / ng) ** 2;
        db += (v - sums[c + 3]! / nb) ** 2;
      }
      next[i] = dg < db ? 1 : 0;
    }
  mask.set(next);
}

/** Mean over a (2r+1)^2 window (edges clamped), by running sums. */
export function boxMean(src: Float32Array, w: number, h: number, r: number): Float32Array {
  const tmp = new Float32Array(w * h);
  const out = new Float32Array(w * h);
  for (let y = 0; y < h; y++) {
    const row = y * w;
    let s = 0;
    for (let x = -r - 1; x < r; x++) s += src[row + Math.min(w - 1, Math.max(0, x))]!;
    for (let x = 0; x < w; x++) {
      s += src[row + Math.min(w - 1, x + r)]! - src[row + Math.max(0, x - r - 1)]!;
      tmp[row + x] = s;
    }
  }
  const k = (2 * r + 1) * (2 * r + 1);
  for (let x = 0; x < w; x++) {
    let s = 0;
    for (let y = -r - 1; y < r; y++) s += tmp[Math.min(h - 1, Math.max(0, y)) * w + x]!;
    for (let y = 0; y < h; y++) {
      s += tmp[Math.min(h - 1, y + r) * w + x]! - tmp[Math.max(0, y - r - 1) * w + x]!;
      out[y * w + x] = s / k;
    }
  }
  return out;
}

/** Quadratic surface a + b u + c v + d u^2 + e uv + f v^2 (u, v in -0.5..0.5), least squares over chosen pixels. */
export function fitSurface(
  ch: Float32Array[],
  w: number,
  h: number,
  use: Uint8Array,
  step: number,
): Float64Array[] | null {
  const A = new Float64Array(36);
  const B = ch.map(() => new Float64Array(6));
  const f = new Float64Array(6);
  let n = 0;
  for (let y = 0; y < h; y += step) {
    const v = y / (h - 1) - 0.5;
    for (let x = 0; x < w; x += step) {
      const i = y * w + x;
      if (!use[i]) continue;
      const u = x / (w - 1) - 0.5;
      f[0] = 1;
      f[1] = u;
      f[2] = v;
      f[3] = u * u;
      f[4] = u * v;
      f[5] = v * v;
      const v0 = ch[0]![i]!;
      const v1 = ch[1]![i]!;
      const v2 = ch[2]![i]!;
      for (let a = 0; a < 6; a++) {
        const fa = f[a]!;
        for (let b = a; b < 6; b++) A[a * 6 + b]! += fa * f[b]!;
        B[0]![a]! += fa * v0;
        B[1]![a]! += fa * v1;
        B[2]![a]! += fa * v2;
      }
      n++;
    }
  }
  if (n < 24) return null;
  for (let a = 0; a < 6; a++) for (let b = 0; b < a; b++) A[a * 6 + b] = A[b * 6 + a]!;
  // a little ridge on the curvature terms: a border-only fit must not invent a bowl in the middle
  for (const k of [3, 4, 5]) A[k * 6 + k]! += n * 1e-3;
  return B.map((rhs) => solve6(A, rhs));
}

function solve6(Ain: Float64Array, bin: Float64Array): Float64Array {
  const A = Float64Array.from(Ain);
  const b = Float64Array.from(bin);
  for (let c = 0; c < 6; c++) {
    let p = c;
    for (let r = c + 1; r < 6; r++) if (Math.abs(A[r * 6 + c]!) > Math.abs(A[p * 6 + c]!)) p = r;
    if (p !== c) {
      for (let k = 0; k < 6; k++) [A[c * 6 + k], A[p * 6 + k]] = [A[p * 6 + k]!, A[c * 6 + k]!];
      [b[c], b[p]] = [b[p]!, b[c]!];
    }
    const d = A[c * 6 + c]! || 1e-12;
    for (let r = c + 1; r < 6; r++) {
      const m = A[r * 6 + c]! / d;
      if (!m) continue;
      for (let k = c; k < 6; k++) A[r * 6 + k]! -= m * A[c * 6 + k]!;
      b[r]! -= m * b[c]!;
    }
  }
  const x = new Float64Array(6);
  for (let r = 5; r >= 0; r--) {
    let s = b[r]!;
    for (let k = r + 1; k < 6; k++) s -= A[r * 6 + k]! * x[k]!;
    x[r] = s / (A[r * 6 + r]! || 1e-12);
  }
  return x;
}

export function evalSurface(coef: Float64Array, w: number, h: number, out: Float32Array): void {
  for (let y = 0; y < h; y++) {
    const v = y / (h - 1) - 0.5;
    for (let x = 0; x < w; x++) {
      const u = x / (w - 1) - 0.5;
      out[y * w + x] = coef[0]! + coef[1]! * u + coef[2]! * v + coef[3]! * u * u + coef[4]! * u * v + coef[5]! * v * v;
    }
  }
}

/** Indices of a ring `b` pixels wide along the image's edges. */
export function ring(w: number, h: number, b: number): Int32Array {
  const out: number[] = [];
  for (let y = 0; y < h; y++) {
    const edgeRow = y < b || y >= h - b;
    for (let x = 0; x < w; x++) if (edgeRow || x < b || x >= w - b) out.push(y * w + x);
  }
  return Int32Array.from(out);
}

export function quantile(values: Float32Array | number[], q: number): number {
  const s = Float32Array.from(values).sort();
  return s.length ? s[Math.min(s.length - 1, Math.floor(s.length * q))]! : 0;
}

/** 3x3 box mean of one channel (edges replicated). */
export function box3(src: Float32Array, w: number, h: number, out: Float32Array): void {
  const tmp = new Float32Array(w * h);
  for (let y = 0; y < h; y++) {
    const r = y * w;
    for (let x = 0; x < w; x++) {
      const a = src[r + (x > 0 ? x - 1 : 0)]!;
      const c = src[r + (x < w - 1 ? x + 1 : w - 1)]!;
      tmp[r + x] = a + src[r + x]! + c;
    }
  }
  for (let y = 0; y < h; y++) {
    const up = (y > 0 ? y - 1 : 0) * w;
    const dn = (y < h - 1 ? y + 1 : h - 1) * w;
    const r = y * w;
    for (let x = 0; x < w; x++) out[r + x] = (tmp[up + x]! + tmp[r + x]! + tmp[dn + x]!) / 9;
  }
}
