// Preparing designs for placement, on the levels of lib/images/design-levels.ts: the design is decoded once into
// the level its placement needs, and levels and placed designs are kept in a small LRU by bytes, keyed by the
// design's identity. One design rendered on many garments, colors and sizes (the common case) is decoded once per
// level; a new size then costs a resize of a cached level (a few ms) instead of a 2400x3000 PNG decode. Our own
// uploads come with levels prepared at upload time, so even their first generation usually skips the decode.
//
// Cached, prepared or decoded, a level has one definition, so a mockup's pixels do not depend on what the worker
// happened to have: a retried or re-run step writes the same bytes.
import { createHash } from 'node:crypto';
import sharp from 'sharp';
import {
  decodeLevel,
  fitInside,
  levelFor,
  levelSize,
  uprightSize,
  type Level,
  type PreparedDesign,
  type Size,
} from '../images/design-levels';
import { BadInputError } from '../errors';
import { MAX_DESIGN_PIXELS } from './config';

/** Designs that cannot be decoded or are empty: bad input, which the caller maps to a non-retryable failure. */
export class DesignImageError extends BadInputError {
  override name = 'DesignImageError';
}

/** A design resized to its placed size, raw RGBA (not premultiplied), padded with 1 transparent pixel all round. */
export interface PlacedDesign {
  data: Buffer;
  /** size without the padding */
  width: number;
  height: number;
  /** names these pixels in the design cache (the design's identity and placed size) when it was cached: what is
   * derived from them (derivedOf) is kept under keys that begin with it */
  key?: string;
}

/**
 * Where a design's bytes come from. `id` names the content when it is known not to change (our own stored files:
 * upload keys are never reused), so a cached level is found without reading or hashing the bytes; without it the
 * bytes are read and their SHA-256 is the identity.
 */
export interface DesignSource {
  id?: string;
  load: () => Promise<Buffer>;
  /** Levels prepared at upload time, if there are any (null otherwise); tried before `load` on a cache miss. */
  loadPrepared?: () => Promise<PreparedDesign | null>;
}

/** Default bound of the design cache: a level of a 2400x3000 design is 7 MB, a placed design 1-2 MB. */
export const DEFAULT_DESIGN_CACHE_BYTES = 64 * 1024 * 1024;
/** How many designs' dimensions are remembered (tiny entries; they let a hit skip reading the bytes). */
const MAX_KNOWN_DESIGNS = 1024;

/** LRU by bytes over levels, placed designs and what callers derive from them (derivedOf). */
class ByteLru {
  private readonly map = new Map<string, { v: unknown; bytes: number }>();
  private total = 0;
  constructor(public maxBytes: number) {}

  get(key: string): unknown {
    const e = this.map.get(key);
    if (e) {
      this.map.delete(key);
      this.map.set(key, e);
    }
    return e?.v;
  }

