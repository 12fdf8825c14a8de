// Levels of a design: level k >= 1 is the design decoded and shrunk to 1/2^k of its size in one libvips pipeline
// straight from the encoded bytes. A placement resizes from the smallest level still at least as large as the
// placed size (a last downscale by less than 2: no visible loss against one direct resize); a placement larger than
// level 1 is resized from the bytes in one pipeline, with no level in between.
//
// Each level has exactly one definition, so every way of getting it gives the same pixels: the worker decoding the
// bytes, the worker's cache, or the levels the API prepares at upload time (stored beside the upload, so a design's
// first generation need not decode the original). A re-run generation therefore writes the same mockup.
import sharp from 'sharp';

/** Raw RGBA, 8 bits per channel, not premultiplied. */
export interface Level {
  data: Buffer;
  width: number;
  height: number;
}

/** Sizes as displayed: EXIF orientation applied. */
export interface Size {
  width: number;
  height: number;
}

export const levelSize = (src: Size, k: number): Size => ({
  width: Math.ceil(src.width / 2 ** k),
  height: Math.ceil(src.height / 2 ** k),
});

/** The size that fits inside box keeping the aspect ratio (up or down), as sharp's fit 'inside' computes it. */
export function fitInside(src: Size, boxW: number, boxH: number): Size {
  const s = Math.min(boxW / src.width, boxH / src.height);
  return { width: Math.max(1, Math.round(src.width * s)), height: Math.max(1, Math.round(src.height * s)) };
}

/** The level for a placed size: the deepest whose size is still at least the target (0: the design itself). */
export function levelFor(src: Size, target: Size): number {
  let k = 0;
  while (k < 8) {
    const next = levelSize(src, k + 1);
    if (next.width < target.width || next.height < target.height) break;
    k++;
  }
  return k;
}

/**
 * The levels prepared at upload time: those whose long side is within PREPARED_LONG_SIDE, which covers the usual
 * placements (print zones on our 2000 px blanks are ~300-900 px). A 2400x3000 design keeps levels 1 and 2
 * (1200x1500 and 600x750, 9 MB raw); other placements decode the original.
 */
export const PREPARED_LONG_SIDE = { min: 400, max: 1600 };
export function preparedLevelsFor(src: Size): number[] {
  const out: number[] = [];
  for (let k = 1; k <= 8; k++) {
    const s = levelSize(src, k);
    const long = Math.max(s.width, s.height);
    if (long < PREPARED_LONG_SIDE.min) break;
    if (long <= PREPARED_LONG_SIDE.max) out.push(k);
  }
  return out;
}

/** Bytes of the prepared levels file (encodePrepared) of a design of size `src`; 0 when no level applies. */
export function preparedBytes(src: Size): number {
  const ks = preparedLevelsFor(src);
  if (ks.length === 0) return 0;
  return ks.reduce(
    (n, k) => {
      const s = levelSize(src, k);
      return n + s.width * s.height * 4;
    },
    17 + 9 * ks.length,
  );
}

export interface DecodeOptions {
  limitInputPixels: number;
  /** 'warning' for a strict check of untrusted uploads (see lib/images/decode.ts); only failures change, not pixels */
  failOn?: 'error' | 'warning';
}

/** Level k (>= 1) of the encoded design `bytes` whose upright size is `src`: orientation applied, shrink-on-load for
 * JPEG/WebP, any color space to sRGB + alpha, one pipeline. */
