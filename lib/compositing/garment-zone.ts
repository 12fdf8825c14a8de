// The print zone on a client's own blank photo: the catalogue garment's zone, fitted from the silhouette the
// catalogue blanks are rendered from onto the garment found in the photo (garment-detect.ts), so that front, back
// and chest prints land where they land on our blanks relative to the garment. A printArea given by the client
// wins; a photo without a garment that can be found keeps the zone's fractions of the image (placementBasis image).
import { garmentMask, SILHOUETTES, type Silhouette, type View } from '../blanks';
import type { ZoneRect } from './composite';
import type { GenerationWarning } from '../generation/warnings';
import {
  landmarks,
  shapeMatch,
  shapeOf,
  type GarmentDetection,
  type GarmentLandmarks,
  type GarmentRegion,
} from './garment-detect';

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

/**
 * A region of a photo is taken for the catalogue garment when its shape matches the garment's this well (0..1): real
 * tees laid flat or hung (corpus (b)) match our tee's silhouette at 0.71-0.91, two tees over each other or a person
 * wearing one far less.
 */
export const MIN_SHAPE_MATCH = 0.68;
/** ...and when its proportions are at most this factor wider than the garment's (a region twice as wide is two)... */
export const MAX_ASPECT_RATIO = 1.3;
/** ...or at most this factor narrower (sleeves folded in or hanging: real tees are 0.6-0.95 of our tee's width). */
export const MAX_NARROWER = 1.75;
/** A fitted zone reaching outside the photo by more than this share of its area is reported as clipped. */
const CLIP_TOLERANCE = 0.01;

const references = new Map<string, Promise<GarmentRegion>>();

/**
 * Landmarks and shape of the catalogue garment (silhouette and view) on its own blank, in fractions of the (square)
 * blank, measured by the same code as on photos. Computed once per silhouette and view per process (~0.1-0.2 s).
 */
export function referenceRegion(silhouette: Silhouette, view: View): Promise<GarmentRegion> {
  const key = `${silhouette}:${view}`;
  let hit = references.get(key);
  if (!hit) {
    hit = garmentMask(silhouette, view, REFERENCE_SIDE).then((m) => {
      const bin = new Uint8Array(m.width * m.height);
      for (let i = 0; i < bin.length; i++) bin[i] = m.data[i]! >= 128 ? 1 : 0;
      const marks = landmarks(bin, m.width, m.height);
      return { ...marks, shape: shapeOf(bin, m.width, m.height, marks.box) };
    });
    hit.catch(() => references.delete(key));
    references.set(key, hit);
  }
  return hit;
}

/** The catalogue garment's landmarks (referenceRegion without its shape). */
export async function referenceLandmarks(silhouette: Silhouette, view: View): Promise<GarmentLandmarks> {
  const { shape: _shape, ...marks } = await referenceRegion(silhouette, view);
  return marks;
}

/**
 * The region of a photo (width x height pixels) taken for the catalogue garment: the largest whose proportions
 * (bounding box width / height) are within MAX_ASPECT_RATIO of the reference's and whose shape matches the
 * reference's at least MIN_SHAPE_MATCH. Two garments side by side or overlapping make one region of no garment's
 * proportions or shape: none, rather than a print across the two. `match`: the best shape match seen.
 */
export function chooseRegion(
  ref: GarmentRegion,
  regions: GarmentRegion[],
  width: number,
  height: number,
): { region: GarmentRegion | null; match: number } {
  const refAspect = ref.box.width / ref.box.height;
  let best = 0;
  for (const r of regions) {
    const aspect = (r.box.width * width) / (r.box.height * height);
    const m =
      shapeMatch(ref.shape, r.shape) *
      (aspect / refAspect <= MAX_ASPECT_RATIO && refAspect / aspect <= MAX_NARROWER ? 1 : 0.5);
    if (m >= MIN_SHAPE_MATCH) return { region: r, match: m };
    best = Math.max(best, m);
  }
  return { region: null, match: best };
}

/**
 * Fits a zone of the catalogue blank (fractions of the square blank) onto a garment found in a photo of
 * `width` x `height` pixels: one scale (the geometric mean of the width and height ratios of the two garments'
 * bounding boxes), the zone's horizontal offset from the garment's axis, and its vertical offset from the shoulder
 * line and from the neckline (the mean of the two). Returns fractions of the photo, clipped to it, with the share of
 * the fitted zone inside the photo; null when none of it is.
 */
export function fitZone(
  ref: GarmentLandmarks,
  found: GarmentLandmarks,
  zone: ZoneRect,
  width: number,
  height: number,
): { zone: ZoneRect; visible: number } | null {
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
  if (x1 <= x0 || y1 <= y0) return null;
  const visible = ((x1 - x0) * (y1 - y0)) / (zw * zh);
  return { zone: { x: x0 / width, y: y0 / height, width: (x1 - x0) / width, height: (y1 - y0) / height }, visible };
}

/** The print zone a mockup uses, and what it was placed relative to. */
export interface ChosenZone {
  zone: ZoneRect;
  /** the zone in the blank's whole pixels */
  printArea: { left: number; top: number; width: number; height: number };
  basis: PlacementBasis;
  /** why the zone's fractions of the image were used on a client's photo (no garment found, ...) */
  fallback?: string;
  /** what the client should know: garment_not_found (the zone is in fractions of the photo) or zone_clipped */
  warning?: GenerationWarning;
}

const DRAW_IT = 'draw the print area (printArea, percent of the photo) to say where to print';

function notFound(zone: ZoneRect, why: string): Omit<ChosenZone, 'printArea'> {
  return {
    zone,
    basis: 'image',
    fallback: why,
    warning: {
      code: 'garment_not_found',
      message: `The garment was not found in the photo (${why}), so the print zone was placed in fractions of the image; ${DRAW_IT}.`,
      details: { reason: why },
    },
  };
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
  if (!blank.garment.found) return notFound(zone, blank.garment.reason);
  const silhouette = SILHOUETTES.find((s) => s === opts.silhouette);
  if (!silhouette) return notFound(zone, 'the garment has no silhouette to fit');
  const view = opts.view === 'back' ? 'back' : 'front';
  const ref = await referenceRegion(silhouette, view);
  // older detections (and hand-made ones) have no regions: their one garment is the region
  const regions = blank.garment.regions ?? [{ ...blank.garment, shape: ref.shape }];
  const { region, match } = chooseRegion(ref, regions, blank.width, blank.height);
  if (!region)
    return notFound(
      zone,
      `no region of the photo has the shape of the garment (best match ${match.toFixed(2)}, at least ${MIN_SHAPE_MATCH} needed)`,
    );
  const fitted = fitZone(ref, region, zone, blank.width, blank.height);
  if (fitted && fitted.visible >= 1 - CLIP_TOLERANCE) return { zone: fitted.zone, basis: 'garment' };
  const share = Math.round((1 - (fitted?.visible ?? 0)) * 100);
  const warning: GenerationWarning = {
    code: 'zone_clipped',
    message:
      `The print zone fitted to the garment is cut by the photo's edge (${share} % of it outside)` +
      (fitted && fitted.visible >= MIN_VISIBLE_SHARE
        ? '; the print stays inside the photo'
        : ', so it was placed in fractions of the image') +
      `; ${DRAW_IT}.`,
    details: { outsideShare: share / 100 },
  };
  if (!fitted || fitted.visible < MIN_VISIBLE_SHARE)
    return { zone, basis: 'image', fallback: 'the fitted print zone lies outside the photo', warning };
  return { zone: fitted.zone, basis: 'garment', warning };
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
