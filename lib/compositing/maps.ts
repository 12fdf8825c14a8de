// Fabric maps derived from a blank: how light falls on the garment (shading) and how its surface undulates
// (displacement). Derived once per blank at seed time, stored next to it, and loaded with the prepared blank.
import sharp from 'sharp';
import { MAX_BLANK_SIDE, MAX_DESIGN_PIXELS as MAX_INPUT_PIXELS } from './config';
import { LIN8, blurFloat, downsampleFloat } from './pixels';

/** Bump when the derivation changes: the version is part of the storage keys, so stale maps are never used. */
export const FABRIC_MAPS_VERSION = 'v1';

/** 16-bit map value of 1.0 (maps can express 0 .. 8). */
export const MAP_ONE = 8192;

/** The shading map is stored at 1/SHADE_REDUCE of the blank's size, the displacement map at 1/DISP_REDUCE. */
export const SHADE_REDUCE = 2;
export const DISP_REDUCE = 4;

/** The maps of one blank, each a single-channel 16-bit grayscale PNG (value / MAP_ONE = map value). */
export interface FabricMaps {
  /**
   * Garment irradiance relative to the garment's typical (median) brightness, in linear light, lightly blurred:
   * 1.0 = a typically lit spot, < 1 folds and shadows, > 1 sheen/highlights. Half the blank's resolution (the
   * lighting carries no finer detail; knit grain is deliberately left out).
   */
  shading: Buffer;
  /** The shading blurred further (sigma ~6 blank px): a height proxy for the fabric. Quarter resolution. */
  displacement: Buffer;
}

/** Storage keys of a blank's maps: next to the blank, versioned. */
export function fabricMapKeys(blankKey: string): { shading: string; displacement: string } {
  const base = blankKey.replace(/\.(jpe?g|png|webp)$/i, '');
  return {
    shading: `${base}-shading-${FABRIC_MAPS_VERSION}.png`,
    displacement: `${base}-displace-${FABRIC_MAPS_VERSION}.png`,
  };
}

/** Decoded maps (what a prepared blank keeps). */
export interface MapPixels {
  shade: Uint16Array;
  shadeW: number;
  shadeH: number;
  disp: Uint16Array;
  dispW: number;
  dispH: number;
}

export function mapSizes(width: number, height: number) {
  return {
    shadeW: Math.ceil(width / SHADE_REDUCE),
    shadeH: Math.ceil(height / SHADE_REDUCE),
    dispW: Math.ceil(width / DISP_REDUCE),
    dispH: Math.ceil(height / DISP_REDUCE),
  };
}

/**
 * Typical garment brightness (linear luminance): the median over the center of the image, where every
 * silhouette's torso and print zones are. A median ignores drawstrings, pockets and sheen.
 */
export function garmentReference(rgb: Uint8Array, width: number, height: number): number {
  const BINS = 4096;
  const hist = new Uint32Array(BINS);
  const x0 = Math.floor(width * 0.38);
  const x1 = Math.ceil(width * 0.62);
  const y0 = Math.floor(height * 0.32);
  const y1 = Math.ceil(height * 0.62);
  const step = Math.max(1, Math.round(width / 1000));
  let n = 0;
  const lin = LIN8;
  for (let y = y0; y < y1; y += step) {
    for (let x = x0; x < x1; x += step) {
      const i = (y * width + x) * 3;
      const l = 0.2126 * lin[rgb[i]!]! + 0.7152 * lin[rgb[i + 1]!]! + 0.0722 * lin[rgb[i + 2]!]!;
      hist[Math.min(BINS - 1, Math.floor(l * BINS))]!++;
      n++;
    }
  }
  let acc = 0;
  for (let b = 0; b < BINS; b++) {
    acc += hist[b]!;
    if (acc * 2 >= n) return Math.max(0.002, (b + 0.5) / BINS);
  }
  return 0.5;
}

/** Above this relative brightness the blank shows sheen (a highlight), not more light on the fabric's color. */
export const SHEEN_FROM = 1.1;

export interface ShadingCurve {
  /** exponent on the diffuse shading: 1 on light garments (physical); < 1 on dark ones, whose blanks exaggerate
   * fold contrast and whose JPEG noise is large relative to their brightness */
  gamma: number;
  /** never darken the ink below this factor */
  floor: number;
}

export function shadingCurve(ref: number): ShadingCurve {
  const t = Math.max(0, Math.min(1, (ref - 0.01) / (0.2 - 0.01)));
  const s = t * t * (3 - 2 * t);
  return { gamma: 0.5 + 0.5 * s, floor: 0.3 };
}

/** How much light an ink dot gets, relative to a typical spot, from the shading map value S. */
export function diffuseShade(S: number, c: ShadingCurve): number {
  const d = S < SHEEN_FROM ? S : SHEEN_FROM;
  const v = c.gamma === 1 ? d : Math.pow(d > 0 ? d : 0, c.gamma);
  return v < c.floor ? c.floor : v;
}

const LUM_R = LIN8.map((v) => 0.2126 * v);
const LUM_G = LIN8.map((v) => 0.7152 * v);
const LUM_B = LIN8.map((v) => 0.0722 * v);

