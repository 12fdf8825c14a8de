// Plain data of the templates engine: importable by workflows and the app (no code, no Node APIs).

export type Point = [number, number];
/** TL, TR, BR, BL in template pixels */
export type Quad = [Point, Point, Point, Point];

export interface SmartObjectInfo {
  id: string;
  name: string;
  /** the smart object's content size (pixels of its embedded document) */
  width: number;
  height: number;
  /** where the content's corners land in the template (after the transform; warps bend the inside) */
  quad: Quad;
  /** 'none' | 'custom' | 'arc' | 'arcLower' | 'arcUpper' | 'arch' | 'bulge' | 'shellLower' | 'shellUpper' | 'flag' |
   * 'wave' | 'fish' | 'rise' | 'fisheye' | 'inflate' | 'squeeze' | 'twist' | 'cylinder' */
  warp: string;
  blendMode: string;
  /** the content's physical size, from the resolution Photoshop keeps with it (its pixels / ppi); absent or null when
   * the file gives none (then a render on it has no print file) */
  printSize?: PrintSize | null;
}

/** A smart object's physical size: inches, and the resolution they were read from (pixels per inch). */
export interface PrintSize {
  widthIn: number;
  heightIn: number;
  ppi: number;
}

export interface UnsupportedFeature {
  layer: string;
  feature: string;
}

/** RGBA 8-bit, non-premultiplied, row-major. */
export interface RawImage {
  width: number;
  height: number;
  data: Buffer;
}

/** Spec semantics: x, y = the design's center in % of the smart object (0-100), scale 1 = the largest size that fits
 * inside the smart object keeping the design's aspect ratio, rotation in degrees clockwise. */
export interface TemplatePlacement {
  x: number;
  y: number;
  scale: number;
  rotation: number;
}

export interface TemplateFill {
  smartObjectId: string;
  design: RawImage;
  placement?: TemplatePlacement;
  /** the size the placement is computed for when `design` is that image resized to another
   * aspect ratio (to designTarget's size, so the engine does not reduce it itself); default: the design's own size */
  placedAs?: { width: number; height: number };
  /** names the design's pixels (same key, same pixels) for a render's levels cache (fast.ts); none: not cached */
  designKey?: string;
}

export interface RenderOptions {
  /** 'auto' (default): a Displace smart filter's map when the template has one, else one derived from the layers
   * under the smart object; 'off': the design is mapped through transform and warp only. */
  displace?: 'auto' | 'off';
}
