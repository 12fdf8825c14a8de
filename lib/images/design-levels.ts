// The level pyramid of a design: level 0 is the decoded design, level 1 is decoded and halved in one libvips
// pipeline, level k >= 2 is level k-1 halved. A placement resizes from the smallest level still at least as large
// as the placed size (a last downscale by less than 2: no visible loss against one direct resize).
//
// The pyramid is defined step by step so that every way of reaching a level gives the same pixels: the worker
// decoding the original, the worker halving a cached level, or the API preparing a level at upload time (stored
// next to the upload, so a design's first generation need not decode the original at all).
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

export const levelSize = (src: Size, k: number): Size => ({ width: Math.ceil(src.width / 2 ** k), height: Math.ceil(src.height / 2 ** k) });

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
 * The level prepared at upload time: the deepest whose long side is still >= PREPARED_MIN_LONG_SIDE, which covers
 * placements up to that size (print zones on our 2000 px blanks are ~700-900 px); larger placements decode the
 * original. A 2400x3000 design keeps level 1 (1200x1500, 7 MB raw), a 1000x1000 one level 0 (itself, 4 MB raw).
 * Level 1 and deeper derive from the bytes, not from level 0, so a prepared level 0 serves level-0 placements only.
 */
export const PREPARED_MIN_LONG_SIDE = 1000;
export function preparedLevelFor(src: Size): number {
  let k = 0;
  while (k < 8) {
    const next = levelSize(src, k + 1);
    if (Math.max(next.width, next.height) < PREPARED_MIN_LONG_SIDE) break;
    k++;
  }
  return k;
}

export interface DecodeOptions {
  limitInputPixels: number;
  /** 'warning' for a strict check of untrusted uploads (see lib/images/decode.ts); only failures change, not pixels */
  failOn?: 'error' | 'warning';
}

/** Level 0 or 1 straight from the encoded design: orientation applied, any colour space to sRGB + alpha. */
async function decodeBase(bytes: Buffer, k: 0 | 1, src: Size, opts: DecodeOptions): Promise<Level> {
  let img = sharp(bytes, { limitInputPixels: opts.limitInputPixels, failOn: opts.failOn ?? 'error', sequentialRead: true, autoOrient: true });
  if (k === 1) {
    const s = levelSize(src, 1);
    img = img.resize(s.width, s.height, { fit: 'fill', kernel: 'lanczos3', fastShrinkOnLoad: true });
  }
  const { data, info } = await img.toColourspace('srgb').ensureAlpha().raw({ depth: 'uchar' }).toBuffer({ resolveWithObject: true });
  if (info.channels !== 4) throw new Error(`design decoded to ${info.channels} channels`);
  return { data, width: info.width, height: info.height };
}

/** Level k+1 from level k. */
export async function halve(level: Level): Promise<Level> {
  const width = Math.ceil(level.width / 2);
  const height = Math.ceil(level.height / 2);
  const { data } = await sharp(level.data, { raw: { width: level.width, height: level.height, channels: 4 } })
    .resize(width, height, { fit: 'fill', kernel: 'lanczos3' })
    .raw({ depth: 'uchar' })
    .toBuffer({ resolveWithObject: true });
  return { data, width, height };
}

/** Level k of the encoded design `bytes` whose upright size is `src`. */
export async function decodeLevel(bytes: Buffer, src: Size, k: number, opts: DecodeOptions): Promise<Level> {
  let level = await decodeBase(bytes, k === 0 ? 0 : 1, src, opts);
  for (let i = 1; i < k; i++) level = await halve(level);
  return level;
}

/** Level `to` from level `from` (from <= to) by halving. */
export async function descend(level: Level, from: number, to: number): Promise<Level> {
  for (let i = from; i < to; i++) level = await halve(level);
  return level;
}

/** Upright width and height from the header (EXIF orientation applied). */
export async function uprightSize(bytes: Buffer, opts: DecodeOptions): Promise<Size> {
  const meta = await sharp(bytes, { limitInputPixels: opts.limitInputPixels, failOn: 'error' }).metadata();
  const width = meta.autoOrient?.width ?? meta.width;
  const height = meta.autoOrient?.height ?? meta.height;
  if (!width || !height) throw new Error('image has no size');
  return { width, height };
}

// ---- the prepared level as stored next to an upload ----

/** Where an upload's prepared level is stored (internal: not served under /files). */
export const PREPARED_PREFIX = 'prepared/';
export const preparedKey = (storageKey: string) => `${PREPARED_PREFIX}${storageKey}.rgba`;

const MAGIC = 'AMPLVL01';
const HEADER = 8 + 1 + 4 * 4;

export interface PreparedLevel extends Level {
  /** which level this is */
  k: number;
  /** the design's upright size */
  src: Size;
}

/** Header (magic, k, design size, level size) + raw RGBA: read back without decoding anything. */
export function encodePrepared(p: PreparedLevel): Buffer {
  const head = Buffer.alloc(HEADER);
  head.write(MAGIC, 0, 'latin1');
  head.writeUInt8(p.k, 8);
  head.writeUInt32BE(p.src.width, 9);
  head.writeUInt32BE(p.src.height, 13);
  head.writeUInt32BE(p.width, 17);
  head.writeUInt32BE(p.height, 21);
  return Buffer.concat([head, p.data]);
}

/** The prepared level, or null when `buf` is not one (or not of this format version). */
export function decodePrepared(buf: Buffer): PreparedLevel | null {
  if (buf.length < HEADER || buf.toString('latin1', 0, 8) !== MAGIC) return null;
  const k = buf.readUInt8(8);
  const src = { width: buf.readUInt32BE(9), height: buf.readUInt32BE(13) };
  const width = buf.readUInt32BE(17);
  const height = buf.readUInt32BE(21);
  const expect = levelSize(src, k);
  if (width !== expect.width || height !== expect.height || buf.length !== HEADER + width * height * 4) return null;
  return { k, src, width, height, data: buf.subarray(HEADER) };
}
