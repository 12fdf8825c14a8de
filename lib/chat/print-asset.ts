// The print-asset engine: a provider's graphic made print-ready. PNG with alpha; a flat background (what image
// models put behind a design) removed by a flood fill from the edges, with the anti-aliased fringe turned into
// partial transparency and its colour un-blended from the background; trimmed to the artwork; at least `longSide`
// px on the long side (upscaled with bicubic interpolation when the provider returned less); 300 DPI written into the file (PNG
// pHYs). Enclosed areas of the background colour (the inside of an "O") stay opaque: only what touches the edge
// is background.
import os from 'node:os';
import sharp from 'sharp';
import { MAX_INPUT_PIXELS } from '../images/limits';

export interface PrintAssetOptions {
  /** the long side of the result, at least (2048, or 4096 for the 4k model) */
  longSide: number;
  /** resolution written into the file's metadata */
  dpi: number;
}

export interface PrintAsset {
  png: Buffer;
  width: number;
  height: number;
  dpi: number;
  /** the flat background colour removed, #rrggbb, or null when there was none (or the graphic had alpha already) */
  removedBackground: string | null;
  /** the artwork's box in the source graphic */
  trim: { left: number; top: number; width: number; height: number };
  upscaled: boolean;
}

/** The graphic has no artwork left once its background is gone (blank, or all one colour). */
export class EmptyGraphicError extends Error {
  constructor(message = 'The graphic is empty: nothing but background') {
    super(message);
    this.name = 'EmptyGraphicError';
  }
}

/** A pixel within this distance (largest channel difference) of the background colour is background. */
export const BG_TOLERANCE = 26;
/** Beyond BG_TOLERANCE up to this distance, a pixel next to the background is fringe: partly transparent. */
export const FRINGE_DISTANCE = 90;
/** Share of edge pixels that must be the background colour for the background to count as flat. */
export const FLAT_EDGE_SHARE = 0.85;
/**
 * zlib level of the PNG (no adaptive filtering: the per-row filter search costs several times the compression
 * and saves a quarter of the bytes; a print file's size matters less than the job's time).
 */
export const PNG_COMPRESSION_LEVEL = 3;
/** Pixels with at most this alpha do not count as artwork when trimming. */
const TRIM_ALPHA = 8;

interface Raster {
  data: Buffer;
  width: number;
  height: number;
}

/** Median colour of the edge pixels and the share of edge pixels close to it; null when the edge is transparent. */
export function edgeBackground(r: Raster): { rgb: [number, number, number]; share: number } | null {
  const { data, width: w, height: h } = r;
  const idx: number[] = [];
  for (let x = 0; x < w; x++) idx.push(x, (h - 1) * w + x);
  for (let y = 1; y < h - 1; y++) idx.push(y * w, y * w + w - 1);
  let transparent = 0;
  const ch: number[][] = [[], [], []];
  for (const p of idx) {
    if (data[p * 4 + 3]! < 128) {
      transparent++;
      continue;
    }
    for (let c = 0; c < 3; c++) ch[c]!.push(data[p * 4 + c]!);
  }
  if (transparent > idx.length / 2) return null;
  const median = (a: number[]) => a.sort((x, y) => x - y)[a.length >> 1]!;
  const rgb: [number, number, number] = [median(ch[0]!), median(ch[1]!), median(ch[2]!)];
  let close = 0;
  for (const p of idx) {
    if (data[p * 4 + 3]! < 128) continue;
    if (distance(data, p, rgb) <= BG_TOLERANCE) close++;
  }
  return { rgb, share: close / idx.length };
}

function distance(data: Buffer, p: number, rgb: [number, number, number]): number {
  const o = p * 4;
  return Math.max(Math.abs(data[o]! - rgb[0]), Math.abs(data[o + 1]! - rgb[1]), Math.abs(data[o + 2]! - rgb[2]));
}

/**
 * Removes the background connected to the image's edge (in place): background pixels become transparent, fringe
 * pixels next to them partly transparent with the background un-blended from their colour. Returns how many
 * pixels were removed. One pass to mark the background colour, a flood fill from the edges that clears what it
 * reaches, one pass over the rest for the fringe (about 10 ms a megapixel).
 */
