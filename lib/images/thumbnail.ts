import sharp from 'sharp';
import { decoding, openImage } from './decode';

export interface Thumbnail {
  body: Buffer;
  width: number;
  height: number;
  mimeType: 'image/webp';
  ext: 'webp';
}

/** Longest side of a thumbnail: big enough for a listing or preview, small enough to be a few KB. */
export const THUMBNAIL_MAX_SIDE = 400;

/**
 * A small WebP of the image (WebP keeps transparency, unlike JPEG, and is much smaller than PNG). EXIF rotation is
 * applied so the thumbnail looks like the image does in a browser. Decoding every pixel to make it is also what
 * proves the upload is not truncated: libvips fails on damaged data (see openImage).
 */
export async function makeThumbnail(input: Buffer, maxSide = THUMBNAIL_MAX_SIDE): Promise<Thumbnail> {
  const { data, info } = await decoding(() =>
    openImage(input)
      .autoOrient()
      .resize({ width: maxSide, height: maxSide, fit: 'inside', withoutEnlargement: true })
      .webp({ quality: 80, alphaQuality: 90, effort: 2 })
      .toBuffer({ resolveWithObject: true }),
  );
  return { body: data, width: info.width, height: info.height, mimeType: 'image/webp', ext: 'webp' };
}

/** The same thumbnail from pixels already decoded (raw RGBA, upright), e.g. an upload's prepared design level. */
export async function makeThumbnailFromRaw(
  raw: { data: Buffer; width: number; height: number },
  maxSide = THUMBNAIL_MAX_SIDE,
): Promise<Thumbnail> {
  const { data, info } = await decoding(() =>
    sharp(raw.data, { raw: { width: raw.width, height: raw.height, channels: 4 } })
      .resize({ width: maxSide, height: maxSide, fit: 'inside', withoutEnlargement: true })
      .webp({ quality: 80, alphaQuality: 90, effort: 2 })
      .toBuffer({ resolveWithObject: true }),
  );
  return { body: data, width: info.width, height: info.height, mimeType: 'image/webp', ext: 'webp' };
}
