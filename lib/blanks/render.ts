/** Colorise a cached white-garment template and encode JPEGs. */
import sharp from 'sharp';
import { fabricColor, LUT_MAX, LUT_SIZE, outputLut } from './color';
import { SHADE_ONE, type Template } from './template';

/** Studio background color #f2f2f0 (R = G = 242, B = 240); the template stores its luminance (242 = full). */
const BG_RG = 242;
const BG_B = 240;

/** Compose garment color over the studio background: raw interleaved RGB. */
export function colorize(t: Template, colorHex: string): Buffer {
  const { albedo, sheen, gamma } = fabricColor(colorHex);
  const lut = outputLut();
  const q = LUT_SIZE / LUT_MAX;
  const ar = albedo[0] * q;
  const ag = albedo[1] * q;
  const ab = albedo[2] * q;
  // shading response curve: steeper for dark fabrics so folds stay readable
  const curve = new Float32Array(65536);
  for (let v = 0; v < 65536; v++) curve[v] = Math.pow(v / SHADE_ONE, gamma);
  const ks = (sheen * q) / 255;
  const bgB = new Uint8Array(256);
  const bgRG = new Uint8Array(256);
  for (let v = 0; v < 256; v++) {
    bgRG[v] = Math.round((v * BG_RG) / 242);
    bgB[v] = Math.round((v * BG_B) / 242);
  }
  const N = t.size * t.size;
  const out = Buffer.allocUnsafe(N * 3);
  const { shade, spec, alpha, bg } = t;
  const max = LUT_SIZE;
  for (let i = 0, o = 0; i < N; i++, o += 3) {
    const a = alpha[i]!;
    const b = bg[i]!;
    if (a === 0) {
      out[o] = bgRG[b]!;
      out[o + 1] = bgRG[b]!;
      out[o + 2] = bgB[b]!;
      continue;
    }
    const s = curve[shade[i]!]!;
    const sp = spec[i]! * ks;
    let ir = (s * ar + sp) | 0;
    let ig = (s * ag + sp) | 0;
    let ib = (s * ab + sp) | 0;
    if (ir > max) ir = max;
    if (ig > max) ig = max;
    if (ib > max) ib = max;
    const r = lut[ir]!;
    const g = lut[ig]!;
    const bl = lut[ib]!;
    if (a === 255) {
      out[o] = r;
      out[o + 1] = g;
      out[o + 2] = bl;
    } else {
      const k = a / 255;
      out[o] = Math.round(bgRG[b]! + (r - bgRG[b]!) * k);
      out[o + 1] = Math.round(bgRG[b]! + (g - bgRG[b]!) * k);
      out[o + 2] = Math.round(bgB[b]! + (bl - bgB[b]!) * k);
    }
  }
  return out;
}

export const JPEG_QUALITY = 90;
export const THUMB_SIZE = 400;

export async function encode(raw: Buffer, size: number): Promise<{ image: Buffer; thumbnail: Buffer }> {
  const input = { raw: { width: size, height: size, channels: 3 as const } };
  const [image, thumbnail] = await Promise.all([
    sharp(raw, input).jpeg({ quality: JPEG_QUALITY, mozjpeg: false }).toBuffer(),
    sharp(raw, input)
      .resize(THUMB_SIZE, THUMB_SIZE, { kernel: 'lanczos3' })
      .jpeg({ quality: 85, mozjpeg: false })
      .toBuffer(),
  ]);
  return { image, thumbnail };
}
