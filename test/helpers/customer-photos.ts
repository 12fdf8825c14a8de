// "Customer photos" made from our own blanks: the blank shrunk and placed somewhere in a larger canvas on its own
// backdrop colour, a darker one or a transparent one, or on a busy background with no backdrop at all. Where the
// blank went is known exactly, so a test can check that a print lands on the same place of the garment. Used by the
// garment-detection tests, bench/garment.ts and scripts/garment-pictures.ts.
import sharp from 'sharp';
import { garmentMask, renderBlank, type Silhouette, type View } from '../../lib/blanks';

/** The rendered blanks' studio backdrop (lib/blanks/render.ts). */
export const STUDIO_BACKDROP: [number, number, number] = [242, 242, 240];

export interface OwnBlank {
  silhouette: Silhouette;
  view: View;
  size: number;
  jpeg: Buffer;
}

export async function ownBlank(silhouette: Silhouette, view: View, colorHex: string, size = 1000): Promise<OwnBlank> {
  const { image } = await renderBlank({ silhouette, view, colorHex, size });
  return { silhouette, view, size, jpeg: image };
}

export type Backdrop = 'studio' | 'transparent' | [number, number, number];

export interface FramedPhoto {
  /** PNG (transparent backdrop) or JPEG bytes */
  image: Buffer;
  width: number;
  height: number;
  /** where the blank's top-left corner went, and its scale: photo px = blank px * scale + offset */
  left: number;
  top: number;
  scale: number;
}

/**
 * The blank shrunk by `scale` and placed at (left, top) of a width x height canvas: on the studio colour (the blank
 * pasted as it is), or cut out along its garment mask onto a darker colour or onto transparency.
 */
export async function framedPhoto(
  blank: OwnBlank,
  opts: { width: number; height: number; scale: number; left: number; top: number; backdrop: Backdrop },
): Promise<FramedPhoto> {
  const side = Math.round(blank.size * opts.scale);
  const shrunk = await sharp(blank.jpeg).resize(side, side).removeAlpha().raw().toBuffer();
  let piece: Buffer;
  if (opts.backdrop === 'studio') {
    piece = await sharp(shrunk, { raw: { width: side, height: side, channels: 3 } })
      .png()
      .toBuffer();
  } else {
    const mask = await garmentMask(blank.silhouette, blank.view, side);
    const rgba = Buffer.alloc(side * side * 4);
    for (let i = 0; i < side * side; i++) {
      rgba[i * 4] = shrunk[i * 3]!;
      rgba[i * 4 + 1] = shrunk[i * 3 + 1]!;
      rgba[i * 4 + 2] = shrunk[i * 3 + 2]!;
      rgba[i * 4 + 3] = mask.data[i]!;
    }
    piece = await sharp(rgba, { raw: { width: side, height: side, channels: 4 } })
      .png()
      .toBuffer();
  }
  const bg =
    opts.backdrop === 'transparent'
      ? { r: 0, g: 0, b: 0, alpha: 0 }
      : opts.backdrop === 'studio'
        ? { r: STUDIO_BACKDROP[0], g: STUDIO_BACKDROP[1], b: STUDIO_BACKDROP[2], alpha: 1 }
        : { r: opts.backdrop[0], g: opts.backdrop[1], b: opts.backdrop[2], alpha: 1 };
  const canvas = sharp({ create: { width: opts.width, height: opts.height, channels: 4, background: bg } }).composite([
    { input: piece, left: opts.left, top: opts.top },
  ]);
  const image =
    opts.backdrop === 'transparent' ? await canvas.png().toBuffer() : await canvas.jpeg({ quality: 92 }).toBuffer();
  return { image, width: opts.width, height: opts.height, left: opts.left, top: opts.top, scale: opts.scale };
}

/** The blank's garment on a busy background of random coloured blocks (seeded): no backdrop to separate. */
export async function busyPhoto(blank: OwnBlank, width: number, height: number, seed = 7): Promise<Buffer> {
  const data = Buffer.alloc(width * height * 3);
  let s = seed >>> 0;
  const rnd = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32) * 256;
  const block = 24;
  for (let by = 0; by < height; by += block)
    for (let bx = 0; bx < width; bx += block) {
      const c = [rnd(), rnd(), rnd()];
      for (let y = by; y < Math.min(height, by + block); y++)
        for (let x = bx; x < Math.min(width, bx + block); x++) {
          const i = (y * width + x) * 3;
          data[i] = c[0]!;
          data[i + 1] = c[1]!;
          data[i + 2] = c[2]!;
        }
    }
  const side = Math.min(width, height);
  const piece = await framedPhoto(blank, {
    width: side,
    height: side,
    scale: side / blank.size,
    left: 0,
    top: 0,
    backdrop: 'transparent',
  });
  return sharp(data, { raw: { width, height, channels: 3 } })
    .composite([{ input: piece.image, left: Math.floor((width - side) / 2), top: 0 }])
    .jpeg({ quality: 90 })
    .toBuffer();
}