/** Compute both maps from decoded RGB pixels of a blank. */
export function computeMaps(rgb: Uint8Array, width: number, height: number): MapPixels {
  const { shadeW, shadeH } = mapSizes(width, height);
  const ref = garmentReference(rgb, width, height);
  // linear luminance, averaged over SHADE_REDUCE blocks (in linear light, like a camera sensor would)
  const lum = new Float32Array(shadeW * shadeH);
  const cnt = new Uint8Array(shadeW * shadeH);
  for (let y = 0; y < height; y++) {
    const o = ((y / SHADE_REDUCE) | 0) * shadeW;
    let i = y * width * 3;
    for (let bx = 0; bx < shadeW; bx++) {
      const n = Math.min(SHADE_REDUCE, width - bx * SHADE_REDUCE);
      let acc = 0;
      for (let k = 0; k < n; k++, i += 3) acc += LUM_R[rgb[i]!]! + LUM_G[rgb[i + 1]!]! + LUM_B[rgb[i + 2]!]!;
      lum[o + bx]! += acc;
      cnt[o + bx]! += n;
    }
  }
  const invRef = 1 / ref;
  for (let j = 0; j < lum.length; j++) lum[j] = (lum[j]! / cnt[j]!) * invRef;
  // blank-size independent blurs: sigma in blank pixels at 2000 px scaled to this blank
  const k = Math.max(width, height) / 2000;
  // dark blanks: JPEG noise and knit grain are large relative to their brightness, so smooth more
  const light = Math.max(0, Math.min(1, (ref - 0.01) / (0.2 - 0.01)));
  const shadeF = blurFloat(lum, shadeW, shadeH, ((1.6 + 2 * (1 - light)) * k) / SHADE_REDUCE);
  // the displacement follows the folds as the eye sees them on the print: the diffuse part of the shading,
  // contrast-compressed on dark garments (see diffuseShade), without sheen
  const dshade = new Float32Array(shadeF.length);
  const curve = shadingCurve(ref);
  for (let j = 0; j < dshade.length; j++) dshade[j] = diffuseShade(shadeF[j]!, curve);
  const heightF = blurFloat(dshade, shadeW, shadeH, (14 * k) / SHADE_REDUCE);
  const dispF = downsampleFloat(heightF, shadeW, shadeH, DISP_REDUCE / SHADE_REDUCE);
  return {
    shade: toU16(shadeF, SHADE_STEP),
    shadeW,
    shadeH,
    disp: toU16(dispF.data),
    dispW: dispF.width,
    dispH: dispF.height,
  };
}

/** Shading values are kept in steps of 16 / MAP_ONE (0.2 %: below half an sRGB level on white ink), which lets the
 * PNG compress to half of what full 16-bit noise would take. The displacement map keeps every bit: the warp is
 * its gradient, and small steps matter there. */
const SHADE_STEP = 16;

function toU16(f: Float32Array, step = 1): Uint16Array {
  const out = new Uint16Array(f.length);
  for (let i = 0; i < f.length; i++) {
    const v = Math.round((f[i]! * MAP_ONE) / step) * step;
    out[i] = v < 0 ? 0 : v > 65535 ? 65535 : v;
  }
  return out;
}

/** Decode a blank (any format sharp reads) to raw sRGB, 3 bytes per pixel, at most `maxSide` on its long side. */
export async function decodeBlank(
  image: Buffer,
  maxSide = MAX_BLANK_SIDE,
): Promise<{ data: Buffer; width: number; height: number }> {
  // Pixel-bounded like designs; a photo larger than a mockup needs is shrunk while decoding (JPEG shrink-on-load),
  // never held at full size: the mockup has the blank's size, at most MAX_BLANK_SIDE on its long side.
  const { data, info } = await sharp(image, { failOn: 'error', limitInputPixels: MAX_INPUT_PIXELS })
    .autoOrient()
    .resize({ width: maxSide, height: maxSide, fit: 'inside', withoutEnlargement: true })
    .toColorspace('srgb')
    .flatten({ background: '#ffffff' }) // a blank with transparency (product PNG) is shown on white
    .raw({ depth: 'uchar' })
    .toBuffer({ resolveWithObject: true });
  if (info.channels !== 3) throw new Error(`blank decoded to ${info.channels} channels`);
  return { data, width: info.width, height: info.height };
}

async function encodeMap(data: Uint16Array, width: number, height: number): Promise<Buffer> {
  return sharp(data, { raw: { width, height, channels: 1 } })
    .toColorspace('grey16')
    .png({ compressionLevel: 6, adaptiveFiltering: true })
    .toBuffer();
}

/** Decode a 16-bit single-channel map PNG; null when it is not one of the expected size. */
export async function decodeMap(png: Buffer, width: number, height: number): Promise<Uint16Array | null> {
  try {
    const { data, info } = await sharp(png)
      .toColorspace('grey16')
      .raw({ depth: 'ushort' })
      .toBuffer({ resolveWithObject: true });
    if (info.width !== width || info.height !== height || data.length !== width * height * 2) return null;
    // copy: the Buffer may not be 2-byte aligned
    const out = new Uint16Array(width * height);
    new Uint8Array(out.buffer).set(data);
    return out;
  } catch {
    return null;
  }
}

/** Seed time: derive the fabric maps of a blank JPEG (~0.1-0.2 s at 2000x2000). */
export async function deriveFabricMaps(blankJpeg: Buffer): Promise<FabricMaps> {
  const blank = await decodeBlank(blankJpeg);
  const m = computeMaps(blank.data, blank.width, blank.height);
  const [shading, displacement] = await Promise.all([
    encodeMap(m.shade, m.shadeW, m.shadeH),
    encodeMap(m.disp, m.dispW, m.dispH),
  ]);
  return { shading, displacement };
}
