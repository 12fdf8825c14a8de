import { decoding, openImage } from './decode';

/** 8-bit sRGB + alpha pixels, row-major, 4 bytes per pixel. */
export interface RgbaRaster {
  data: Uint8Array;
  width: number;
  height: number;
}

export interface DecodedRaster extends RgbaRaster {
  /** Size of the image as displayed (EXIF orientation applied), before downsampling. */
  sourceWidth: number;
  sourceHeight: number;
  /**
   * The full-resolution 8-bit alpha plane (one byte per source pixel) when the image has an alpha channel, so
   * transparency can be measured on every pixel: downsampling blurs a hairline into "semi-transparent" pixels and can
   * average a lone transparent pixel away. Count it off the event loop (the analysis does so on its worker).
   */
  alphaPlane?: Buffer;
}

/**
 * Decodes into an RGBA raster no larger than maxSide on its longer side. libvips does the decode and the
 * downsampling on its own threads, so the event loop only ever sees the small raster: a 2400x3000 design becomes
 * 410x512 here. Any color space (CMYK JPEG, grayscale, 16-bit PNG, palette GIF) comes out as 8-bit sRGB + alpha.
 *
 * Images with an alpha channel also yield their full-resolution alpha plane; images without one keep libvips'
 * shrink-on-load, which makes large JPEGs cheap.
 */
export async function decodeRaster(input: Buffer, maxSide: number): Promise<DecodedRaster> {
  return decoding(async () => {
    const meta = await openImage(input).metadata();
    const [raster, plane] = await Promise.all([
      openImage(input)
        .autoOrient()
        // A linear kernel, not sharp's default Lanczos: Lanczos overshoots at hard edges and so invents brighter
        // and darker versions of colors, which an analysis would then have to explain away.
        .resize({ width: maxSide, height: maxSide, fit: 'inside', withoutEnlargement: true, kernel: 'linear' })
        .toColorspace('srgb')
        .ensureAlpha()
        .raw({ depth: 'uchar' })
        .toBuffer({ resolveWithObject: true }),
      meta.hasAlpha ? extractAlphaPlane(input) : undefined,
    ]);
    const { data, info } = raster;
    if (info.channels !== 4) throw new Error(`expected 4 channels, got ${info.channels}`);
    return {
      data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength),
      width: info.width,
      height: info.height,
      sourceWidth: meta.autoOrient?.width ?? meta.width ?? info.width,
      sourceHeight: meta.autoOrient?.height ?? meta.height ?? info.height,
      alphaPlane: plane,
    };
  });
}

/**
 * The 8-bit alpha plane at full resolution, straight from the decoder: sharp converts to sRGB + alpha (also from
 * gray+alpha and 16-bit) before extracting band 3. Only this one byte per pixel reaches JavaScript, never the full
 * RGBA image.
 */
async function extractAlphaPlane(input: Buffer): Promise<Buffer> {
  const { data, info } = await openImage(input)
    .extractChannel(3)
    .raw({ depth: 'uchar' })
    .toBuffer({ resolveWithObject: true });
  if (info.channels !== 1) throw new Error(`expected 1 alpha channel, got ${info.channels}`);
  return data;
}
