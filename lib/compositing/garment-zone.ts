// The print zone on a client's own blank photo: the catalogue garment's zone, fitted from the silhouette the
// catalogue blanks are rendered from onto the garment found in the photo (garment-detect.ts), so that front, back
// and chest prints land where they land on our blanks relative to the garment. A printArea given by the client
// wins; a photo without a garment that can be found keeps the zone's fractions of the image (placementBasis image).
import { garmentMask, SILHOUETTES, type Silhouette, type View } from '../blanks';
import type { ZoneRect } from './composite';
import { landmarks, type GarmentDetection, type GarmentLandmarks } from './garment-detect';

/** What the print zone was placed relative to: the garment found in the photo (or our own blank), or the image. */
export type PlacementBasis = 'image' | 'garment';

/** A client's own print area: percent (0-100) of the photo's width and height, x, y = top-left corner. */
export interface PrintAreaPercent {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Side of the catalogue garment mask the reference landmarks are measured on (pixels). */
const REFERENCE_SIDE = 500;
/** A fitted zone that the photo's edges cut to less than this share of its area is not used (fallback). */
const MIN_VISIBLE_SHARE = 0.5;

const references = new Map<string, Promise<GarmentLandmarks>>();

/**
 * Landmarks of the catalogue garment (silhouette and view) on its own blank, in fractions of the (square) blank,
 * measured by the same code as on photos. Computed once per silhouette and view per process (~0.1-0.2 s).
 */
export function referenceLandmarks(silhouette: Silhouette, view: View): Promise<GarmentLandmarks> {
  const key = `${silhouette}:${view}`;
  let hit = references.get(key);
  if (!hit) {
    hit = garmentMask(silhouette, view, REFERENCE_SIDE).then((m) => {
      const bin = new Uint8Array(m.width * m.height);
      for (let i = 0; i < bin.length; i++) bin[i] = m.data[i]! >= 128 ? 1 : 0;
      return landmarks(bin, m.width, m.height);
    });
    hit.catch(() => references.delete(key));
    references.set(key, hit);
  }
  return hit;
}

/**
 * Fits a zone of the catalogue blank (fractions of the square blank) onto a garment found in a photo of
 * `width` x `height` pixels: one scale (the geometric mean of the width and height ratios of the two garments'
 * bounding boxes), the zone's horizontal offset from the garment's axis, and its vertical offset from the shoulder
 * line and from the neckline (the mean of the two). Returns fractions of the photo, clipped to it, or null when the
 * photo's edges cut away more than half of the fitted zone.
 */
export function fitZone(
  ref: GarmentLandmarks,
  found: GarmentLandmarks,
  zone: ZoneRect,
  width: number,
  height: number,
): ZoneRect | null {
  const s = Math.sqrt(((found.box.width * width) / ref.box.width) * ((found.box.height * height) / ref.box.height));
  const zw = zone.width * s;
  const zh = zone.height * s;
  const cx = found.neckline.x * width + (zone.x + zone.width / 2 - ref.neckline.x) * s;
  const topByShoulder = found.shoulderY * height + (zone.y - ref.shoulderY) * s;
  const topByNeck = found.neckline.y * height + (zone.y - ref.neckline.y) * s;
  const left = cx - zw / 2;
  const top = (topByShoulder + topByNeck) / 2;
  const x0 = Math.max(0, left);
  const y0 = Math.max(0, top);
  const x1 = Math.min(width, left + zw);
  const y1 = Math.min(height, top + zh);
  if (x1 <= x0 || y1 <= y0 || (x1 - x0) * (y1 - y0) < MIN_VISIBLE_SHARE * zw * zh) return null;
  return { x: x0 / width, y: y0 / height, width: (x1 - x0) / width, height: (y1 - y0) / height };
}

/** The print zone a mockup uses, and what it was placed relative to. */
export interface ChosenZone {
  zone: ZoneRect;
  /** the zone in the blank's whole pixels */
  printArea: { left: number; top: number; width: number; height: number };
  basis: PlacementBasis;
  /** why the zone's fractions of the image were used on a client's photo (no garment found, ...) */
  fallback?: string;
}

/**
 * Chooses the print zone: the client's printArea (basis image: it is given in percent of the photo); on a blank
 * the garment was not looked for (our own blanks, rendered from the silhouette) the catalogue zone (basis
 * garment); on a client's photo the zone fitted to the garment found in it (basis garment), or the catalogue zone's
 * fractions of the image when no garment was found or the fit leaves the photo (basis image).
 */
export async function choosePrintZone(opts: {
  blank: { width: number; height: number; garment: GarmentDetection | null };
  /** the catalogue zone, fractions of the catalogue blank */
  zone: ZoneRect;
  /** the catalogue garment's silhouette and the zone's view (unknown or missing: no fit) */
  silhouette?: string | null;
  view?: string | null;
  printArea?: PrintAreaPercent | null;
}): Promise<ChosenZone> {
  const { blank } = opts;
  const chosen = await choose(opts);
  return { ...chosen, printArea: zonePixels(chosen.zone, blank.width, blank.height) };
}

async function choose(opts: Parameters<typeof choosePrintZone>[0]): Promise<Omit<ChosenZone, 'printArea'>> {
  const { blank, zone, printArea } = opts;
  if (printArea) {
    return {
      zone: {
        x: printArea.x / 100,
        y: printArea.y / 100,
        width: Math.min(printArea.width, 100 - printArea.x) / 100,
        height: Math.min(printArea.height, 100 - printArea.y) / 100,
      },
      basis: 'image',
    };
  }
  if (blank.garment === null) return { zone, basis: 'garment' };
  if (!blank.garment.found) return { zone, basis: 'image', fallback: blank.garment.reason };
  const silhouette = SILHOUETTES.find((s) => s === opts.silhouette);
  if (!silhouette) return { zone, basis: 'image', fallback: 'the garment has no silhouette to fit' };
  const ref = await referenceLandmarks(silhouette, opts.view === 'back' ? 'back' : 'front');
  const fitted = fitZone(ref, blank.garment, zone, blank.width, blank.height);
  if (!fitted) return { zone, basis: 'image', fallback: 'the fitted print zone lies outside the photo' };
  return { zone: fitted, basis: 'garment' };
}

/** A rectangle in fractions of an image, in whole pixels of that image. */
export function zonePixels(
  zone: ZoneRect,
  width: number,
  height: number,
): { left: number; top: number; width: number; height: number } {
  const left = Math.round(zone.x * width);
  const top = Math.round(zone.y * height);
  return {
    left,
    top,
    width: Math.round((zone.x + zone.width) * width) - left,
    height: Math.round((zone.y + zone.height) * height) - top,
  };
}
