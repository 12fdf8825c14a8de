// Placing a design on a prepared blank: the design sized for the placement (design.ts), one JS pass over the
// design's footprint warps, shades and blends it into a copy of the blank's pixels, then JPEG encoding (mockup and
// thumbnail in parallel).
// The per-pixel pass itself is paste() in paste.ts.
import sharp from 'sharp';
import { BadInputError } from '../errors';
import { compositeGate, outputPool } from './config';
import { placeDesign, type DesignSource } from './design';
import { placedBox, placementFrame, type Placement } from './placement';
import { reduceInto, type PreparedBlank } from './prepared';
import { knitTexture } from './texture';
import { paste, type Geometry } from './paste';

/** A print zone: a rectangle in FRACTIONS (0..1) of the blank image's width and height; x, y = top-left corner. */
export interface ZoneRect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface CompositeResult {
  /** JPEG at the blank's resolution */
  mockup: Buffer;
  /** JPEG ~400 px on the long side */
  thumbnail: Buffer;
  width: number;
  height: number;
  /** where the unrotated design landed, in blank pixels (before clipping to the zone) */
  designBox: { left: number; top: number; width: number; height: number };
}

export interface CompositeOptions {
  blank: PreparedBlank;
  /** PNG/JPEG/WebP/GIF (anything libvips reads) bytes, or where to read them (with a stable id, so a prepared
   * design is found without reading them) */
  design: Buffer | DesignSource;
  zone: ZoneRect;
  placement: Placement;
  applyTexture: boolean;
  /** 'photo' (default): warped along the folds, shaded, sheen kept, optional knit texture; 'flat': plain paste. */
  realism?: 'photo' | 'flat';
  /** Reuse the prepared design (same content; default true; the benchmark turns it off). Same pixels either way. */
  cacheDesign?: boolean;
  /** Waits in the compositing gate's background lane (a bulk render's item: lib/gate.ts). */
  background?: boolean;
}

export const JPEG_QUALITY = 88;
export const THUMB_QUALITY = 82;
/**
 * Huffman optimization doubles libjpeg's encode time at 2000x2000 (~10 -> ~20 ms) for ~18 % smaller files;
 * we trade the bytes for latency.
 */
export const JPEG_OPTIMIZE_CODING = false;

export async function composite(opts: CompositeOptions): Promise<CompositeResult> {
  const { blank, zone, placement } = opts;
  const realism = opts.realism ?? 'photo';
  checkPlacement(placement);
  checkZone(zone);
  if (realism !== 'photo' && realism !== 'flat') throw new RangeError(`unknown realism ${String(realism)}`);
  const W = blank.width;
  const H = blank.height;
  const zx = zone.x * W;
  const zy = zone.y * H;
  const zw = zone.width * W;
  const zh = zone.height * H;
  // the placement maths, one source with the print file's (lib/print)
  const frame = placementFrame({ x: zx, y: zy, width: zw, height: zh }, placement);
  const { cx, cy } = frame;

  return compositeGate.run(
    async () => {
      const design = await placeDesign(opts.design, frame.boxW, frame.boxH, opts.cacheDesign ?? true);
      const out = outputPool.take(W * H * 3);
      try {
        blank.rgb.copy(out);
        // the print area: the zone in whole pixels, inside the image
        const clip = {
          x0: Math.max(0, Math.round(zx)),
          y0: Math.max(0, Math.round(zy)),
          x1: Math.min(W, Math.round(zx + zw)),
          y1: Math.min(H, Math.round(zy + zh)),
        };
        const geom: Geometry = {
          cx,
          cy,
          theta: frame.theta,
          design: design.data,
          dw: design.width,
          dh: design.height,
        };
        const rect =
          realism === 'flat'
            ? paste(out, blank, geom, clip, null, false)
            : paste(out, blank, geom, clip, knitTexture(), opts.applyTexture);

        const t = blank.thumb;
        const thumb = Buffer.from(t.data);
        if (rect) {
          const f = t.factor;
          reduceInto(
            out,
            W,
            thumb,
            t.width,
            f,
            Math.floor(rect.x0 / f),
            Math.floor(rect.y0 / f),
            Math.min(t.width, Math.ceil(rect.x1 / f)),
            Math.min(t.height, Math.ceil(rect.y1 / f)),
          );
        }
        const [mockup, thumbnail] = await Promise.all([
          encodeJpeg(out, W, H, JPEG_QUALITY),
          encodeJpeg(thumb, t.width, t.height, THUMB_QUALITY),
        ]);
        return {
          mockup,
          thumbnail,
          width: W,
          height: H,
          designBox: placedBox(frame, design),
        };
      } finally {
        outputPool.give(out);
      }
    },
    { background: opts.background === true },
  );
}

/** A mockup's JPEG settings, in one place (the garment paste, the template render, the TEST watermark). */
export function jpegOf(img: sharp.Sharp, quality: number): Promise<Buffer> {
  return img
    .jpeg({ quality, mozjpeg: false, optimizeCoding: JPEG_OPTIMIZE_CODING, chromaSubsampling: '4:2:0' })
    .toBuffer();
}

export function encodeJpeg(raw: Buffer, width: number, height: number, quality: number): Promise<Buffer> {
  return jpegOf(sharp(raw, { raw: { width, height, channels: 3 } }), quality);
}

export function checkPlacement(p: Placement): void {
  const ok = (v: unknown, lo: number, hi: number) => typeof v === 'number' && Number.isFinite(v) && v >= lo && v <= hi;
  if (!p || !ok(p.x, 0, 100) || !ok(p.y, 0, 100) || !ok(p.scale, 0.1, 1) || !ok(p.rotation, -180, 180)) {
    throw new BadInputError(
      `placement out of range: ${JSON.stringify(p)} (x, y 0-100; scale 0.1-1.0; rotation -180..180)`,
    );
  }
}

function checkZone(z: ZoneRect): void {
  const ok = (v: unknown) => typeof v === 'number' && Number.isFinite(v);
  if (
    !z ||
    !ok(z.x) ||
    !ok(z.y) ||
    !ok(z.width) ||
    !ok(z.height) ||
    z.width <= 0 ||
    z.height <= 0 ||
    z.x < 0 ||
    z.y < 0 ||
    z.x + z.width > 1.0001 ||
    z.y + z.height > 1.0001
  ) {
    throw new BadInputError(`zone out of range: ${JSON.stringify(z)} (fractions of the image)`);
  }
}
