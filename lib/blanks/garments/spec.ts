/**
 * What a garment drawing is made of: the measurements of a silhouette (`Spec`, inches, adult size L, see
 * ../path.ts for the axes), the lists a drawing is built into, and the small helpers the builders share.
 */
import type { Dot, Fold, Part, Seam, Stitch, View, ZoneId, ZoneSpec } from '../geometry';
import { type Curve, type Pt, mirrorX, path } from '../path';

export interface SleeveSpec {
  kind: 'short' | 'long';
  /** axis angle below horizontal, degrees */
  angle: number;
  /** length of the under-arm edge from the armpit to the opening, inches */
  under: number;
  /** width of the opening (flat), inches */
  open: number;
  /** outward length of the rounded shoulder cap before the top edge bends down */
  cap: number;
  /** rib cuff length (long sleeves) */
  cuff?: number;
  /** rib arm band (polo) */
  band?: number;
  /** hem stitch distance from the opening */
  hem?: number;
}

export interface Spec {
  chest: number; // half chest width
  hem: number; // half hem width
  length: number; // HPS to bottom edge at the side
  hemCurve: number; // extra drop of the hem at center (perspective of a round hem)
  neckIn: number; // half width of the neck opening
  neckOut: number; // half width of the collar seam
  frontDrop: number; // collar seam depth at front center
  backDrop: number; // collar top edge depth at back center (back view)
  backVisible: number; // back collar top edge seen through the front neck (front view)
  rib: number; // collar rib width
  shoulder: number; // half shoulder width (shoulder point x)
  shoulderDrop: number;
  underarm: number; // y of the armpit
  sleeve?: SleeveSpec;
  waistband?: number;
  hemStitch?: number;
  collar: 'crew' | 'polo' | 'hood' | 'tank';
  fleece: number;
  puff: number; // overall inflation scale
  zones: Partial<Record<ZoneId, ZoneSpec>>;
}

/** What a silhouette's drawing is built into; the order within each list is the drawing order. */
export interface Drawing {
  parts: Part[];
  folds: Fold[];
  seams: Seam[];
  stitches: Stitch[];
  dots: Dot[];
}

/** A garment: its measurements, and what only it has (hood, placket...), drawn after the common panels. */
export interface Garment {
  spec: Spec;
  extras?: (sp: Spec, view: View, d: Drawing) => void;
}

export const deg = (a: number) => (a * Math.PI) / 180;
export const add = (a: Pt, b: Pt, k = 1): Pt => [a[0] + b[0] * k, a[1] + b[1] * k];

/** Both halves of something drawn on the right: the right one and its mirror. */
export const both = (c: Curve): Curve[] => [c, mirrorX(c)];

/**
 * A fold of a fold table: a cubic from (x0, y0) through the controls (x1, y1), (x2, y2) to (x3, y3), in inches from
 * the table's origin, drawn on the right side (x as given) and the left (x mirrored).
 */
export interface FoldRow {
  c: readonly [x0: number, y0: number, x1: number, y1: number, x2: number, y2: number, x3: number, y3: number];
  w: number;
  amp: number;
}

/** The folds of `rows` on both sides (right, then left, row by row within a side), from `origin`. */
export function mirroredFolds(rows: readonly FoldRow[], origin: Pt = [0, 0]): Fold[] {
  const out: Fold[] = [];
  for (const side of [1, -1]) {
    for (const { c, w, amp } of rows) {
      const at = (i: number): Pt => [side * (origin[0] + c[2 * i]!), origin[1] + c[2 * i + 1]!];
      out.push({ c: path(at(0), [at(1), at(2), at(3)]), w, amp });
    }
  }
  return out;
}