  set(key: string, v: unknown, bytes: number): void {
    if (bytes > this.maxBytes / 2) return; // one entry must not flush the whole cache
    const old = this.map.get(key);
    if (old) {
      this.total -= old.bytes;
      this.map.delete(key);
    }
    this.map.set(key, { v, bytes });
    this.total += bytes;
    for (const [k, e] of this.map) {
      if (this.total <= this.maxBytes) break;
      this.map.delete(k);
      this.total -= e.bytes;
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

const cache = new ByteLru(DEFAULT_DESIGN_CACHE_BYTES);
const keep = (key: string, v: { data: Buffer }) => cache.set(key, v, v.data.length);
/** design id -> upright size (after EXIF orientation) */
const known = new Map<string, { width: number; height: number }>();
/** decodes in progress, by level key: a batch of colors asking for the same level waits for one decode */
const pending = new Map<string, Promise<Level>>();

/** Resize the design cache (0 disables it) or empty it. */
export function configureDesignCache(opts: { maxBytes?: number; clear?: boolean }): void {
  if (opts.maxBytes !== undefined) cache.maxBytes = opts.maxBytes;
  if (opts.clear || opts.maxBytes !== undefined) {
    cache.clear();
    known.clear();
  }
}

/**
 * What callers derive from a cached design's pixels (a resized copy, a template render's mip pyramid), kept in the
 * design cache and counted in its bound (LRU with levels and placed designs). A key begins with the placed design's
 * key (PlacedDesign.key) and says what else the value depends on; `bytes` is what the value holds (one over half the
 * bound is not kept).
 */
export const derivedCache = {
  get: <V>(key: string): V | undefined => cache.get(key) as V | undefined,
  set: (key: string, value: unknown, bytes: number): void => cache.set(key, value, bytes),
};

/** Bytes the design cache holds now. */
export function designCacheBytes(): number {
  return cache.bytes;
}

/**
 * The design sized to fit inside boxW x boxH (aspect kept), ready for the pixel loop. `useCache: false` does all the
 * work from the encoded bytes (the benchmark's "new design each time"); the pixels are the same either way.
 */
export async function placeDesign(
  source: Buffer | DesignSource,
  boxW: number,
  boxH: number,
  useCache = true,
): Promise<PlacedDesign> {
  const src: DesignSource = Buffer.isBuffer(source) ? { load: async () => source } : source;
  const caching = useCache && cache.maxBytes > 0;
  const have: Have = {};
  let id = src.id;
  if (!caching) {
    // nothing is looked up or kept: no identity needed
    have.bytes = await readBytes(src);
    const size = await sizeOf(have.bytes);
    return place(src, '', size, fitInside(size, boxW, boxH), false, have);
  }
  if (!id) {
    have.bytes = await readBytes(src);
    id = `sha256:${createHash('sha256').update(have.bytes).digest('base64')}`;
  }
  let size = known.get(id);
  if (!size) {
    // first sight of this design: its size from the prepared levels, else from the bytes' header; concurrent
    // requests for it (a batch) share one read
    const probed = await probeShared(src, id, have.bytes);
    size = probed.size;
    have.bytes ??= probed.bytes;
    have.prepared = probed.prepared;
    remember(id, size);
  }
  const target = fitInside(size, boxW, boxH);
  const placedKey = `${id}|P${target.width}x${target.height}`;
  const hit = cache.get(placedKey);
  if (hit) return hit as PlacedDesign;
  const placed: PlacedDesign = { ...(await place(src, id, size, target, true, have)), key: placedKey };
  keep(placedKey, placed);
  return placed;
}

/** The placed design from the level the target needs; larger than level 1, straight from the bytes (no level is
 * worth keeping for that). */
async function place(
  src: DesignSource,
  id: string,
  size: Size,
  target: Size,
  caching: boolean,
  have: Have,
): Promise<PlacedDesign> {
  const k = levelFor(size, target);
  if (k === 0) return placeFromBytes(have.bytes ?? (await readBytes(src)), target);
  return placeFromLevel(await getLevel(src, id, size, k, caching, have), target.width, target.height);
}

interface Have {
  bytes?: Buffer;
  /** undefined: not looked for yet; null: there is none */
  prepared?: PreparedDesign | null;
}

interface Probed {
  size: Size;
  bytes?: Buffer;
  prepared: PreparedDesign | null | undefined;
}

async function probe(src: DesignSource, bytes: Buffer | undefined): Promise<Probed> {
  // with bytes in hand (a foreign URL, hashed for its identity) there is nothing prepared to look for
  if (!bytes && src.loadPrepared) {
    const prepared = await src.loadPrepared();
    if (prepared) return { size: prepared.src, prepared };
    const b = await readBytes(src);
    return { size: await sizeOf(b), bytes: b, prepared: null };
  }
  const b = bytes ?? (await readBytes(src));
  return { size: await sizeOf(b), bytes: b, prepared: undefined };
}

const probing = new Map<string, Promise<Probed>>();
function probeShared(src: DesignSource, id: string, bytes: Buffer | undefined): Promise<Probed> {
  let p = probing.get(id);
  if (!p) {
    p = probe(src, bytes).finally(() => probing.delete(id));
    probing.set(id, p);
  }
  return p;
}

const levelKey = (id: string, s: Size) => `${id}|L${s.width}x${s.height}`;

/** Level k (>= 1): from the cache, the prepared levels, or decoded from the bytes; concurrent requests share one. */
async function getLevel(
  src: DesignSource,
  id: string,
  size: Size,
  k: number,
  caching: boolean,
  have: Have,
): Promise<Level> {
  const key = levelKey(id, levelSize(size, k));
  if (caching) {
    const hit = cache.get(key) as Level | undefined;
    if (hit) return hit;
    const p = pending.get(key);
    if (p) return p;
  }
  const p = (async () => {
    let prepared = have.prepared;
    if (prepared === undefined && !have.bytes && src.loadPrepared) prepared = await src.loadPrepared();
    if (prepared && prepared.src.width === size.width && prepared.src.height === size.height) {
      // keep every prepared level: the next sizes of this design will want them too
      if (caching) for (const [j, l] of prepared.levels) if (j !== k) keep(levelKey(id, l), l);
      const level = prepared.levels.get(k);
      if (level) return checked(level);
    }
    const bytes = have.bytes ?? (await readBytes(src));
    let level: Level;
    try {
      level = await decodeLevel(bytes, size, k, { limitInputPixels: MAX_DESIGN_PIXELS });
    } catch (err) {
      throw decodeError(err);
    }
    return checked(level);
  })();
  if (caching) {
    pending.set(key, p);
    p.then((l) => keep(key, l))
      .catch(() => {})
      .finally(() => pending.delete(key));
  }
  return p;
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
    /pixel limit/i.test(msg)
      ? `design image is larger than ${MAX_DESIGN_PIXELS / 1e6} megapixels`
      : `design image cannot be decoded: ${msg}`,
    { cause: err },
  );
}

/** Upright size from the header; enforces the pixel limit before anything is decoded. */
async function sizeOf(bytes: Buffer): Promise<Size> {
  let size: Size;
  try {
    size = await uprightSize(bytes, { limitInputPixels: MAX_DESIGN_PIXELS });
  } catch (err) {
    throw decodeError(err);
  }
  if (size.width * size.height > MAX_DESIGN_PIXELS)
    throw new DesignImageError(`design image is larger than ${MAX_DESIGN_PIXELS / 1e6} megapixels`);
  return size;
}

/** A design with no visible pixel is refused (checked on each level made; it stops at the first visible pixel). */
function checked(level: Level): Level {
  const d = level.data;
  for (let i = 3; i < d.length; i += 4) if (d[i] !== 0) return level;
  throw new DesignImageError('design image is fully transparent');
}

/** A placement larger than level 1, from the bytes in one pipeline (+ 1 px transparent padding). */
async function placeFromBytes(bytes: Buffer, target: Size): Promise<PlacedDesign> {
  let out: { data: Buffer; info: sharp.OutputInfo };
  try {
    out = await sharp(bytes, {
      limitInputPixels: MAX_DESIGN_PIXELS,
      failOn: 'error',
      sequentialRead: true,
      autoOrient: true,
    })
      .resize(target.width, target.height, { fit: 'fill', kernel: 'lanczos3', fastShrinkOnLoad: true })
      .toColorspace('srgb')
      .ensureAlpha()
      .extend({ top: 1, bottom: 1, left: 1, right: 1, background: { r: 0, g: 0, b: 0, alpha: 0 } })
      .raw({ depth: 'uchar' })
      .toBuffer({ resolveWithObject: true });
  } catch (err) {
    throw decodeError(err);
  }
  const { data, info } = out;
  if (info.channels !== 4) throw new DesignImageError(`design decoded to ${info.channels} channels`);
  checked({ data, width: info.width, height: info.height });
  return { data, width: target.width, height: target.height };
}

/** Level -> placed size (lanczos3, alpha premultiplied by sharp while resampling) + 1 px transparent padding. */
async function placeFromLevel(level: Level, width: number, height: number): Promise<PlacedDesign> {
  let img = sharp(level.data, { raw: { width: level.width, height: level.height, channels: 4 } });
  if (level.width !== width || level.height !== height)
    img = img.resize(width, height, { fit: 'fill', kernel: 'lanczos3' });
  const { data, info } = await img
    .extend({ top: 1, bottom: 1, left: 1, right: 1, background: { r: 0, g: 0, b: 0, alpha: 0 } })
    .raw({ depth: 'uchar' })
    .toBuffer({ resolveWithObject: true });
  if (info.channels !== 4 || info.width !== width + 2 || info.height !== height + 2) {
    throw new Error(
      `placed design came out ${info.width}x${info.height}x${info.channels}, expected ${width + 2}x${height + 2}x4`,
    );
  }
  return { data, width, height };
}
