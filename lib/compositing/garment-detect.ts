// Finding the garment in a blank photo that is not from the catalogue (a client's own photo): a mask of the garment
// from the image's alpha channel, or else by separating it from a plain backdrop, and a few landmarks of that mask
// (bounding box, shoulder line, neckline) that the catalogue's print zones are fitted to (garment-zone.ts).
// Pure image code: sharp to decode a small copy, JS loops on it; no database or Temporal imports.
import sharp from 'sharp';
import { MAX_INPUT_PIXELS } from '../images/limits';
import { segmentByOutline } from './garment-segment';

/** Long side of the copy the garment is looked for in (pixels): landmarks to ~0.2 % of the image, a few ms. */
export const DETECT_SIDE = 480;

/** A rectangle in FRACTIONS (0..1) of the image; left, top = top-left corner. */
export interface FracBox {
  left: number;
  top: number;
  width: number;
  height: number;
}

/** Where the garment is, every value in fractions of the image's width (x) or height (y). */
export interface GarmentLandmarks {
  /** the mask's bounding box */
  box: FracBox;
  /** the shoulder line: the first row from the top where the garment is SHOULDER_SPAN of its box width wide */
  shoulderY: number;
  /** the neckline: x = the garment's axis (centre of its top part), y = the garment's top edge on that axis */
  neckline: { x: number; y: number };
  /** share of the image the garment covers */
  area: number;
}

/** One region that may be the garment: its landmarks and its outline's shape (for matching the catalogue's). */
export interface GarmentRegion extends GarmentLandmarks {
  /** the region's mask on a SHAPE_SIDE x SHAPE_SIDE grid stretched over its bounding box, row by row, 0/1 */
  shape: Uint8Array;
}

export type GarmentDetection =
  | ({
      found: true;
      /** alpha: a cut-out's transparency; backdrop: a colour unlike the backdrop's; outline: edges and texture */
      source: 'alpha' | 'backdrop' | 'outline';
      backdrop: [number, number, number] | null;
      tolerance: number | null;
      /** the regions large enough to be the garment, largest first (the top-level landmarks are the first's) */
      regions: GarmentRegion[];
    } & GarmentLandmarks)
  | { found: false; reason: string };

/** Side of the grid a region's shape is compared on. */
export const SHAPE_SIDE = 24;
/** Regions kept per photo (largest first). */
export const MAX_REGIONS = 4;

/** Row width, relative to the box width, that marks the shoulder line. */
export const SHOULDER_SPAN = 0.6;
/** Rows of the top of the garment (fraction of its box height) whose centre is the garment's axis. */
const AXIS_BAND = 0.15;
/** A backdrop is "clear" when three quarters of the border lie within this distance of its median colour. */
export const BACKDROP_MAX_SPREAD = 30;
/** Colour tolerance (max channel difference) = spread (75th percentile of the border) x 3 + 10, within these. */
export const TOLERANCE_MIN = 14;
export const TOLERANCE_MAX = 60;
/** The garment must cover at least this share of the image, and leave at least the rest to the backdrop. */
export const MIN_GARMENT_AREA = 0.02;
export const MAX_GARMENT_AREA = 0.95;

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
    source: 'alpha' | 'backdrop' | 'outline',
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
  // the colour path: what differs from the backdrop's median colour, for a backdrop too uneven for the smooth model
  const colour = colourMask(px, border);
  if (colour.ok) {
    const regions = garmentRegions(colour.mask, w, h);
    if (regions.length) return found('backdrop', colour.bg, colour.tolerance, regions);
    return none('nothing of a garment\u2019s size stands out from the backdrop');
  }
  return none(outline.ok ? 'nothing of a garment\u2019s size stands out from the backdrop' : outline.reason);
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

