// Where a design lands in a print zone: the one definition of the spec's placement maths, used by the mockup
// (composite.ts, in blank pixels) and by the print file (lib/print, in print pixels at 300 DPI). The zone is any
// rectangle in some pixel space; the design is fitted inside a box of `scale` times the zone (aspect ratio kept),
// centred at x %, y % of the zone, rotated clockwise by `rotation` degrees about that centre.
import { fitInside, type Size } from '../images/design-levels';

/** Spec: x, y = design center in % of the print zone (0-100); scale 0.1-1.0 (1.0 = the largest size that fits the
 * zone keeping the design's aspect ratio); rotation in degrees -180..180, clockwise. */
export interface Placement {
  x: number;
  y: number;
  scale: number;
  rotation: number;
}

/** A rectangle in pixels: left, top, width, height (fractions of a pixel allowed). */
export interface PixelRect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface PlacementFrame {
  /** the design's centre, pixels */
  cx: number;
  cy: number;
  /** the box the design is fitted inside (scale x the zone), whole pixels */
  boxW: number;
  boxH: number;
  /** clockwise, radians */
  theta: number;
}

/** The frame of a placement in a zone: its centre and its box. */
export function placementFrame(zone: PixelRect, p: Placement): PlacementFrame {
  return {
    cx: zone.x + (p.x / 100) * zone.width,
    cy: zone.y + (p.y / 100) * zone.height,
    boxW: Math.max(1, Math.round(p.scale * zone.width)),
    boxH: Math.max(1, Math.round(p.scale * zone.height)),
    theta: (p.rotation * Math.PI) / 180,
  };
}

/** The placed (unrotated) design's size for a design of `design` pixels: fitted inside the frame's box. */
export function placedSize(frame: PlacementFrame, design: Size): Size {
  return fitInside(design, frame.boxW, frame.boxH);
}

/** Top-left of the unrotated placed design, whole pixels (what the mockup reports as its designBox). */
export function placedBox(
  frame: PlacementFrame,
  size: Size,
): { left: number; top: number; width: number; height: number } {
  return {
    left: Math.round(frame.cx - size.width / 2),
    top: Math.round(frame.cy - size.height / 2),
    width: size.width,
    height: size.height,
  };
}
