// Validation of untrusted image bytes before any decoding: size, format from magic bytes, dimensions from the header.
import { ImageError } from './errors';
import { ACCEPTED_LIST, describeUnsupported, detectFormat, type FormatInfo } from './format';
import { readDimensions } from './header';
import { MAX_IMAGE_BYTES, MAX_INPUT_PIXELS, MAX_SIDE } from './limits';

export interface InspectedImage extends FormatInfo {
  /** As stored in the file (before any EXIF rotation). */
  width: number;
  height: number;
  bytes: number;
}

export interface InspectOptions {
  maxBytes?: number;
  maxPixels?: number;
}

const mb = (n: number) => `${Math.round((n / (1024 * 1024)) * 10) / 10} MB`;

/**
 * Cheap checks that need no decoding. Throws ImageError whose message names the problem: empty, too large,
 * not one of the four formats (naming what it looks like, e.g. SVG), header truncated, or too many pixels.
 */
export function inspectImage(buf: Buffer, opts: InspectOptions = {}): InspectedImage {
  const maxBytes = opts.maxBytes ?? MAX_IMAGE_BYTES;
  const maxPixels = opts.maxPixels ?? MAX_INPUT_PIXELS;
  if (buf.length === 0) throw new ImageError('empty', 'The image is empty (0 bytes)');
  if (buf.length > maxBytes) {
    throw new ImageError('too_large', `The image is ${mb(buf.length)}; the maximum is ${mb(maxBytes)}`, {
      maxBytes,
      bytes: buf.length,
    });
  }
  const format = detectFormat(buf);
  if (!format) {
    const what = describeUnsupported(buf);
    const message =
      what === 'SVG'
        ? `SVG images are not accepted: upload a ${ACCEPTED_LIST} image (export the SVG as PNG)`
        : `Unsupported image format (${what}): upload a ${ACCEPTED_LIST} image`;
    throw new ImageError('unsupported_format', message, { detected: what });
  }
  const { width, height } = readDimensions(buf, format.format);
  if (width * height > maxPixels || width > MAX_SIDE || height > MAX_SIDE) {
    throw new ImageError(
      'too_many_pixels',
      `The image is ${width}x${height} pixels, more than can be processed safely (at most ${maxPixels.toLocaleString('en-US')} pixels and ${MAX_SIDE} px per side)`,
      { width, height, maxPixels, maxSide: MAX_SIDE },
    );
  }
  return { ...format, width, height, bytes: buf.length };
}