function median(v: number[]): number {
  const s = [...v].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/**
 * The largest 4-connected region of `mask` with its holes filled (whatever the backdrop around it cannot reach),
 * or why there is no garment. Runs on (and returns) a mask of 0/1 bytes.
 */
export function garmentRegion(
  mask: Uint8Array,
  w: number,
  h: number,
): { ok: true; mask: Uint8Array } | { ok: false; reason: string } {
  const n = w * h;
  const label = new Int32Array(n);
  const stack = new Int32Array(n);
  let best = 0;
  let bestSize = 0;
  let next = 0;
  for (let s = 0; s < n; s++) {
    if (!mask[s] || label[s]) continue;
    next++;
    let size = 0;
    let sp = 0;
    stack[sp++] = s;
    label[s] = next;
    while (sp > 0) {
      const i = stack[--sp]!;
      size++;
      const x = i % w;
      if (x > 0 && mask[i - 1] && !label[i - 1]) {
        label[i - 1] = next;
        stack[sp++] = i - 1;
      }
      if (x < w - 1 && mask[i + 1] && !label[i + 1]) {
        label[i + 1] = next;
        stack[sp++] = i + 1;
      }
      if (i >= w && mask[i - w] && !label[i - w]) {
        label[i - w] = next;
        stack[sp++] = i - w;
      }
      if (i < n - w && mask[i + w] && !label[i + w]) {
        label[i + w] = next;
        stack[sp++] = i + w;
      }
    }
    if (size > bestSize) {
      bestSize = size;
      best = next;
    }
  }
  if (bestSize < MIN_GARMENT_AREA * n)
    return { ok: false, reason: 'nothing of a garment\u2019s size stands out from the backdrop' };
  const { mask: out, area } = filledRegion(label, best, w, h, stack);
  if (area > MAX_GARMENT_AREA * n) return { ok: false, reason: 'the garment cannot be told from the backdrop' };
  return { ok: true, mask: out };
}

/**
 * The regions of `mask` (4-connected) that could be a garment, largest first (at most MAX_REGIONS), each with its
 * holes filled, its landmarks and its shape; regions under MIN_GARMENT_AREA or over MAX_GARMENT_AREA of the image
 * are left out.
 */
export function garmentRegions(mask: Uint8Array, w: number, h: number): (GarmentRegion & { mask: Uint8Array })[] {
  const n = w * h;
  const label = new Int32Array(n);
  const stack = new Int32Array(n);
  const sizes: number[] = [0];
  for (let s = 0; s < n; s++) {
    if (!mask[s] || label[s]) continue;
    const id = sizes.length;
    let size = 0;
    let sp = 0;
    stack[sp++] = s;
    label[s] = id;
    while (sp > 0) {
      const i = stack[--sp]!;
      size++;
      const x = i % w;
      if (x > 0 && mask[i - 1] && !label[i - 1]) {
        label[i - 1] = id;
        stack[sp++] = i - 1;
      }
      if (x < w - 1 && mask[i + 1] && !label[i + 1]) {
        label[i + 1] = id;
        stack[sp++] = i + 1;
      }
      if (i >= w && mask[i - w] && !label[i - w]) {
        label[i - w] = id;
        stack[sp++] = i - w;
      }
      if (i < n - w && mask[i + w] && !label[i + w]) {
        label[i + w] = id;
        stack[sp++] = i + w;
      }
    }
    sizes.push(size);
  }
  const ids = sizes
    .map((size, id) => ({ id, size }))
    .filter((r) => r.id > 0 && r.size >= MIN_GARMENT_AREA * n)
    .sort((a, b) => b.size - a.size)
    .slice(0, MAX_REGIONS);
  const out: (GarmentRegion & { mask: Uint8Array })[] = [];
  for (const { id } of ids) {
    const { mask: filled, area } = filledRegion(label, id, w, h, stack);
    if (area > MAX_GARMENT_AREA * n) continue;
    const marks = landmarks(filled, w, h);
    out.push({ ...marks, shape: shapeOf(filled, w, h, marks.box), mask: filled });
  }
  return out;
}

/**
 * Region `id` of `label` with its holes filled: everything the image border reaches without crossing the region is
 * outside, the rest is the region. `stack` is scratch space of at least w * h entries.
 */
function filledRegion(
  label: Int32Array,
  id: number,
  w: number,
  h: number,
  stack: Int32Array,
): { mask: Uint8Array; area: number } {
  const n = w * h;
  const outside = new Uint8Array(n);
  let sp = 0;
  const push = (i: number) => {
    if (label[i] !== id && !outside[i]) {
      outside[i] = 1;
      stack[sp++] = i;
    }
  };
  for (let x = 0; x < w; x++) {
    push(x);
    push(n - w + x);
  }
  for (let y = 0; y < h; y++) {
    push(y * w);
    push(y * w + w - 1);
  }
  while (sp > 0) {
    const i = stack[--sp]!;
    const x = i % w;
    if (x > 0) push(i - 1);
    if (x < w - 1) push(i + 1);
    if (i >= w) push(i - w);
    if (i < n - w) push(i + w);
  }
  const mask = new Uint8Array(n);
  let area = 0;
  for (let i = 0; i < n; i++)
    if (!outside[i]) {
      mask[i] = 1;
      area++;
    }
  return { mask, area };
}

/** A mask's shape: SHAPE_SIDE x SHAPE_SIDE samples (cell centres) over its bounding box (fractions of the image). */
export function shapeOf(mask: Uint8Array, w: number, h: number, box: FracBox): Uint8Array {
  const out = new Uint8Array(SHAPE_SIDE * SHAPE_SIDE);
  for (let gy = 0; gy < SHAPE_SIDE; gy++) {
    const y = Math.min(h - 1, Math.floor((box.top + (box.height * (gy + 0.5)) / SHAPE_SIDE) * h));
    for (let gx = 0; gx < SHAPE_SIDE; gx++) {
      const x = Math.min(w - 1, Math.floor((box.left + (box.width * (gx + 0.5)) / SHAPE_SIDE) * w));
      out[gy * SHAPE_SIDE + gx] = mask[y * w + x] ? 1 : 0;
    }
  }
  return out;
}

/** How alike two shapes are: intersection over union of their grids (0..1). */
export function shapeMatch(a: Uint8Array, b: Uint8Array): number {
  let inter = 0;
  let uni = 0;
  for (let i = 0; i < a.length; i++) {
    if (a[i] && b[i]) inter++;
    if (a[i] || b[i]) uni++;
  }
  return uni ? inter / uni : 0;
}

/** Bounding box, shoulder line and neckline of a garment mask (0/1 or 0/255 bytes), in fractions of the image. */
export function landmarks(mask: Uint8Array, w: number, h: number): GarmentLandmarks {
  let minX = w;
  let maxX = -1;
  let minY = h;
  let maxY = -1;
  let area = 0;
  const rowL = new Int32Array(h).fill(-1);
  const rowR = new Int32Array(h).fill(-1);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      if (!mask[y * w + x]) continue;
      area++;
      if (rowL[y] === -1) rowL[y] = x;
      rowR[y] = x;
    }
    if (rowL[y] !== -1) {
      if (rowL[y]! < minX) minX = rowL[y]!;
      if (rowR[y]! > maxX) maxX = rowR[y]!;
      if (y < minY) minY = y;
      maxY = y;
    }
  }
  if (maxY < 0) throw new RangeError('empty garment mask');
  const boxW = maxX - minX + 1;
  const boxH = maxY - minY + 1;
  // shoulder line: the first row at least SHOULDER_SPAN of the box wide
  let shoulder = minY;
  while (shoulder < maxY && (rowL[shoulder] === -1 || rowR[shoulder]! - rowL[shoulder]! + 1 < SHOULDER_SPAN * boxW))
    shoulder++;
  // the garment's axis: mean x of the mask over its top rows (collar and shoulders, left and right alike)
  let sx = 0;
  let sn = 0;
  const bandEnd = minY + Math.max(1, Math.round(AXIS_BAND * boxH));
  for (let y = minY; y < bandEnd; y++)
    for (let x = minX; x <= maxX; x++)
      if (mask[y * w + x]) {
        sx += x + 0.5;
        sn++;
      }
  const axis = sn ? sx / sn : (minX + maxX + 1) / 2;
  // the top edge on the axis (median of the columns within 1 % of the width around it)
  const tops: number[] = [];
  const r = Math.max(1, Math.round(w * 0.01));
  for (let x = Math.max(0, Math.floor(axis) - r); x <= Math.min(w - 1, Math.floor(axis) + r); x++) {
    let y = minY;
    while (y <= maxY && !mask[y * w + x]) y++;
    if (y <= maxY) tops.push(y);
  }
  const neckTop = tops.length ? median(tops) : minY;
  return {
    box: { left: minX / w, top: minY / h, width: boxW / w, height: boxH / h },
    shoulderY: (shoulder + 0.5) / h,
    neckline: { x: axis / w, y: neckTop / h },
    area: area / (w * h),
  };
}
