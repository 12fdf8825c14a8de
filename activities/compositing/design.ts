// Preparing designs for placement. A design is decoded once into a "level": the design halved k times, the
// smallest such size still at least as large as the placed size, so the last resize is always a downscale by less
// than 2 (no visible loss against one direct resize). Levels and placed designs are kept in a small LRU by bytes,
// keyed by the design's identity, so one design rendered on many garments, colours and sizes (the common case) is
// decoded once and each new size costs a resize of the level (a few ms) instead of a 2400x3000 PNG decode.
//
// Cached or not, a design goes through the same two steps (decode -> level -> placed size), so a mockup's pixels
// do not depend on what the worker happened to have cached: a retried or re-run activity writes the same bytes.
import { createHash } from 'node:crypto';
import sharp from 'sharp';
import { MAX_DESIGN_PIXELS } from './config';

/** Designs that cannot be decoded or are empty: the caller maps this to a non-retryable failure. */
export class DesignImageError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DesignImageError';
  }
}

/** A design resized to its placed size, raw RGBA (not premultiplied), padded with 1 transparent pixel all round. */
export interface PlacedDesign {
  data: Buffer;
  /** size without the padding */
  width: number;
  height: number;
}

/**
 * Where a design's bytes come from. `id` names the content when it is known not to change (our own stored files:
 * upload keys are never reused), so a cached level is found without reading or hashing the bytes; without it the
 * bytes are read and their SHA-256 is the identity.
 */
export interface DesignSource {
  id?: string;
  load: () => Promise<Buffer>;
}

/** Default bound of the design cache: a level of a 2400x3000 design is 7 MB, a placed design 1-2 MB. */
export const DEFAULT_DESIGN_CACHE_BYTES = 64 * 1024 * 1024;
/** How many designs' dimensions are remembered (tiny entries; they let a hit skip reading the bytes). */
const MAX_KNOWN_DESIGNS = 1024;

interface Level {
  data: Buffer;
  width: number;
  height: number;
}

/** LRU by bytes over levels and placed designs. */
class ByteLru<V extends { data: Buffer }> {
  private readonly map = new Map<string, V>();
  private total = 0;
  constructor(public maxBytes: number) {}

  get(key: string): V | undefined {
    const v = this.map.get(key);
    if (v) {
      this.map.delete(key);
      this.map.set(key, v);
    }
    return v;
  }

  set(key: string, v: V): void {
    if (v.data.length > this.maxBytes / 2) return; // one entry must not flush the whole cache
    const old = this.map.get(key);
    if (old) {
      this.total -= old.data.length;
      this.map.delete(key);
    }
    this.map.set(key, v);
    this.total += v.data.length;
    for (const [k, e] of this.map) {
      if (this.total <= this.maxBytes) break;
      this.map.delete(k);
      this.total -= e.data.length;
    }
  }

  clear(): void {
    this.map.clear();
    this.total = 0;
  }

  get bytes(): number {
    return this.total;
  }
}

const cache = new ByteLru<Level | PlacedDesign>(DEFAULT_DESIGN_CACHE_BYTES);
/** design id -> upright size (after EXIF orientation) */
const known = new Map<string, { width: number; height: number }>();
/** decodes in progress, by level key: a batch of colours asking for the same level waits for one decode */
const pending = new Map<string, Promise<Level>>();

/** Resize the design cache (0 disables it) or empty it. */
export function configureDesignCache(opts: { maxBytes?: number; clear?: boolean }): void {
  if (opts.maxBytes !== undefined) cache.maxBytes = opts.maxBytes;
  if (opts.clear || opts.maxBytes !== undefined) {
    cache.clear();
    known.clear();
  }
}

export function designCacheBytes(): number {
  return cache.bytes;
}

/** The size that fits inside box keeping the aspect ratio (up or down), as sharp's fit 'inside' computes it. */
export function fitInside(width: number, height: number, boxW: number, boxH: number): { width: number; height: number } {
  const s = Math.min(boxW / width, boxH / height);
  return { width: Math.max(1, Math.round(width * s)), height: Math.max(1, Math.round(height * s)) };
}

/** The level for a placed size: halve while the half is still at least the placed size (k = 0: the full design). */
export function levelFor(width: number, height: number, target: { width: number; height: number }): { k: number; width: number; height: number } {
  let k = 0;
  for (;;) {
    const w = Math.ceil(width / 2 ** (k + 1));
    const h = Math.ceil(height / 2 ** (k + 1));
    if (k >= 8 || w < target.width || h < target.height) break;
    k++;
  }
  return { k, width: Math.ceil(width / 2 ** k), height: Math.ceil(height / 2 ** k) };
}

/**
 * The design sized to fit inside boxW x boxH (aspect kept), ready for the pixel loop. `useCache: false` does all the
 * work (the benchmark's "new design each time"); the pixels are the same either way.
 */
