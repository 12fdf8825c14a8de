// One decode for everything an upload needs. An upload's prepared levels (design-levels.ts) and its analysis raster
// with the full-resolution alpha plane (raster.ts) are each a pipeline straight from the encoded bytes: four full
// decodes of a 2400x3000 PNG (~50 ms of CPU each). For the images where it gives exactly the same pixels, the bytes
// are decoded once, strictly, to full-resolution RGBA and every one of them is resized or extracted from that.
//
// Exactly the same pixels only where libvips has nothing to do at load that a pipeline would do differently: 8-bit
// PNG (no shrink-on-load, which JPEG and WebP have; no 16-bit resize), RGB, RGBA or palette (gray is left out,
// not compared), no ICC profile (converted after the resize in a pipeline, before it here), no EXIF rotation, one
// page. test/unit/one-decode.test.ts compares both ways, pixel for pixel, on the PNG fixtures. The full raster is
// held for the resizes only, and is at most ONE_DECODE_MAX_PIXELS pixels (4 bytes each).
import sharp from 'sharp';
import { openImage } from './decode';
import { levelSize, preparedLevelsFor, rgbaLevel, type Level, type PreparedDesign, type Size } from './design-levels';
import type { DecodedRaster } from './raster';

/** Largest image decoded whole into memory (64 MB of RGBA); larger ones take the pipelines from the bytes. */
export const ONE_DECODE_MAX_PIXELS = 16_000_000;

/** The header facts that decide whether one full decode gives exactly the pixels of the separate pipelines. */
export function decodesOnce(meta: sharp.Metadata): boolean {
  return (
    meta.format === 'png' &&
    meta.depth === 'uchar' &&
    (meta.channels === 3 || meta.channels === 4) &&
    !meta.hasProfile &&
    (meta.orientation ?? 1) === 1 &&
    (meta.pages ?? 1) === 1 &&
    (meta.width ?? Infinity) * (meta.height ?? Infinity) <= ONE_DECODE_MAX_PIXELS
  );
}

/** Every pixel, strictly (openImage: truncated or corrupt data fails), as 8-bit sRGB + alpha at full size. */
export function decodeWhole(bytes: Buffer): Promise<Level> {
  return rgbaLevel(openImage(bytes).autoOrient(), 'image');
}

const fromRaw = (whole: Level) => sharp(whole.data, { raw: { width: whole.width, height: whole.height, channels: 4 } });

/** Level k of a design from its whole decode: the same pixels as decodeLevel from the bytes (decodesOnce images). */
export async function levelFromWhole(whole: Level, k: number): Promise<Level> {
  const s = levelSize(whole, k);
  const { data, info } = await fromRaw(whole)
    .resize(s.width, s.height, { fit: 'fill', kernel: 'lanczos3' })
    .raw({ depth: 'uchar' })
    .toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

/**
 * The analysis raster from the whole decode: the same pixels and alpha plane as decodeRaster from the bytes
 * (decodesOnce images); `hasAlpha` as the file's header says (an image without alpha has no plane).
 */
export async function rasterFromWhole(whole: Level, hasAlpha: boolean, maxSide: number): Promise<DecodedRaster> {
  const [small, alphaPlane] = await Promise.all([
    fromRaw(whole)
      // the linear kernel of decodeRaster (raster.ts says why)
      .resize({ width: maxSide, height: maxSide, fit: 'inside', withoutEnlargement: true, kernel: 'linear' })
      .raw({ depth: 'uchar' })
      .toBuffer({ resolveWithObject: true }),
    hasAlpha ? fromRaw(whole).extractChannel(3).raw({ depth: 'uchar' }).toBuffer() : undefined,
  ]);
  return {
    data: new Uint8Array(small.data.buffer, small.data.byteOffset, small.data.byteLength),
    width: small.info.width,
    height: small.info.height,
    sourceWidth: whole.width,
    sourceHeight: whole.height,
    alphaPlane,
  };
}

/**
 * An upload's prepared levels (null when none applies, as prepareDesignLevels) from one decode of a decodesOnce image
 * whose upright size is `src`, and `raster(maxSide)`, which makes its analysis raster from the same decode when
 * called: after the answer, so the answer never waits for it. The decode is held (4 bytes a pixel) until then, or
 * until the result is dropped.
 */
export async function prepareFromOneDecode(
  bytes: Buffer,
  src: Size,
  hasAlpha: boolean,
): Promise<{ prepared: PreparedDesign | null; raster: (maxSide: number) => Promise<DecodedRaster> }> {
  const whole = await decodeWhole(bytes);
  if (whole.width !== src.width || whole.height !== src.height)
    throw new Error(`decoded ${whole.width}x${whole.height}, header says ${src.width}x${src.height}`);
  const ks = preparedLevelsFor(src);
  const levels = await Promise.all(ks.map((k) => levelFromWhole(whole, k)));
  return {
    prepared: ks.length ? { src, levels: new Map(ks.map((k, i) => [k, levels[i]!])) } : null,
    raster: (maxSide) => rasterFromWhole(whole, hasAlpha, maxSide),
  };
}
