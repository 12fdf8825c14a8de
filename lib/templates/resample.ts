// Reducing an image before it is mapped, as Photoshop resamples a placed image: a separable windowed-sinc
// (Lanczos-3) filter stretched over the reduction, after box halvings for the bulk of a large reduction. The
// mapper then samples the reduced image at about one pixel per output pixel, so its bilinear/mip sampling only
// covers what perspective and warps vary locally.
import type { RawImage } from './types';

const LOBES = 3;

function lanczos(x: number): number {
  if (x === 0) return 1;
  if (x <= -LOBES || x >= LOBES) return 0;
  const px = Math.PI * x;
  return (LOBES * Math.sin(px) * Math.sin(px / LOBES)) / (px * px);
}

/** Premultiplied float RGBA of an 8-bit straight RGBA image. */
export function premultiply(img: RawImage | { width: number; height: number; data: Uint8Array }): Float32Array {
  const n = img.width * img.height;
  const out = new Float32Array(n * 4);
  const d = img.data;
  for (let i = 0; i < n * 4; i += 4) {
    const a = d[i + 3]! / 255;
    out[i] = d[i]! * a;
    out[i + 1] = d[i + 1]! * a;
    out[i + 2] = d[i + 2]! * a;
    out[i + 3] = a;
  }
  return out;
}

/** Box-reduce an 8-bit straight RGBA image by an integer factor straight into premultiplied floats (one pass over
 * the source: the bulk of a large reduction at the cost of reading it once). */
export function boxFromBytes(
  d: Uint8Array,
  w: number,
  h: number,
  k: number,
): { data: Float32Array; w: number; h: number } {
  const nw = Math.max(1, Math.floor(w / k));
  const nh = Math.max(1, Math.floor(h / k));
  const out = new Float32Array(nw * nh * 4);
  const inv = 1 / (k * k);
  const row = new Float32Array(nw * 4);
  for (let y = 0; y < nh; y++) {
    row.fill(0);
    for (let yy = y * k; yy < (y + 1) * k; yy++) {
      let i = yy * w * 4;
      for (let x = 0; x < nw; x++) {
        let r = 0;
        let g = 0;
        let b = 0;
        let a = 0;
        for (let xx = 0; xx < k; xx++, i += 4) {
          const al = d[i + 3]!;
          r += d[i]! * al;
          g += d[i + 1]! * al;
          b += d[i + 2]! * al;
          a += al;
        }
        const o = x * 4;
        row[o] = row[o]! + r;
        row[o + 1] = row[o + 1]! + g;
        row[o + 2] = row[o + 2]! + b;
        row[o + 3] = row[o + 3]! + a;
      }
    }
    const o = y * nw * 4;
    for (let x = 0; x < nw * 4; x += 4) {
      out[o + x] = (row[x]! * inv) / 255;
      out[o + x + 1] = (row[x + 1]! * inv) / 255;
      out[o + x + 2] = (row[x + 2]! * inv) / 255;
      out[o + x + 3] = (row[x + 3]! * inv) / 255;
    }
  }
  return { data: out, w: nw, h: nh };
}

/** Halve a premultiplied image (2x2 box). With `keepEdge` (a mip level: level pixel k covers pixels 2k and 2k + 1
 * of the one below, exactly) an odd last column or row is kept, averaged with transparency outside the image, so the
 * level ends where the image does; without it (a reduction whose scale is taken from the sizes) it is dropped. */
