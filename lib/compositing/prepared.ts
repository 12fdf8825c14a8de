// Prepared blanks: decoded pixels, fabric maps and derived lookup data, held in an in-process LRU bounded by bytes.
import {
  computeMaps,
  decodeBlank,
  decodeMap,
  diffuseShade,
  fabricMapKeys,
  garmentReference,
  mapSizes,
  MAP_ONE,
  SHEEN_FROM,
  shadingCurve,
  DISP_REDUCE,
  type MapPixels,
} from './maps';
import { detectGarmentInImage, type GarmentDetection } from './garment-detect';

/** Thumbnails are ~400 px on the long side (an integer box reduction of the blank). */
export const THUMB_TARGET = 400;

export interface PreparedBlank {
  key: string;
  width: number;
  height: number;
  /** decoded blank, sRGB, 3 bytes per pixel */
  rgb: Buffer;
  /** fabric maps (16-bit, value / MAP_ONE) */
  maps: MapPixels;
  /** typical garment brightness (linear luminance) */
  ref: number;
  /** 16-bit shading value -> diffuse light factor on the ink */
  diffuseLut: Float32Array;
  /** 16-bit shading value -> sheen to screen over the ink (linear light) */
  sheenLut: Float32Array;
  /** per displacement-map sample: offset in blank pixels where the design is sampled (x, y interleaved) */
  warp: Float32Array;
  /** the blank reduced by an integer box factor, sRGB RGB */
  thumb: { data: Buffer; width: number; height: number; factor: number };
  /** the garment found in a client's own photo (garment-detect.ts); null when not looked for (catalogue blanks) */
  garment: GarmentDetection | null;
  /** where the maps came from: storage (seeded) or derived in memory (old data without maps) */
  mapsSource: 'storage' | 'derived';
  /** approximate memory held */
  bytes: number;
}

/** Strength of the warp: offset (px) = WARP_GAIN * gradient of the displacement map (per px) at 2000 px... */
export const WARP_GAIN = 1200;
/** ...but at most what brings the 95th percentile offset over the garment's center to WARP_P95 (dark blanks show
 * their folds with far more contrast than light ones; this keeps the warp "a few pixels" on every color)... */
export const WARP_P95 = 0.0009; // 1.8 px at 2000 px
/** ...and offsets are softly limited to WARP_MAX (fractions of the blank's width; 4 px at 2000 px). */
export const WARP_MAX = 0.002;
/** Fraction of the garment's sheen kept over ink (screen). */
export const SHEEN_GAIN = 0.75;

/**
 * Decodes a blank and derives what compositing on it needs. `maxSide` shrinks it first (the preview's small blanks:
 * the same engine and placement maths on fewer pixels); maps of another size than the decoded blank are not used
 * but derived from its pixels, as for a blank that has none stored.
 */
export async function prepareBlank(
  key: string,
  blankBytes: Buffer,
  maps?: { shading: Buffer; displacement: Buffer } | null,
  opts: { maxSide?: number; findGarment?: boolean } = {},
): Promise<PreparedBlank> {
  // the garment is looked for in a small copy of the photo of its own (alpha kept), beside the full decode
  const [blank, garment] = await Promise.all([
    decodeBlank(blankBytes, opts.maxSide),
    opts.findGarment ? detectGarmentInImage(blankBytes) : null,
  ]);
  const { width, height } = blank;
  const sizes = mapSizes(width, height);
  let m: MapPixels | null = null;
  let mapsSource: PreparedBlank['mapsSource'] = 'storage';
  if (maps) {
    const [shade, disp] = await Promise.all([
      decodeMap(maps.shading, sizes.shadeW, sizes.shadeH),
      decodeMap(maps.displacement, sizes.dispW, sizes.dispH),
    ]);
    if (shade && disp) m = { shade, disp, ...sizes };
  }
  if (!m) {
    m = computeMaps(blank.data, width, height);
    mapsSource = 'derived';
  }
  const ref = garmentReference(blank.data, width, height);
  const curve = shadingCurve(ref);
  const diffuseLut = new Float32Array(65536);
  const sheenLut = new Float32Array(65536);
  for (let v = 0; v < 65536; v++) {
    const S = v / MAP_ONE;
    diffuseLut[v] = diffuseShade(S, curve);
    sheenLut[v] = S > SHEEN_FROM ? Math.min(0.5, (S - SHEEN_FROM) * ref * SHEEN_GAIN) : 0;
  }
  const warp = warpField(m, width);
  const thumb = boxThumb(blank.data, width, height);
  const bytes =
    blank.data.length + m.shade.byteLength + m.disp.byteLength + warp.byteLength + thumb.data.length + 2 * 65536 * 4;
  return {
    key,
    width,
    height,
    rgb: blank.data,
    maps: m,
    ref,
    diffuseLut,
    sheenLut,
    warp,
    thumb,
    garment,
    mapsSource,
    bytes,
  };
}

