// Decoding designs: once, at the size they are placed at, with a small content-keyed LRU for repeats (one design
// rendered on many colours is the common case).
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

/** Default bound of the design cache (a placed design at 2000 px blanks is ~1-2 MB). */
export const DEFAULT_DESIGN_CACHE_BYTES = 48 * 1024 * 1024;

class DesignCache {
  private readonly map = new Map<string, PlacedDesign>();
  private total = 0;
  constructor(public maxBytes: number) {}

  get(key: string): PlacedDesign | undefined {
    const v = this.map.get(key);
    if (v) {
      this.map.delete(key);
      this.map.set(key, v);
    }
    return v;
  }

  set(key: string, v: PlacedDesign): void {
    if (v.data.length > this.maxBytes) return;
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

export const designCache = new DesignCache(DEFAULT_DESIGN_CACHE_BYTES);

/** Resize the design cache (0 disables it) or empty it. */
export function configureDesignCache(opts: { maxBytes?: number; clear?: boolean }): void {
  if (opts.maxBytes !== undefined) designCache.maxBytes = opts.maxBytes;
  if (opts.clear || opts.maxBytes !== undefined) designCache.clear();
}

/**
 * Decode `bytes` and resize to fit inside boxW x boxH keeping the aspect ratio (up or down), in one libvips
 * pipeline: EXIF orientation applied, shrink-on-load for JPEG/WebP, any colour space to sRGB + alpha.
 */
export async function placeDesign(bytes: Buffer, boxW: number, boxH: number, useCache = true): Promise<PlacedDesign> {
  if (!Buffer.isBuffer(bytes) || bytes.length === 0) throw new DesignImageError('design image is empty');
  if (!useCache || designCache.maxBytes <= 0) return decodeDesign(bytes, boxW, boxH);
  const key = `${createHash('sha256').update(bytes).digest('base64')}:${boxW}x${boxH}`;
  const hit = designCache.get(key);
  if (hit) return hit;
  // the same design requested again while it is being decoded (a batch of colours) waits for that decode
  let p = pending.get(key);
  if (!p) {
    p = decodeDesign(bytes, boxW, boxH)
      .then((placed) => {
        designCache.set(key, placed);
        return placed;
      })
      .finally(() => pending.delete(key));
    pending.set(key, p);
  }
  return p;
}

const pending = new Map<string, Promise<PlacedDesign>>();

async function decodeDesign(bytes: Buffer, boxW: number, boxH: number): Promise<PlacedDesign> {
  let out: { data: Buffer; info: sharp.OutputInfo };
  try {
    out = await sharp(bytes, { limitInputPixels: MAX_DESIGN_PIXELS, failOn: 'error', sequentialRead: true, autoOrient: true })
      .resize(boxW, boxH, { fit: 'inside', kernel: 'lanczos3', fastShrinkOnLoad: true })
      .toColourspace('srgb')
      .ensureAlpha()
      .extend({ top: 1, bottom: 1, left: 1, right: 1, background: { r: 0, g: 0, b: 0, alpha: 0 } })
      .raw({ depth: 'uchar' })
      .toBuffer({ resolveWithObject: true });
  } catch (err) {
    const msg = err instanceof Error ? err.message : String(err);
    throw new DesignImageError(
      /pixel limit/i.test(msg) ? `design image is larger than ${MAX_DESIGN_PIXELS / 1e6} megapixels` : `design image cannot be decoded: ${msg}`,
      { cause: err },
    );
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
  return { data, width: info.width - 2, height: info.height - 2 };
}