export async function decodeLevel(bytes: Buffer, src: Size, k: number, opts: DecodeOptions): Promise<Level> {
  if (!Number.isInteger(k) || k < 1)
    throw new RangeError(`level ${k}: levels start at 1 (larger placements resize from the bytes)`);
  const s = levelSize(src, k);
  const { data, info } = await sharp(bytes, {
    limitInputPixels: opts.limitInputPixels,
    failOn: opts.failOn ?? 'error',
    sequentialRead: true,
    autoOrient: true,
  })
    .resize(s.width, s.height, { fit: 'fill', kernel: 'lanczos3', fastShrinkOnLoad: true })
    .toColorspace('srgb')
    .ensureAlpha()
    .raw({ depth: 'uchar' })
    .toBuffer({ resolveWithObject: true });
  if (info.channels !== 4) throw new Error(`design decoded to ${info.channels} channels`);
  return { data, width: info.width, height: info.height };
}

/** The levels prepared for an upload (preparedLevelsFor), decoded side by side; null when none applies. */
export async function prepareDesignLevels(
  bytes: Buffer,
  src: Size,
  opts: DecodeOptions,
): Promise<PreparedDesign | null> {
  const ks = preparedLevelsFor(src);
  if (ks.length === 0) return null;
  const levels = await Promise.all(ks.map((k) => decodeLevel(bytes, src, k, opts)));
  return { src, levels: new Map(ks.map((k, i) => [k, levels[i]!])) };
}

/** Upright width and height from the header (EXIF orientation applied). */
export async function uprightSize(bytes: Buffer, opts: DecodeOptions): Promise<Size> {
  const meta = await sharp(bytes, { limitInputPixels: opts.limitInputPixels, failOn: 'error' }).metadata();
  const width = meta.autoOrient?.width ?? meta.width;
  const height = meta.autoOrient?.height ?? meta.height;
  if (!width || !height) throw new Error('image has no size');
  return { width, height };
}

// ---- the prepared levels as stored beside an upload ----

/** Where an upload's prepared levels are stored (internal: not served under /files). */
export const PREPARED_PREFIX = 'prepared/';
export const preparedKey = (storageKey: string) => `${PREPARED_PREFIX}${storageKey}.levels`;

const MAGIC = 'AMPLVL02';

export interface PreparedDesign {
  /** the design's upright size */
  src: Size;
  levels: Map<number, Level>;
}

/** Header (magic, design size, and k, width, height of each level) + the levels' raw RGBA, back to back. */
export function encodePrepared(p: PreparedDesign): Buffer {
  const entries = [...p.levels.entries()].sort((a, b) => a[0] - b[0]);
  const head = Buffer.alloc(8 + 4 + 4 + 1 + entries.length * 9);
  head.write(MAGIC, 0, 'latin1');
  head.writeUInt32BE(p.src.width, 8);
  head.writeUInt32BE(p.src.height, 12);
  head.writeUInt8(entries.length, 16);
  entries.forEach(([k, l], i) => {
    head.writeUInt8(k, 17 + i * 9);
    head.writeUInt32BE(l.width, 18 + i * 9);
    head.writeUInt32BE(l.height, 22 + i * 9);
  });
  return Buffer.concat([head, ...entries.map(([, l]) => l.data)]);
}

/** The prepared levels, or null when `buf` is not such a file (or of another format version). No copying. */
export function decodePrepared(buf: Buffer): PreparedDesign | null {
  if (buf.length < 17 || buf.toString('latin1', 0, 8) !== MAGIC) return null;
  const src = { width: buf.readUInt32BE(8), height: buf.readUInt32BE(12) };
  const n = buf.readUInt8(16);
  let at = 17 + n * 9;
  if (buf.length < at) return null;
  const levels = new Map<number, Level>();
  for (let i = 0; i < n; i++) {
    const k = buf.readUInt8(17 + i * 9);
    const width = buf.readUInt32BE(18 + i * 9);
    const height = buf.readUInt32BE(22 + i * 9);
    const expect = levelSize(src, k);
    const bytes = width * height * 4;
    if (k < 1 || width !== expect.width || height !== expect.height || at + bytes > buf.length) return null;
    levels.set(k, { data: buf.subarray(at, at + bytes), width, height });
    at += bytes;
  }
  return at === buf.length ? { src, levels } : null;
}
