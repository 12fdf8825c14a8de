// Format detection from the bytes themselves. File names, multipart Content-Types and data-URL media types are
// client claims and are never consulted: a JPEG called logo.png is a JPEG, an SVG called logo.png is refused.

export type ImageFormat = 'png' | 'jpeg' | 'webp' | 'gif';

export interface FormatInfo {
  format: ImageFormat;
  mimeType: string;
  /** File extension for storage keys; the /files route derives Content-Type from it. */
  ext: string;
}

export const ACCEPTED_FORMATS: Record<ImageFormat, FormatInfo> = {
  png: { format: 'png', mimeType: 'image/png', ext: 'png' },
  jpeg: { format: 'jpeg', mimeType: 'image/jpeg', ext: 'jpg' },
  webp: { format: 'webp', mimeType: 'image/webp', ext: 'webp' },
  gif: { format: 'gif', mimeType: 'image/gif', ext: 'gif' },
};

export const ACCEPTED_LIST = 'PNG, JPEG, WebP or GIF';

const startsWith = (buf: Uint8Array, bytes: number[], at = 0) =>
  buf.length >= at + bytes.length && bytes.every((b, i) => buf[at + i] === b);
const ascii = (buf: Uint8Array, from: number, to: number) => Buffer.from(buf.subarray(from, to)).toString('latin1');

/** One of the accepted formats, or null. */
export function detectFormat(buf: Uint8Array): FormatInfo | null {
  if (startsWith(buf, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return ACCEPTED_FORMATS.png;
  if (startsWith(buf, [0xff, 0xd8, 0xff])) return ACCEPTED_FORMATS.jpeg;
  if (buf.length >= 12 && ascii(buf, 0, 4) === 'RIFF' && ascii(buf, 8, 12) === 'WEBP') return ACCEPTED_FORMATS.webp;
  if (buf.length >= 6 && (ascii(buf, 0, 6) === 'GIF87a' || ascii(buf, 0, 6) === 'GIF89a')) return ACCEPTED_FORMATS.gif;
  return null;
}

/**
 * A human name for bytes we refuse, so the error can say "SVG images are not accepted" rather than "bad format".
 * Only a best guess for the message; nothing is decided by it.
 */
export function describeUnsupported(buf: Uint8Array): string {
  if (buf.length === 0) return 'empty data';
  const head = ascii(buf, 0, Math.min(buf.length, 1024))
    .replace(/^\uFEFF|^\xEF\xBB\xBF/, '')
    .trimStart()
    .toLowerCase();
  if (
    head.startsWith('<svg') ||
    (head.startsWith('<?xml') && head.includes('<svg')) ||
    head.startsWith('<!doctype svg')
  )
    return 'SVG';
  if (head.startsWith('<!doctype html') || head.startsWith('<html')) return 'HTML';
  if (head.startsWith('<?xml')) return 'XML';
  if (startsWith(buf, [0x25, 0x50, 0x44, 0x46])) return 'PDF';
  if (startsWith(buf, [0x42, 0x4d])) return 'BMP';
  if (startsWith(buf, [0x49, 0x49, 0x2a, 0x00]) || startsWith(buf, [0x4d, 0x4d, 0x00, 0x2a])) return 'TIFF';
  if (startsWith(buf, [0x00, 0x00, 0x01, 0x00])) return 'ICO';
  if (startsWith(buf, [0x38, 0x42, 0x50, 0x53])) return 'PSD';
  if (startsWith(buf, [0x25, 0x21, 0x50, 0x53])) return 'PostScript';
  if (startsWith(buf, [0x50, 0x4b, 0x03, 0x04])) return 'ZIP';
  if (startsWith(buf, [0xff, 0x0a]) || startsWith(buf, [0x00, 0x00, 0x00, 0x0c, 0x4a, 0x58, 0x4c, 0x20]))
    return 'JPEG XL';
  if (buf.length >= 12 && ascii(buf, 4, 8) === 'ftyp') {
    const brand = ascii(buf, 8, 12);
    if (brand.startsWith('avi')) return 'AVIF';
    if (['heic', 'heix', 'hevc', 'hevx', 'mif1', 'msf1'].includes(brand)) return 'HEIC';
    return 'a video or ISO media file';
  }
  if (buf.length >= 12 && ascii(buf, 0, 4) === 'RIFF') return 'a RIFF file that is not WebP';
  if (head.startsWith('{') || head.startsWith('[')) return 'JSON text';
  return 'an unrecognized format';
}
