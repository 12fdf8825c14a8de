// Finding the garment in a blank photo that is not from the catalogue (a client's own photo): a mask of the garment
// from the image's alpha channel, or else by separating it from a plain backdrop, and a few landmarks of that mask
// (bounding box, shoulder line, neckline) that the catalogue's print zones are fitted to (garment-zone.ts).
// Pure image code: sharp to decode a small copy, JS loops on it; no database or Temporal imports.
import sharp from 'sharp';
import { MAX_INPUT_PIXELS } from '../images/limits';
import { segmentByOutline } from './garment-segment';
import { seededGarmentMask } from './garment-seeded';
import { garmentRegions, median, type GarmentLandmarks, type GarmentRegion } from './garment-regions';

export {
  garmentRegions,
  labelComponents,
  landmarks,
  shapeMatch,
  shapeOf,
  MAX_GARMENT_AREA,
  MAX_REGIONS,
  MIN_GARMENT_AREA,
  SHAPE_SIDE,
  SHOULDER_SPAN,
  type FracBox,
  type GarmentLandmarks,
  type GarmentRegion,
} from './garment-regions';

/** Long side of the copy the garment is looked for in (pixels): landmarks to ~0.2 % of the image, a few ms. */
export const DETECT_SIDE = 480;

export type GarmentDetection =
  | ({
      found: true;
      /** alpha: a cut-out's transparency; backdrop: a colour unlike the backdrop's; outline: edges and texture */
      source: 'alpha' | 'backdrop' | 'outline' | 'seeded';
      backdrop: [number, number, number] | null;
      tolerance: number | null;
      /** the regions large enough to be the garment, largest first (the top-level landmarks are the first's) */
      regions: GarmentRegion[];
    } & GarmentLandmarks)
  | { found: false; reason: string };

/** A backdrop is "clear" when three quarters of the border lie within this distance of its median colour. */
export const BACKDROP_MAX_SPREAD = 30;
/** Colour tolerance (max channel difference) = spread (75th percentile of the border) x 3 + 10, within these. */
export const TOLERANCE_MIN = 14;
export const TOLERANCE_MAX = 60;

/** Decodes a small copy of the image (EXIF-oriented, alpha kept) and looks for the garment in it. */
export async function detectGarmentInImage(image: Buffer): Promise<GarmentDetection> {
  const { data, info } = await sharp(image, { failOn: 'error', limitInputPixels: MAX_INPUT_PIXELS })
    .autoOrient()
    .resize({ width: DETECT_SIDE, height: DETECT_SIDE, fit: 'inside', withoutEnlargement: true })
    .toColorspace('srgb')
    .ensureAlpha()
    .raw({ depth: 'uchar' })
    .toBuffer({ resolveWithObject: true });
  return detectGarment({ data, width: info.width, height: info.height, channels: 4 });
}

/**
 * Finds the garment in raw pixels (3 or 4 channels). With an alpha channel that makes most of the border
 * transparent, the opaque pixels are the garment. Otherwise the backdrop colour is the median of the image's border,
 * the tolerance comes from how much the border varies around it, and the garment is the largest 4-connected region
 * of pixels farther than the tolerance from the backdrop, with its holes filled. Not found: the border is not one
 * colour (no clear backdrop, e.g. a person on a street), or no region of a plausible size stands out.
 */
export function detectGarment(px: {
  data: Uint8Array;
  width: number;
  height: number;
  channels: 3 | 4;
}): GarmentDetection {
  return locateGarment(px).detection;
}

