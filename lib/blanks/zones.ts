/** Print zone geometry in image fractions, from each garment's inch measurements (garments/<silhouette>.ts). */
import type { ZoneRect } from '../compositing/composite';
import type { Silhouette, View, ZoneId } from './geometry';
import { SPECS, framing } from './silhouettes';

export type { ZoneRect };

export interface Zone {
  view: View;
  rect: ZoneRect;
  maxWidthIn: number;
  maxHeightIn: number;
}

/** Pixels per inch of the garment at BLANK_SIZE (2000 px). Same for both views. */
export function pixelsPerInch(s: Silhouette): number {
  return framing(s).ppi;
}

/**
 * Print zones of a silhouette.
 * - 'front', 'left-chest', 'right-chest' are on the front view; 'back' on the back view.
 * - 'left-chest' is the WEARER's left chest, which appears on the RIGHT-hand side
 *   of a front-view image; 'right-chest' appears on the left-hand side.
 * - rect.width  == maxWidthIn  * ppi / 2000 and rect.height == maxHeightIn * ppi / 2000 exactly.
 */
export function zonesFor(s: Silhouette): Partial<Record<ZoneId, Zone>> {
  const { ppi, originY } = framing(s);
  const out: Partial<Record<ZoneId, Zone>> = {};
  for (const [id, z] of Object.entries(SPECS[s].zones) as [
    ZoneId,
    NonNullable<(typeof SPECS)[Silhouette]['zones'][ZoneId]>,
  ][]) {
    out[id] = {
      view: z.view,
      rect: {
        x: (1000 + (z.cx - z.w / 2) * ppi) / 2000,
        y: (originY + z.top * ppi) / 2000,
        width: (z.w * ppi) / 2000,
        height: (z.h * ppi) / 2000,
      },
      maxWidthIn: z.w,
      maxHeightIn: z.h,
    };
  }
  return out;
}
