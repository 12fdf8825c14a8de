// Decoding a smart object's embedded file synchronously: PNG (pngjs), JPEG (ag-psd's decoder), PSD/PSB (its own
// composite, read with ag-psd). Anything else (PDF, AI, SVG, TIFF...) is not decoded: the caller falls back to the
// pixels Photoshop stored for the layer.
import { readPsd } from 'ag-psd';
import { decodeJpeg } from 'ag-psd/dist/jpeg';
import { PNG } from 'pngjs';
import type { RawImage } from './types';

/** Sides above this are not decoded (a hostile file's embedded image); limits.ts checks sizes before. */
export const MAX_EMBEDDED_SIDE = 30000;

export function kindOf(data: Uint8Array): 'png' | 'jpeg' | 'psd' | 'other' {
  if (data[0] === 0x89 && data[1] === 0x50 && data[2] === 0x4e && data[3] === 0x47) return 'png';
  if (data[0] === 0xff && data[1] === 0xd8) return 'jpeg';
  if (data[0] === 0x38 && data[1] === 0x42 && data[2] === 0x50 && data[3] === 0x53) return 'psd';
  return 'other';
}

/** 8-bit RGBA from whatever ag-psd decoded (8, 16 or 32 bits per channel). */
export function to8bit(data: ArrayLike<number>, width: number, height: number): Buffer {
  const n = width * height * 4;
  // 8-bit pixels as ag-psd read them: a view, not a copy (a 200 MB file's layers would otherwise be held twice)
  if ((data instanceof Uint8ClampedArray || data instanceof Uint8Array) && data.length === n)
    return Buffer.from(data.buffer, data.byteOffset, n);
  const out = Buffer.alloc(n);
  if (data instanceof Uint16Array) for (let i = 0; i < out.length; i++) out[i] = data[i]! >> 8;
  else if (data instanceof Float32Array)
    for (let i = 0; i < out.length; i++) out[i] = Math.round(Math.min(1, Math.max(0, data[i]!)) * 255);
  else for (let i = 0; i < out.length; i++) out[i] = data[i]!;
  return out;
}

/** Renders an embedded PSD/PSB from its layers (its stored composite is empty when it was saved without
 * "maximize compatibility"); null to use the stored composite. */
export type NestedRenderer = (data: Uint8Array) => RawImage | null;

export function decodeEmbedded(data: Uint8Array, nested?: NestedRenderer): RawImage | null {
  try {
    switch (kindOf(data)) {
      case 'png': {
        const png = PNG.sync.read(Buffer.from(data.buffer, data.byteOffset, data.byteLength));
        return { width: png.width, height: png.height, data: png.data };
      }
      case 'jpeg': {
        const img = decodeJpeg(
          data,
          (w, h) => ({ width: w, height: h, data: new Uint8ClampedArray(w * h * 4) }) as never,
        );
        return { width: img.width, height: img.height, data: to8bit(img.data, img.width, img.height) };
      }
      case 'psd': {
        const own = nested?.(data);
        if (own) return own;
        const psd = readPsd(data, {
          skipLayerImageData: true,
          skipThumbnail: true,
          skipLinkedFilesData: true,
          useImageData: true,
        });
        if (!psd.imageData || psd.width > MAX_EMBEDDED_SIDE || psd.height > MAX_EMBEDDED_SIDE) return null;
        return { width: psd.width, height: psd.height, data: to8bit(psd.imageData.data, psd.width, psd.height) };
      }
      default:
        return null;
    }
  } catch {
    return null;
  }
}