export function removeFlatBackground(r: Raster, rgb: [number, number, number]): number {
  const { data, width: w, height: h } = r;
  const n = w * h;
  const [br, bg, bb] = rgb;
  const T = BG_TOLERANCE;
  // 0 = artwork, 1 = background colour (not yet reached), 2 = removed
  const mark = new Uint8Array(n);
  for (let p = 0, o = 0; p < n; p++, o += 4) {
    if (data[o + 3] === 0) {
      mark[p] = 1;
      continue;
    }
    const dr = data[o]! - br;
    const dg = data[o + 1]! - bg;
    const db = data[o + 2]! - bb;
    if (dr <= T && dr >= -T && dg <= T && dg >= -T && db <= T && db >= -T) mark[p] = 1;
  }
  const stack = new Int32Array(n);
  let top = 0;
  const lastRow = n - w;
  const seed = (p: number) => {
    if (mark[p] === 1) {
      mark[p] = 2;
      stack[top++] = p;
    }
  };
  for (let x = 0; x < w; x++) {
    seed(x);
    seed(lastRow + x);
  }
  for (let y = 1; y < h - 1; y++) {
    seed(y * w);
    seed(y * w + w - 1);
  }
  let count = 0;
  while (top > 0) {
    const p = stack[--top]!;
    data[p * 4 + 3] = 0;
    count++;
    const x = p % w;
    if (x > 0 && mark[p - 1] === 1) {
      mark[p - 1] = 2;
      stack[top++] = p - 1;
    }
    if (x < w - 1 && mark[p + 1] === 1) {
      mark[p + 1] = 2;
      stack[top++] = p + 1;
    }
    if (p >= w && mark[p - w] === 1) {
      mark[p - w] = 2;
      stack[top++] = p - w;
    }
    if (p < lastRow && mark[p + w] === 1) {
      mark[p + w] = 2;
      stack[top++] = p + w;
    }
  }
  // The fringe: kept pixels touching removed ones, blended with the background by anti-aliasing.
  const span = FRINGE_DISTANCE - BG_TOLERANCE;
  for (let y = 0, p = 0; y < h; y++) {
    for (let x = 0; x < w; x++, p++) {
      if (mark[p] === 2) continue;
      const touches =
        (x > 0 && mark[p - 1] === 2) ||
        (x < w - 1 && mark[p + 1] === 2) ||
        (y > 0 && mark[p - w] === 2) ||
        (y < h - 1 && mark[p + w] === 2);
      if (!touches) continue;
      const o = p * 4;
      const d = distance(data, p, rgb);
      if (d >= FRINGE_DISTANCE) continue;
      const a = Math.max(0.05, (d - T) / span);
      for (let c = 0; c < 3; c++) {
        const v = (data[o + c]! - rgb[c]! * (1 - a)) / a;
        data[o + c] = v < 0 ? 0 : v > 255 ? 255 : Math.round(v);
      }
      data[o + 3] = Math.round(data[o + 3]! * a);
    }
  }
  return count;
}

/** The box of pixels with alpha above TRIM_ALPHA, or null when there are none. */
export function artworkBox(r: Raster): { left: number; top: number; width: number; height: number } | null {
  const { data, width: w, height: h } = r;
  let x0 = w;
  let y0 = h;
  let x1 = -1;
  let y1 = -1;
  for (let y = 0; y < h; y++) {
    const row = y * w;
    for (let x = 0; x < w; x++) {
      if (data[(row + x) * 4 + 3]! > TRIM_ALPHA) {
        if (x < x0) x0 = x;
        if (x > x1) x1 = x;
        if (y < y0) y0 = y;
        y1 = y;
      }
    }
  }
  if (x1 < 0) return null;
  return { left: x0, top: y0, width: x1 - x0 + 1, height: y1 - y0 + 1 };
}

/** Bands of output rows the upscale is split into, each resized by its own pipeline side by side. */
export const UPSCALE_BANDS = Math.min(4, Math.max(2, os.availableParallelism()));

/**
 * `extract` of `src` resized to width × height, in bands of rows computed side by side (libvips is demand-driven:
 * each band's pipeline computes only its rows, from the input rows they need), then joined. The same operations
 * as one pipeline, so the same pixels; on two or more cores in about half the time. sharp runs each pipeline on
 * one libvips thread (lib/compositing/config.ts), so one large resize would otherwise use one core.
 */
export async function upscaleInBands(
  src: Raster,
  extract: { left: number; top: number; width: number; height: number },
  width: number,
  height: number,
  bands = UPSCALE_BANDS,
): Promise<Buffer> {
  const n = Math.max(1, Math.min(bands, Math.floor(height / 64)));
  const parts: Promise<Buffer>[] = [];
  for (let i = 0; i < n; i++) {
    const top = Math.round((height * i) / n);
    const bottom = Math.round((height * (i + 1)) / n);
    parts.push(
      sharp(src.data, { raw: { width: src.width, height: src.height, channels: 4 } })
        .extract(extract)
        // libvips enlarges with bicubic (Catmull-Rom) interpolation whatever the kernel (lanczos3 and mitchell give
        // the same pixels; they only apply when shrinking). fit 'fill' with both sides given: the long side is
        // exactly what was asked (no rounding a pixel short).
        .resize(width, height, { kernel: 'cubic', fit: 'fill' })
        .extract({ left: 0, top, width, height: bottom - top })
        .raw()
        .toBuffer(),
    );
  }
  return n === 1 ? parts[0]! : Buffer.concat(await Promise.all(parts));
}

export async function makePrintAsset(graphic: Buffer, opts: PrintAssetOptions): Promise<PrintAsset> {
  const { data, info } = await sharp(graphic, { limitInputPixels: MAX_INPUT_PIXELS, failOn: 'error' })
    .rotate()
    .toColourspace('srgb')
    .ensureAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  const r: Raster = { data, width: info.width, height: info.height };
  let removedBackground: string | null = null;
  const edge = edgeBackground(r);
  if (edge && edge.share >= FLAT_EDGE_SHARE) {
    removeFlatBackground(r, edge.rgb);
    removedBackground = `#${edge.rgb.map((v) => v.toString(16).padStart(2, '0')).join('')}`;
  }
  const trim = artworkBox(r);
  if (!trim) throw new EmptyGraphicError();
  const long = Math.max(trim.width, trim.height);
  const upscaled = long < opts.longSide;
  const scale = upscaled ? opts.longSide / long : 1;
  const width = Math.max(1, Math.round(trim.width * scale));
  const height = Math.max(1, Math.round(trim.height * scale));
  const img = upscaled
    ? sharp(await upscaleInBands(r, trim, width, height), { raw: { width, height, channels: 4 } })
    : sharp(r.data, { raw: { width: r.width, height: r.height, channels: 4 } }).extract(trim);
  const png = await img
    .png({ compressionLevel: PNG_COMPRESSION_LEVEL, adaptiveFiltering: false })
    .withMetadata({ density: opts.dpi })
    .toBuffer();
  return { png, width, height, dpi: opts.dpi, removedBackground, trim, upscaled };
}
