/** Data types describing a garment drawing (all lengths in inches, see path.ts for axes). */
import type { Curve } from './path';

export type Silhouette = 'tee' | 'longsleeve' | 'tank' | 'hoodie' | 'crewneck' | 'polo';
export type View = 'front' | 'back';
export type ZoneId = 'front' | 'back' | 'left-chest' | 'right-chest';

/** Rib texture: lines running from edge `a` to edge `b` every `pitch` inches. */
export interface Ribs {
  a: Curve;
  b: Curve;
  pitch: number;
}

/**
 * A garment panel. Parts are drawn in order (later = nearer the camera).
 * 'paint' parts replace the height field under them with their own inflated
 * shape; 'add' parts sit on top of whatever is below (ribbing, pockets...).
 */
export interface Part {
  name: string;
  shapes: Curve[];
  mode: 'paint' | 'add';
  /** Inflation amplitude in inches (how "puffy" the panel looks). */
  height: number;
  /** Inflation blur [x, y] in inches: large x + small y = vertical cylinder. */
  sigma: readonly [number, number];
  /** Constant extra height (paint mode). */
  base?: number;
  /** Brightness multiplier (e.g. 0.45 for the inside of the garment seen through the neck). */
  tone?: number;
  ribs?: Ribs[];
}

/** A soft fold. amp > 0: ridge, amp < 0: valley (inches of height). */
export interface Fold {
  c: Curve;
  w: number;
  amp: number;
  /** Crisp folds use a small blur; default soft. */
  crisp?: boolean;
  skew?: number;
}

/** A seam groove (thin valley) with optional stitching alongside. */
export interface Seam {
  c: Curve;
  depth: number;
  w: number;
}

export interface Stitch {
  c: Curve;
  /** inches; dash length (gap = 0.6 × dash) */
  dash?: number;
  /** 0 = single needle; else second row offset by this many inches */
  twin?: number;
  /** strength multiplier (default 1) */
  k?: number;
}

/** A small round feature (button, eyelet) drawn into the detail layer. */
export interface Dot {
  x: number;
  y: number;
  r: number;
  kind: 'button' | 'eyelet' | 'aglet';
}

export interface ZoneSpec {
  view: View;
  /** inches: center x, top y, width, height */
  cx: number;
  top: number;
  w: number;
  h: number;
}

export interface Geometry {
  silhouette: Silhouette;
  view: View;
  /** pixels per inch at BLANK_SIZE */
  ppi: number;
  /** pixel y (at BLANK_SIZE) of the HPS line y = 0 */
  originY: number;
  parts: Part[];
  folds: Fold[];
  seams: Seam[];
  stitches: Stitch[];
  dots: Dot[];
  /** zone rectangles of THIS view, in inches (used to calm folds inside print areas) */
  calm: ZoneSpec[];
  /** fabric weight: 0 = jersey, 1 = heavy fleece (affects grain and blur) */
  fleece: number;
}