/** Displacement offsets from the gradient of the displacement map: the design is pulled into creases. */
function warpField(m: MapPixels, width: number): Float32Array {
  const { disp, dispW: w, dispH: h } = m;
  const grad = new Float32Array(w * h * 2);
  // gradient per blank pixel: difference over 2 samples / (2 * DISP_REDUCE)
  const k = 1 / (2 * DISP_REDUCE * MAP_ONE);
  for (let y = 0; y < h; y++) {
    const ym = y > 0 ? y - 1 : 0;
    const yp = y < h - 1 ? y + 1 : h - 1;
    for (let x = 0; x < w; x++) {
      const xm = x > 0 ? x - 1 : 0;
      const xp = x < w - 1 ? x + 1 : w - 1;
      grad[(y * w + x) * 2] = (disp[y * w + xp]! - disp[y * w + xm]!) * k;
      grad[(y * w + x) * 2 + 1] = (disp[yp * w + x]! - disp[ym * w + x]!) * k;
    }
  }
  // 95th percentile of the gradient over the center of the image (torso and print zones)
  const mags: number[] = [];
  for (let y = Math.floor(h * 0.25); y < Math.ceil(h * 0.75); y++) {
    for (let x = Math.floor(w * 0.3); x < Math.ceil(w * 0.7); x++)
      mags.push(Math.hypot(grad[(y * w + x) * 2]!, grad[(y * w + x) * 2 + 1]!));
  }
  mags.sort((a, b) => a - b);
  const p95 = mags.length ? mags[Math.floor(mags.length * 0.95)]! : 0;
  const scale = width / 2000;
  // offsets scale with the blank (px), gradients inversely: gain ~ scale^2
  let gain = WARP_GAIN * scale * scale;
  if (p95 * gain > WARP_P95 * width) gain = (WARP_P95 * width) / p95;
  const max = WARP_MAX * width;
  for (let i = 0; i < grad.length; i += 2) {
    const dx = grad[i]! * gain;
    const dy = grad[i + 1]! * gain;
    const len = Math.hypot(dx, dy);
    const f = len > 1e-9 ? (max * Math.tanh(len / max)) / len : 1;
    grad[i] = dx * f;
    grad[i + 1] = dy * f;
  }
  return grad;
}

export function thumbFactor(width: number, height: number): number {
  return Math.max(1, Math.round(Math.max(width, height) / THUMB_TARGET));
}

function boxThumb(rgb: Buffer, width: number, height: number): PreparedBlank['thumb'] {
  const factor = thumbFactor(width, height);
  const tw = Math.max(1, Math.floor(width / factor));
  const th = Math.max(1, Math.floor(height / factor));
  const data = Buffer.allocUnsafe(tw * th * 3);
  reduceInto(rgb, width, data, tw, factor, 0, 0, tw, th);
  return { data, width: tw, height: th, factor };
}

/** Box-reduce the source rows/cols covering thumbnail cells [tx0, tx1) x [ty0, ty1) into `dst`. */
export function reduceInto(
  src: Buffer,
  srcW: number,
  dst: Buffer,
  dstW: number,
  f: number,
  tx0: number,
  ty0: number,
  tx1: number,
  ty1: number,
): void {
  const inv = 1 / (f * f);
  for (let ty = ty0; ty < ty1; ty++) {
    for (let tx = tx0; tx < tx1; tx++) {
      let r = 0;
      let g = 0;
      let b = 0;
      for (let y = ty * f; y < ty * f + f; y++) {
        let i = (y * srcW + tx * f) * 3;
        for (let x = 0; x < f; x++, i += 3) {
          r += src[i]!;
          g += src[i + 1]!;
          b += src[i + 2]!;
        }
      }
      const o = (ty * dstW + tx) * 3;
      dst[o] = Math.round(r * inv);
      dst[o + 1] = Math.round(g * inv);
      dst[o + 2] = Math.round(b * inv);
    }
  }
}

const MAX_CONCURRENT_PREPARES = 2;

