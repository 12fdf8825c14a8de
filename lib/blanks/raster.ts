/** Rasterising SVG with sharp (librsvg) and float image operations (blur, resample). */
import sharp from 'sharp';
import { boxSizesForGauss } from '../compositing/pixels';

/** A single-channel float image. */
export interface FloatImage {
  data: Float32Array;
  width: number;
  height: number;
}

/**
 * Render an SVG document body (already in pixel units) and return the chosen
 * channel as floats in [0, 1]. `channel` 3 = alpha (coverage of whatever was
 * drawn), 0 = red (use with an opaque background for signed/gray layers).
 */
export async function rasterize(inner: string, width: number, height: number, channel: 0 | 3 = 3): Promise<FloatImage> {
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">` +
    inner +
    `</svg>`;
  const buf = await sharp(Buffer.from(svg), { limitInputPixels: width * height + 1, density: 72 })
    .ensureAlpha()
    .extractChannel(channel)
    .raw()
    .toBuffer();
  const data = new Float32Array(width * height);
  for (let i = 0; i < data.length; i++) data[i] = buf[i]! / 255;
  return { data, width, height };
}

/** Same as rasterize but returns the raw bytes (0..255) without float conversion. */
export async function rasterizeBytes(
  inner: string,
  width: number,
  height: number,
  channel: 0 | 3 = 3,
): Promise<Buffer> {
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">` +
    inner +
    `</svg>`;
  return sharp(Buffer.from(svg), { limitInputPixels: width * height + 1, density: 72 })
    .ensureAlpha()
    .extractChannel(channel)
    .raw()
    .toBuffer();
}

/** One horizontal box pass with zero padding outside the image. */
function boxH(src: Float32Array, dst: Float32Array, w: number, h: number, r: number): void {
  const inv = 1 / (2 * r + 1);
  for (let y = 0; y < h; y++) {
    const o = y * w;
    let acc = 0;
    for (let x = 0; x <= Math.min(r, w - 1); x++) acc += src[o + x]!;
    for (let x = 0; x < w; x++) {
      dst[o + x] = acc * inv;
      const add = x + r + 1;
      const sub = x - r;
      if (add < w) acc += src[o + add]!;
      if (sub >= 0) acc -= src[o + sub]!;
    }
  }
}

/** One vertical box pass with zero padding, processed row-wise for cache friendliness. */
function boxV(src: Float32Array, dst: Float32Array, w: number, h: number, r: number): void {
  const inv = 1 / (2 * r + 1);
  const acc = new Float64Array(w);
  for (let y = 0; y <= Math.min(r, h - 1); y++) {
    const o = y * w;
    for (let x = 0; x < w; x++) acc[x]! += src[o + x]!;
  }
  for (let y = 0; y < h; y++) {
    const o = y * w;
    for (let x = 0; x < w; x++) dst[o + x] = acc[x]! * inv;
    const add = y + r + 1;
    const sub = y - r;
    if (add < h) {
      const oa = add * w;
      for (let x = 0; x < w; x++) acc[x]! += src[oa + x]!;
    }
    if (sub >= 0) {
      const os = sub * w;
      for (let x = 0; x < w; x++) acc[x]! -= src[os + x]!;
    }
  }
}

/** Gaussian-like blur (3 box passes per axis), anisotropic; sigma in pixels. Returns a new image. */
export function blur(img: FloatImage, sigmaX: number, sigmaY: number = sigmaX): FloatImage {
  const { width: w, height: h } = img;
  let a = Float32Array.from(img.data);
  let b = new Float32Array(a.length);
  if (sigmaX >= 0.5) {
    for (const size of boxSizesForGauss(sigmaX, 3)) {
      boxH(a, b, w, h, (size - 1) >> 1);
      [a, b] = [b, a];
    }
  }
  if (sigmaY >= 0.5) {
    for (const size of boxSizesForGauss(sigmaY, 3)) {
      boxV(a, b, w, h, (size - 1) >> 1);
      [a, b] = [b, a];
    }
  }
  return { data: a, width: w, height: h };
}

