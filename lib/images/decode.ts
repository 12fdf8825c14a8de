// The only way this codebase should open untrusted image bytes with sharp: a pixel limit enforced inside libvips,
// failure on truncated or damaged data, and sharp's errors translated into ImageError so callers answer 400, not 500.
import sharp from 'sharp';
import { ImageError, isImageError } from './errors';
import { MAX_INPUT_PIXELS } from './limits';

export interface OpenOptions {
  /** Defaults to MAX_INPUT_PIXELS. */
  maxPixels?: number;
}

/**
 * A sharp pipeline over untrusted bytes. `failOn: 'warning'` (sharp's advice for untrusted input) makes truncated or
 * damaged pixel data an error instead of a silently gray-filled image: libjpeg reports damaged entropy data only as
 * a warning, and a print of a half-gray design is worse than a clear refusal. Only the first frame of an animated
 * GIF/WebP is read (sharp's default), which is what a print uses.
 */
export function openImage(input: Buffer, opts: OpenOptions = {}): sharp.Sharp {
  return sharp(input, {
    limitInputPixels: opts.maxPixels ?? MAX_INPUT_PIXELS,
    failOn: 'warning',
    sequentialRead: true,
  });
}

/** Runs a sharp operation and turns libvips failures into ImageError. */
export async function decoding<T>(op: () => Promise<T>): Promise<T> {
  try {
    return await op();
  } catch (err) {
    throw toImageError(err);
  }
}

export function toImageError(err: unknown): ImageError {
  if (isImageError(err)) return err;
  const msg = err instanceof Error ? err.message : String(err);
  if (/pixel limit/i.test(msg)) {
    return new ImageError('too_many_pixels', 'The image has too many pixels to process safely', {
      limitPixels: MAX_INPUT_PIXELS,
    });
  }
  if (/unsupported image format/i.test(msg))
    return new ImageError('unsupported_format', 'The image format is not supported');
  // Everything else libvips reports about input (premature end, CRC mismatch, bad Huffman table, ...) means the
  // pixel data cannot be read; the precise libvips wording is not useful to an API client.
  return new ImageError('corrupt', 'The image cannot be read: its data is truncated or corrupt', {
    cause: msg.split('\n')[0]?.slice(0, 200),
  });
}