/** As detectGarment, with the regions' masks (0/1, the image's size; same order as `regions`). */
export function locateGarment(px: { data: Uint8Array; width: number; height: number; channels: 3 | 4 }): {
  detection: GarmentDetection;
  masks: Uint8Array[];
} {
  const none = (reason: string) => ({ detection: { found: false as const, reason }, masks: [] });
  const found = (
    source: 'alpha' | 'backdrop' | 'outline' | 'seeded',
    backdrop: [number, number, number] | null,
    tolerance: number | null,
    withMasks: (GarmentRegion & { mask: Uint8Array })[],
  ) => {
    const regions = withMasks.map(({ mask: _mask, ...r }) => r);
    const { shape: _shape, ...first } = regions[0]!;
    return {
      detection: { found: true as const, source, backdrop, tolerance, ...first, regions },
      masks: withMasks.map((r) => r.mask),
    };
  };
  const { data, width: w, height: h, channels: ch } = px;
  if (w < 8 || h < 8) return none('the image is too small');
  const border = borderIndices(w, h);
  const mask = new Uint8Array(w * h);

  if (ch === 4) {
    let clear = 0;
    for (const i of border) if (data[i * 4 + 3]! < 128) clear++;
    if (clear >= 0.6 * border.length) {
      for (let i = 0; i < w * h; i++) mask[i] = data[i * 4 + 3]! >= 128 ? 1 : 0;
      const regions = garmentRegions(mask, w, h);
      if (!regions.length) return none('nothing of a garment\u2019s size is opaque');
      return found('alpha', null, null, regions);
    }
  }

  // the outline path: edges, texture and the backdrop's falloff (garment-segment.ts): any garment on a smooth
  // backdrop, of its colour or not, without its drop shadow
  const outline = segmentByOutline(px);
  if (outline.ok) {
    const regions = garmentRegions(outline.seg.mask, w, h);
    if (regions.length) return found('outline', outline.seg.backdrop, null, regions);
  }
  // the colour path: what differs from the backdrop's median colour, for a backdrop too uneven for the smooth model;
  // and the seeded path (garment-seeded.ts): the plain region holding the photo's centre, for a textured backdrop
  // (a bed, a floor) that the outline path declined. Both give candidates; the caller takes the one of the garment's
  // shape.
  const colour = colourMask(px, border);
  const colourRegions = colour.ok ? garmentRegions(colour.mask, w, h) : [];
  const seeded = outline.ok ? { ok: false as const } : seededGarmentMask(px);
  const seededRegions = seeded.ok ? garmentRegions(seeded.mask, w, h).slice(0, 1) : [];
  if (colourRegions.length || seededRegions.length) {
    const regions = [...colourRegions, ...seededRegions].sort((a, b) => b.area - a.area);
    return colourRegions.length
      ? found('backdrop', colour.ok ? colour.bg : null, colour.ok ? colour.tolerance : null, regions)
      : found('seeded', null, null, regions);
  }
  // nothing found: the reason names why the outline path, the one for a garment of the backdrop's colour, did not
  // run (a textured or uneven backdrop), when it did not, and why the seeded path declined
  const nothing = 'nothing of a garment\u2019s size stands out from the backdrop';
  if (outline.ok) return none(nothing);
  const seededWhy = 'reason' in seeded ? `; from the photo\u2019s centre: ${seeded.reason}` : '';
  return none(
    colour.ok
      ? `${nothing} by its colour; by its outline: ${outline.reason}${seededWhy}`
      : `${outline.reason}${seededWhy}`,
  );
}

/**
 * The colour path's candidates: the backdrop colour is the median of the border, the tolerance comes from how much
 * the border varies around it, and the pixels farther than the tolerance from it are candidates.
 */
function colourMask(
  px: { data: Uint8Array; width: number; height: number; channels: 3 | 4 },
  border: number[],
): { ok: true; mask: Uint8Array; bg: [number, number, number]; tolerance: number } | { ok: false; reason: string } {
  const { data, width: w, height: h, channels: ch } = px;
  const reds: number[] = [];
  const greens: number[] = [];
  const blues: number[] = [];
  for (const i of border) {
    reds.push(data[i * ch]!);
    greens.push(data[i * ch + 1]!);
    blues.push(data[i * ch + 2]!);
  }
  const bg: [number, number, number] = [median(reds), median(greens), median(blues)];
  const dist = (i: number) =>
    Math.max(Math.abs(data[i * ch]! - bg[0]), Math.abs(data[i * ch + 1]! - bg[1]), Math.abs(data[i * ch + 2]! - bg[2]));
  const spreads = border.map(dist).sort((a, b) => a - b);
  const p75 = spreads[Math.floor(spreads.length * 0.75)]!;
  if (p75 > BACKDROP_MAX_SPREAD)
    return { ok: false, reason: `no clear backdrop: the border varies by ${p75} levels around its median colour` };
  const tolerance = Math.min(TOLERANCE_MAX, Math.max(TOLERANCE_MIN, 3 * p75 + 10));
  const mask = new Uint8Array(w * h);
  for (let i = 0; i < w * h; i++) mask[i] = dist(i) > tolerance ? 1 : 0;
  return { ok: true, mask, bg, tolerance };
}

/** Indices of the pixels in a ring about 1 % of the short side wide (at least 2 px) along the image's edges. */
function borderIndices(w: number, h: number): number[] {
  const b = Math.max(2, Math.round(Math.min(w, h) * 0.01));
  const out: number[] = [];
  for (let y = 0; y < h; y++) {
    const edgeRow = y < b || y >= h - b;
    for (let x = 0; x < w; x++) if (edgeRow || x < b || x >= w - b) out.push(y * w + x);
  }
  return out;
}