export function halve(
  src: Float32Array,
  w: number,
  h: number,
  keepEdge = false,
): { data: Float32Array; w: number; h: number } {
  const nw = Math.max(1, keepEdge ? (w + 1) >> 1 : w >> 1);
  const nh = Math.max(1, keepEdge ? (h + 1) >> 1 : h >> 1);
  const d = new Float32Array(nw * nh * 4);
  for (let y = 0; y < nh; y++) {
    const ya = Math.min(h - 1, 2 * y);
    const yb = 2 * y + 1;
    const yIn = yb < h;
    for (let x = 0; x < nw; x++) {
      const xa = Math.min(w - 1, 2 * x);
      const xb = 2 * x + 1;
      const xIn = xb < w;
      const o = (y * nw + x) * 4;
      const i00 = (ya * w + xa) * 4;
      // outside the image: transparent with keepEdge, the edge pixel again without (w or h of 1)
      const i10 = (ya * w + (xIn ? xb : w - 1)) * 4;
      const i01 = ((yIn ? yb : h - 1) * w + xa) * 4;
      const i11 = ((yIn ? yb : h - 1) * w + (xIn ? xb : w - 1)) * 4;
      const k10 = xIn || !keepEdge ? 0.25 : 0;
      const k01 = yIn || !keepEdge ? 0.25 : 0;
      const k11 = (xIn && yIn) || !keepEdge ? 0.25 : 0;
      for (let c = 0; c < 4; c++)
        d[o + c] = 0.25 * src[i00 + c]! + k10 * src[i10 + c]! + k01 * src[i01 + c]! + k11 * src[i11 + c]!;
    }
  }
  return { data: d, w: nw, h: nh };
}

/** Resample one axis of a premultiplied image from n to m samples (m <= n). */
function axis(src: Float32Array, w: number, h: number, m: number, horizontal: boolean): Float32Array {
  const n = horizontal ? w : h;
  const scale = n / m;
  const support = LOBES * scale;
  const out = new Float32Array((horizontal ? m * h : w * m) * 4);
  const taps: { start: number; weights: Float32Array }[] = [];
  for (let j = 0; j < m; j++) {
    const center = (j + 0.5) * scale;
    const start = Math.max(0, Math.floor(center - support));
    const end = Math.min(n - 1, Math.ceil(center + support));
    const weights = new Float32Array(end - start + 1);
    let sum = 0;
    for (let k = start; k <= end; k++) {
      const wt = lanczos((k + 0.5 - center) / scale);
      weights[k - start] = wt;
      sum += wt;
    }
    for (let k = 0; k < weights.length; k++) weights[k] = weights[k]! / sum;
    taps.push({ start, weights });
  }
  const lines = horizontal ? h : w;
  const stride = horizontal ? 4 : w * 4;
  for (let l = 0; l < lines; l++) {
    const base = horizontal ? l * w * 4 : l * 4;
    for (let j = 0; j < m; j++) {
      const { start, weights } = taps[j]!;
      let r = 0;
      let g = 0;
      let b = 0;
      let a = 0;
      for (let k = 0, s = base + start * stride; k < weights.length; k++, s += stride) {
        const wt = weights[k]!;
        r += src[s]! * wt;
        g += src[s + 1]! * wt;
        b += src[s + 2]! * wt;
        a += src[s + 3]! * wt;
      }
      const o = horizontal ? (l * m + j) * 4 : (j * w + l) * 4;
      out[o] = r;
      out[o + 1] = g;
      out[o + 2] = b;
      out[o + 3] = a < 0 ? 0 : a > 1 ? 1 : a;
    }
  }
  return out;
}

/** Reduce a premultiplied image to (tw, th) (each at most the source's size). */
export function reduce(
  src: Float32Array,
  w: number,
  h: number,
  tw: number,
  th: number,
): { data: Float32Array; w: number; h: number } {
  let cur = { data: src, w, h };
  while (cur.w >= tw * 4 && cur.h >= th * 4) cur = halve(cur.data, cur.w, cur.h);
  let d = cur.data;
  let cw = cur.w;
  if (tw < cw) {
    d = axis(d, cw, cur.h, tw, true);
    cw = tw;
  }
  if (th < cur.h) d = axis(d, cw, cur.h, th, false);
  return { data: d, w: cw, h: Math.min(th, cur.h) };
}