/** Default bound of the blank cache: ~11 prepared 2000x2000 blanks (~17 MB each). */
export const DEFAULT_BLANK_CACHE_BYTES = 192 * 1024 * 1024;

/**
 * Loads blank + maps through `load` (which reads storage) once and keeps them in an in-process LRU bounded by
 * bytes. Concurrent gets of one key share one load. If the maps are missing in storage (old data), they are
 * derived and kept in memory only. A failed load is not cached.
 */
export class PreparedBlankCache {
  private readonly load: (key: string) => Promise<Buffer | null>;
  readonly maxBytes: number;
  private readonly entries = new Map<string, { promise: Promise<PreparedBlank>; bytes: number }>();
  private total = 0;
  private hitCount = 0;
  private missCount = 0;

  private readonly mapsStored: (blankKey: string) => boolean;
  private readonly findGarment: (blankKey: string) => boolean;
  // Preparing decodes a 2000x2000 blank and its maps (~17 MB held, more while decoding): at most two at a time,
  // so a batch touching many blanks cannot spike the worker's memory.
  private preparing = 0;
  private readonly waiting: (() => void)[] = [];

  /** Blanks are shrunk to this long side when prepared (undefined: full size, at most MAX_BLANK_SIDE). */
  readonly maxSide: number | undefined;

  constructor(opts: {
    load: (key: string) => Promise<Buffer | null>;
    maxBytes?: number;
    mapsStored?: (blankKey: string) => boolean;
    /** Prepare every blank shrunk to this long side, its maps derived from the shrunk pixels (the preview). */
    maxSide?: number;
    /** Which blanks are clients' own photos: the garment is looked for in them once, kept with the blank. */
    findGarment?: (blankKey: string) => boolean;
  }) {
    this.load = opts.load;
    this.maxSide = opts.maxSide;
    this.maxBytes = opts.maxBytes ?? DEFAULT_BLANK_CACHE_BYTES;
    this.mapsStored = opts.mapsStored ?? (() => true);
    this.findGarment = opts.findGarment ?? (() => false);
  }

  get(blankKey: string): Promise<PreparedBlank> {
    const hit = this.entries.get(blankKey);
    if (hit) {
      this.hitCount++;
      // refresh recency
      this.entries.delete(blankKey);
      this.entries.set(blankKey, hit);
      return hit.promise;
    }
    this.missCount++;
    const entry = { promise: this.prepare(blankKey), bytes: 0 };
    this.entries.set(blankKey, entry);
    entry.promise.then(
      (p) => {
        if (this.entries.get(blankKey) !== entry) return;
        entry.bytes = p.bytes;
        this.total += p.bytes;
        this.evict(blankKey);
      },
      () => {
        if (this.entries.get(blankKey) === entry) this.entries.delete(blankKey);
      },
    );
    return entry.promise;
  }

  private async prepare(key: string): Promise<PreparedBlank> {
    if (this.preparing >= MAX_CONCURRENT_PREPARES) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.preparing++;
    try {
      const mapKeys = fabricMapKeys(key);
      // Blanks without stored maps (a client's own blank photo) get them derived in memory by prepareBlank.
      // Stored maps have the full blank's size: a shrunk blank derives its own (cheap at preview sizes).
      const stored = this.maxSide === undefined && this.mapsStored(key);
      const [image, shading, displacement] = await Promise.all([
        this.load(key),
        stored ? this.load(mapKeys.shading) : null,
        stored ? this.load(mapKeys.displacement) : null,
      ]);
      if (!image) throw new Error(`blank not found: ${key}`);
      return await prepareBlank(key, image, shading && displacement ? { shading, displacement } : null, {
        maxSide: this.maxSide,
        findGarment: this.findGarment(key),
      });
    } finally {
      this.preparing--;
      this.waiting.shift()?.();
    }
  }

  private evict(keep: string): void {
    for (const [k, e] of this.entries) {
      if (this.total <= this.maxBytes) break;
      if (k === keep || e.bytes === 0) continue; // the newest entry and loads in progress stay
      this.entries.delete(k);
      this.total -= e.bytes;
    }
  }

  /** Drop everything (e.g. after re-seeding). */
  clear(): void {
    this.entries.clear();
    this.total = 0;
  }

  stats(): { entries: number; bytes: number; maxBytes: number; hits: number; misses: number } {
    return {
      entries: this.entries.size,
      bytes: this.total,
      maxBytes: this.maxBytes,
      hits: this.hitCount,
      misses: this.missCount,
    };
  }
}
