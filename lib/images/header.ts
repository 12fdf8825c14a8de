// Image dimensions read straight from the file header, without decoding: this is how a decompression bomb (a small
// file that claims 30000x30000 pixels) is refused before libvips allocates anything for it.
import { ImageError } from './errors';
import type { ImageFormat } from './format';

export interface Dimensions {
  width: number;
  height: number;
}

const truncated = (what: string) =>
  new ImageError('corrupt', `The image cannot be read: its ${what} header is truncated or corrupt`);

export function readDimensions(buf: Uint8Array, format: ImageFormat): Dimensions {
  const dims = readRaw(Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength), format);
  if (!(dims.width > 0 && dims.height > 0))
    throw new ImageError('corrupt', 'The image cannot be read: its header gives a zero width or height');
  return dims;
}

function readRaw(b: Buffer, format: ImageFormat): Dimensions {
  switch (format) {
    case 'png':
      // Signature (8) + IHDR length (4) + "IHDR" (4) + width (4) + height (4); IHDR must be the first chunk.
      if (b.length < 24 || b.toString('latin1', 12, 16) !== 'IHDR') throw truncated('PNG');
      return { width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
    case 'gif':
      // Logical screen descriptor straight after "GIF89a".
      if (b.length < 10) throw truncated('GIF');
      return { width: b.readUInt16LE(6), height: b.readUInt16LE(8) };
    case 'webp':
      return webp(b);
    case 'jpeg':
      return jpeg(b);
  }
}

function webp(b: Buffer): Dimensions {
  if (b.length < 30) throw truncated('WebP');
  const chunk = b.toString('latin1', 12, 16);
  if (chunk === 'VP8X') {
    // Extended format: 24-bit canvas width-1 and height-1.
    return { width: 1 + b.readUIntLE(24, 3), height: 1 + b.readUIntLE(27, 3) };
  }
  if (chunk === 'VP8 ') {
    // Lossy: 3-byte frame tag, start code 9d 01 2a, then 14-bit width and height (top 2 bits are scaling).
    if (b[23] !== 0x9d || b[24] !== 0x01 || b[25] !== 0x2a) throw truncated('WebP');
    return { width: b.readUInt16LE(26) & 0x3fff, height: b.readUInt16LE(28) & 0x3fff };
  }
  if (chunk === 'VP8L') {
    // Lossless: signature 0x2f, then width-1 and height-1 as two 14-bit fields.
    if (b[20] !== 0x2f) throw truncated('WebP');
    const bits = b.readUInt32LE(21);
    return { width: 1 + (bits & 0x3fff), height: 1 + ((bits >>> 14) & 0x3fff) };
  }
  throw truncated('WebP');
}

// SOF0..SOF15 carry the frame size, except DHT (C4), JPG (C8) and DAC (CC), which share the range.
const isSof = (m: number) => m >= 0xc0 && m <= 0xcf && m !== 0xc4 && m !== 0xc8 && m !== 0xcc;

function jpeg(b: Buffer): Dimensions {
  let i = 2;
  while (i + 4 <= b.length) {
    if (b[i] !== 0xff) throw truncated('JPEG');
    while (b[i] === 0xff && i < b.length) i++; // fill bytes
    const marker = b[i]!;
    i++;
    if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) continue; // no length field
    if (marker === 0xd9 || marker === 0xda) break; // end of image / start of scan before any frame header
    if (i + 2 > b.length) break;
    const len = b.readUInt16BE(i);
    if (len < 2) throw truncated('JPEG');
    if (isSof(marker)) {
      if (i + 7 > b.length) break;
      return { height: b.readUInt16BE(i + 3), width: b.readUInt16BE(i + 5) };
    }
    i += len;
  }
  throw truncated('JPEG');
}