/** Bilinear resample (pixel-center aligned) of a float image to a new size. */
export function resize(img: FloatImage, width: number, height: number): FloatImage {
  if (img.width === width && img.height === height) return img;
  const out = new Float32Array(width * height);
  const sx = img.width / width;
  const sy = img.height / height;
  const W = img.width;
  const H = img.height;
  const x0 = new Int32Array(width);
  const x1 = new Int32Array(width);
  const fx = new Float32Array(width);
  for (let x = 0; x < width; x++) {
    let gx = (x + 0.5) * sx - 0.5;
    if (gx < 0) gx = 0;
    const i = Math.min(W - 1, Math.floor(gx));
    x0[x] = i;
    x1[x] = Math.min(W - 1, i + 1);
    fx[x] = gx - i;
  }
  const d = img.data;
  for (let y = 0; y < height; y++) {
    let gy = (y + 0.5) * sy - 0.5;
    if (gy < 0) gy = 0;
    const j = Math.min(H - 1, Math.floor(gy));
    const j1 = Math.min(H - 1, j + 1);
    const t = gy - j;
    const r0 = j * W;
    const r1 = j1 * W;
    const o = y * width;
    for (let x = 0; x < width; x++) {
      const a = d[r0 + x0[x]!]! + (d[r0 + x1[x]!]! - d[r0 + x0[x]!]!) * fx[x]!;
      const b = d[r1 + x0[x]!]! + (d[r1 + x1[x]!]! - d[r1 + x0[x]!]!) * fx[x]!;
      out[o + x] = a + (b - a) * t;
    }
  }
  return { data: out, width, height };
}

/** Bounding box of pixels > 0, or undefined when empty. */
export function bbox(img: FloatImage): { x0: number; y0: number; x1: number; y1: number } | undefined {
  const { data, width: w, height: h } = img;
  let x0 = w;
  let y0 = h;
  let x1 = -1;
  let y1 = -1;
  for (let y = 0; y < h; y++) {
    const o = y * w;
    for (let x = 0; x < w; x++) {
      if (data[o + x]! > 0) {
        if (x < x0) x0 = x;
        if (x > x1) x1 = x;
        if (y < y0) y0 = y;
        y1 = y;
      }
    }
  }
  return x1 < 0 ? undefined : { x0, y0, x1: x1 + 1, y1: y1 + 1 };
}

/**
 * Blur of a sparse image: only the bounding box of its non-zero pixels, grown
 * by 3 sigma, is processed (identical result to blur(), but much faster for
 * small shapes on a large canvas).
 */
export function blurSparse(img: FloatImage, sigmaX: number, sigmaY: number = sigmaX, box = bbox(img)): FloatImage {
  const { width: w, height: h } = img;
  if (!box) return { data: new Float32Array(w * h), width: w, height: h };
  const mx = Math.ceil(3.2 * sigmaX) + 2;
  const my = Math.ceil(3.2 * sigmaY) + 2;
  const x0 = Math.max(0, box.x0 - mx);
  const y0 = Math.max(0, box.y0 - my);
  const x1 = Math.min(w, box.x1 + mx);
  const y1 = Math.min(h, box.y1 + my);
  const cw = x1 - x0;
  const ch = y1 - y0;
  if (cw * ch > 0.8 * w * h) return blur(img, sigmaX, sigmaY);
  const crop = new Float32Array(cw * ch);
  for (let y = 0; y < ch; y++) crop.set(img.data.subarray((y + y0) * w + x0, (y + y0) * w + x1), y * cw);
  const b = blur({ data: crop, width: cw, height: ch }, sigmaX, sigmaY);
  const out = new Float32Array(w * h);
  for (let y = 0; y < ch; y++) out.set(b.data.subarray(y * cw, (y + 1) * cw), (y + y0) * w + x0);
  return { data: out, width: w, height: h };
}
