// Mapping an image through a smart object's geometry: a per-pixel map of content coordinates for the region the
// smart object covers (exact inverse of the perspective when there is no warp, a fine triangle tessellation of the
// warp otherwise), then one sampling pass over a mip pyramid (trilinear, premultiplied alpha), so a design much
// larger than its quad is area-averaged instead of aliased.
import { apply3, contentToDoc, invert3, squareToQuad, type Geometry } from './geometry';
import { halve } from './resample';

export interface Rect {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** Content coordinates (pixels) of every pixel center of `r`, NaN where the content does not reach. */
export function contentMap(g: Geometry, r: Rect): Float32Array {
  const uv = new Float32Array(r.w * r.h * 2).fill(NaN);
  const H = squareToQuad(g.quad);
  if (g.warp.kind === 'none') {
    const Hi = invert3(H);
    const [a, b, c, d, e, f, gg, h, i] = Hi;
    const [bx0, by0, bx1, by1] = g.box;
    const sx = bx1 - bx0;
    const sy = by1 - by0;
    for (let y = 0; y < r.h; y++) {
      const Y = r.y + y + 0.5;
      for (let x = 0; x < r.w; x++) {
        const X = r.x + x + 0.5;
        const w = gg * X + h * Y + i;
        if (!(w > 1e-9)) continue;
        const o = (y * r.w + x) * 2;
        uv[o] = bx0 + ((a * X + b * Y + c) / w) * sx;
        uv[o + 1] = by0 + ((d * X + e * Y + f) / w) * sy;
      }
    }
    return uv;
  }
  // tessellate the content into cells small enough that the mapping is affine within each triangle
  const N = Math.max(8, Math.min(96, Math.ceil(g.width / 6)));
  const M = Math.max(8, Math.min(96, Math.ceil(g.height / 6)));
  const vx = new Float64Array((N + 1) * (M + 1));
  const vy = new Float64Array((N + 1) * (M + 1));
  for (let j = 0; j <= M; j++)
    for (let i = 0; i <= N; i++) {
      const [X, Y] = contentToDoc(g, H, (i / N) * g.width, (j / M) * g.height);
      vx[j * (N + 1) + i] = X - r.x;
      vy[j * (N + 1) + i] = Y - r.y;
    }
  const dist = new Float32Array(r.w * r.h).fill(Infinity);
  const tri = (p: number, q: number, s: number, pu: number[], qu: number[], su: number[]) =>
    rasterTriangle(uv, dist, r.w, r.h, vx[p]!, vy[p]!, vx[q]!, vy[q]!, vx[s]!, vy[s]!, pu, qu, su);
  const cw = g.width / N;
  const ch = g.height / M;
  for (let j = 0; j < M; j++)
    for (let i = 0; i < N; i++) {
      const p00 = j * (N + 1) + i;
      const p10 = p00 + 1;
      const p01 = p00 + N + 1;
      const p11 = p01 + 1;
      const u0 = i * cw;
      const u1 = u0 + cw;
      const v0 = j * ch;
      const v1 = v0 + ch;
      tri(p00, p10, p11, [u0, v0], [u1, v0], [u1, v1]);
      tri(p00, p11, p01, [u0, v0], [u1, v1], [u0, v1]);
    }
  return uv;
}

/** Rasterize one triangle's content coordinates (affine inside it), extended by one pixel beyond its edges where no
 * other triangle covers the pixel (so the outer edge of the mesh is antialiased by the sampler). */
function rasterTriangle(
  uv: Float32Array,
  dist: Float32Array,
  W: number,
  Hh: number,
  x0: number,
  y0: number,
  x1: number,
  y1: number,
  x2: number,
  y2: number,
  t0: number[],
  t1: number[],
  t2: number[],
): void {
  const area = (x1 - x0) * (y2 - y0) - (x2 - x0) * (y1 - y0);
  if (Math.abs(area) < 1e-9) return;
  const xa = Math.max(0, Math.floor(Math.min(x0, x1, x2) - 1.5));
  const xb = Math.min(W - 1, Math.ceil(Math.max(x0, x1, x2) + 1.5));
  const ya = Math.max(0, Math.floor(Math.min(y0, y1, y2) - 1.5));
  const yb = Math.min(Hh - 1, Math.ceil(Math.max(y0, y1, y2) + 1.5));
  const inv = 1 / area;
  // edge lengths, to turn barycentric values into pixel distances
  const l0 = Math.hypot(x2 - x1, y2 - y1) || 1;
  const l1 = Math.hypot(x0 - x2, y0 - y2) || 1;
  const l2 = Math.hypot(x1 - x0, y1 - y0) || 1;
  const A2 = Math.abs(area);
  for (let y = ya; y <= yb; y++) {
    const py = y + 0.5;
    for (let x = xa; x <= xb; x++) {
      const px = x + 0.5;
      const w0 = ((x1 - px) * (y2 - py) - (x2 - px) * (y1 - py)) * inv;
      const w1 = ((x2 - px) * (y0 - py) - (x0 - px) * (y2 - py)) * inv;
      const w2 = 1 - w0 - w1;
      // distance outside (pixels): the largest violation of the three edges
      let d = 0;
      if (w0 < 0) d = Math.max(d, (-w0 * A2) / l0);
      if (w1 < 0) d = Math.max(d, (-w1 * A2) / l1);
      if (w2 < 0) d = Math.max(d, (-w2 * A2) / l2);
      const k = y * W + x;
      if (d >= 1.5 || d >= dist[k]!) continue;
      dist[k] = d;
      uv[k * 2] = w0 * t0[0]! + w1 * t1[0]! + w2 * t2[0]!;
      uv[k * 2 + 1] = w0 * t0[1]! + w1 * t1[1]! + w2 * t2[1]!;
    }
  }
}

/** A premultiplied RGBA mip pyramid (level k = 2^k reduction, box filtered). */
export interface Mips {
  levels: Level[];
}

/** Mip pyramid of a premultiplied float RGBA image. */
export function buildMips(base: Float32Array, w: number, h: number, maxLevel = 12): Mips {
  const levels = [{ w, h, data: base }];
  while (levels.length <= maxLevel) {
    const p = levels[levels.length - 1]!;
    if (p.w === 1 && p.h === 1) break;
    const next = halve(p.data, p.w, p.h, true);
    levels.push({ w: next.w, h: next.h, data: next.data });
  }
  return { levels };
}

/** One level of a mip pyramid: premultiplied float RGBA. */
export interface Level {
  w: number;
  h: number;
  data: Float32Array;
}

/**
 * A mapped pixel's footprint, squared: how far the image moves (image pixels, through the 2x2 part of the affine
 * m0 m1 / m3 m4) to its neighbours `kx` (right or left) and `ky` (below or above) in the content map `uv`, the larger
 * of the two; 0 where neither is mapped. (cx, cy): the pixel's own content coordinates.
 */
export function footprint2(
  uv: Float32Array,
  cx: number,
  cy: number,
  kx: number,
  ky: number,
  m0: number,
  m1: number,
  m3: number,
  m4: number,
): number {
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
  return f2;
}

/** Bilinear sample (premultiplied, transparent outside) of level `L` at level pixel (x, y), weighted by k, into acc. */
export function tap(L: Level, x: number, y: number, k: number, acc: Float64Array): void {
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
  tapEdge(data, w, h, x0, y0, ax, ay, k, acc);
}

/** tap() at the level's edge: the taps outside it are transparent. */
function tapEdge(
  data: Float32Array,
  w: number,
  h: number,
  x0: number,
  y0: number,
  ax: number,
  ay: number,
  k: number,
  acc: Float64Array,
): void {
  for (let j = 0; j < 2; j++) {
    const yy = y0 + j;
    if (yy < 0 || yy >= h) continue;
    const wy = j ? ay : 1 - ay;
    for (let i = 0; i < 2; i++) {
      const xx = x0 + i;
      if (xx < 0 || xx >= w) continue;
      const wt = (i ? ax : 1 - ax) * wy * k;
      const o = (yy * w + xx) * 4;
      acc[0] = acc[0]! + data[o]! * wt;
      acc[1] = acc[1]! + data[o + 1]! * wt;
      acc[2] = acc[2]! + data[o + 2]! * wt;
      acc[3] = acc[3]! + data[o + 3]! * wt;
    }
  }
}

/**
 * Trilinear: the image at image pixel (ix, iy) whose footprint (footprint2()) is f2 > 1.5625, added to acc from the
 * two mip levels around it. (Where f2 <= 1.5625, about one image pixel per output pixel, it is tap() on the base level.)
 */
export function trilinear(levels: Level[], ix: number, iy: number, f2: number, acc: Float64Array): void {
  const top = levels.length - 1;
  const lod = 0.5 * Math.log2(f2);
  const l0 = Math.min(top, Math.floor(lod));
  const l1 = Math.min(top, l0 + 1);
  const t = l0 === l1 ? 0 : lod - l0;
  const s0 = 1 / (1 << l0);
  tap(levels[l0]!, ix * s0, iy * s0, 1 - t, acc);
  if (t > 0) {
    const s1 = 1 / (1 << l1);
    tap(levels[l1]!, ix * s1, iy * s1, t, acc);
  }
}

/**
 * Fill `out` (RGBA, r.w x r.h, straight alpha) by sampling the image `mips` at the content coordinates of `uv`,
 * mapped to image pixels by the affine `m` (ix = m0*cx + m1*cy + m2, iy = m3*cx + m4*cy + m5).
 */
export function sampleMap(uv: Float32Array, r: Rect, mips: Mips, m: number[], out: Uint8ClampedArray): void {
  const acc = new Float64Array(4);
  const levels = mips.levels;
  const W = r.w;
  const [m0, m1, m2, m3, m4, m5] = m as [number, number, number, number, number, number];
  for (let y = 0; y < r.h; y++) {
    for (let x = 0; x < W; x++) {
      const k = y * W + x;
      const cx = uv[k * 2]!;
      if (cx !== cx) continue;
      const cy = uv[k * 2 + 1]!;
      const ix = m0 * cx + m1 * cy + m2;
      const iy = m3 * cx + m4 * cy + m5;
      // footprint: image pixels per output pixel, from the neighbours' content coordinates
      const kx = x + 1 < W ? k + 1 : k - 1;
      const ky = y + 1 < r.h ? k + W : k - W;
      const f2 = footprint2(uv, cx, cy, kx, ky, m0, m1, m3, m4);
      acc[0] = acc[1] = acc[2] = acc[3] = 0;
      if (f2 <= 1.5625) tap(levels[0]!, ix, iy, 1, acc);
      else trilinear(levels, ix, iy, f2, acc);
      const a = acc[3]!;
      if (a <= 1e-4) continue;
      const o = k * 4;
      out[o] = acc[0]! / a;
      out[o + 1] = acc[1]! / a;
      out[o + 2] = acc[2]! / a;
      out[o + 3] = a * 255;
    }
  }
}

export { apply3 };