export async function placeDesign(source: Buffer | DesignSource, boxW: number, boxH: number, useCache = true): Promise<PlacedDesign> {
  const src: DesignSource = Buffer.isBuffer(source) ? { load: async () => source } : source;
  const caching = useCache && cache.maxBytes > 0;
  let bytes: Buffer | undefined;
  let id = src.id;
  if (!caching || !id) {
    bytes = await readBytes(src);
    id ??= `sha256:${createHash('sha256').update(bytes).digest('base64')}`;
  }
  let size = caching ? known.get(id) : undefined;
  if (!size) {
    bytes ??= await readBytes(src);
    size = await uprightSize(bytes);
    if (caching) remember(id, size);
  }
  const target = fitInside(size.width, size.height, boxW, boxH);
  const placedKey = `${id}|P${target.width}x${target.height}`;
  if (caching) {
    const hit = cache.get(placedKey);
    if (hit) return hit as PlacedDesign;
  }
  const lv = levelFor(size.width, size.height, target);
  const levelKey = `${id}|L${lv.width}x${lv.height}`;
  let level = caching ? (cache.get(levelKey) as Level | undefined) : undefined;
  if (!level) {
    let p = caching ? pending.get(levelKey) : undefined;
    if (!p) {
      const b = bytes ?? (await readBytes(src));
      p = decodeLevel(b, lv.width, lv.height, lv.k);
      if (caching) {
        pending.set(levelKey, p);
        p.then((l) => cache.set(levelKey, l)).catch(() => {}).finally(() => pending.delete(levelKey));
      }
    }
    level = await p;
  }
  const placed = await placeFromLevel(level, target.width, target.height);
  if (caching) cache.set(placedKey, placed);
  return placed;
}

async function readBytes(src: DesignSource): Promise<Buffer> {
  const b = await src.load();
  if (!Buffer.isBuffer(b) || b.length === 0) throw new DesignImageError('design image is empty');
  return b;
}

function remember(id: string, size: { width: number; height: number }): void {
  if (known.size >= MAX_KNOWN_DESIGNS) known.delete(known.keys().next().value!);
  known.set(id, size);
}

function decodeError(err: unknown): DesignImageError {
  const msg = err instanceof Error ? err.message : String(err);
  return new DesignImageError(
    /pixel limit/i.test(msg) ? `design image is larger than ${MAX_DESIGN_PIXELS / 1e6} megapixels` : `design image cannot be decoded: ${msg}`,
    { cause: err },
  );
}

/** Width and height as displayed (EXIF orientation applied), from the header; enforces the pixel limit. */
async function uprightSize(bytes: Buffer): Promise<{ width: number; height: number }> {
  let meta: sharp.Metadata;
  try {
    meta = await sharp(bytes, { limitInputPixels: MAX_DESIGN_PIXELS, failOn: 'error' }).metadata();
  } catch (err) {
    throw decodeError(err);
  }
  const width = meta.autoOrient?.width ?? meta.width;
  const height = meta.autoOrient?.height ?? meta.height;
  if (!width || !height) throw new DesignImageError('design image has no size');
  if (width * height > MAX_DESIGN_PIXELS) throw new DesignImageError(`design image is larger than ${MAX_DESIGN_PIXELS / 1e6} megapixels`);
  return { width, height };
}

/**
 * Decode into level k in one libvips pipeline: EXIF orientation applied, shrink-on-load for JPEG/WebP, any colour
 * space to sRGB + alpha, raw RGBA. A design with no visible pixel is refused here, once per level.
 */
async function decodeLevel(bytes: Buffer, width: number, height: number, k: number): Promise<Level> {
  let out: { data: Buffer; info: sharp.OutputInfo };
  try {
    let img = sharp(bytes, { limitInputPixels: MAX_DESIGN_PIXELS, failOn: 'error', sequentialRead: true, autoOrient: true });
    if (k > 0) img = img.resize(width, height, { fit: 'fill', kernel: 'lanczos3', fastShrinkOnLoad: true });
    out = await img.toColourspace('srgb').ensureAlpha().raw({ depth: 'uchar' }).toBuffer({ resolveWithObject: true });
  } catch (err) {
    throw decodeError(err);
  }
  const { data, info } = out;
  if (info.channels !== 4) throw new DesignImageError(`design decoded to ${info.channels} channels`);
  let visible = false;
  for (let i = 3; i < data.length; i += 4) {
    if (data[i] !== 0) {
      visible = true;
      break;
    }
  }
  if (!visible) throw new DesignImageError('design image is fully transparent');
  return { data, width: info.width, height: info.height };
}

/** Level -> placed size (lanczos3, alpha premultiplied by sharp while resampling) + 1 px transparent padding. */
async function placeFromLevel(level: Level, width: number, height: number): Promise<PlacedDesign> {
  let img = sharp(level.data, { raw: { width: level.width, height: level.height, channels: 4 } });
  if (level.width !== width || level.height !== height) img = img.resize(width, height, { fit: 'fill', kernel: 'lanczos3' });
  const { data, info } = await img
    .extend({ top: 1, bottom: 1, left: 1, right: 1, background: { r: 0, g: 0, b: 0, alpha: 0 } })
    .raw({ depth: 'uchar' })
    .toBuffer({ resolveWithObject: true });
  if (info.channels !== 4 || info.width !== width + 2 || info.height !== height + 2) {
    throw new Error(`placed design came out ${info.width}x${info.height}x${info.channels}, expected ${width + 2}x${height + 2}x4`);
  }
  return { data, width, height };
}
