// The regions of a garment mask: connected-component labelling (one pass, 4-connected), each region with its holes
// filled, its landmarks (bounding box, shoulder line, neckline) and its shape on a small grid for matching the
// catalogue's silhouette (garment-zone.ts). Pure code on 0/1 masks: no sharp, no I/O.

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

/** Side of the grid a region's shape is compared on. */
export const SHAPE_SIDE = 24;
/** Regions kept per photo (largest first). */
export const MAX_REGIONS = 4;

/** Row width, relative to the box width, that marks the shoulder line. */
export const SHOULDER_SPAN = 0.6;
/** Rows of the top of the garment (fraction of its box height) whose centre is the garment's axis. */
const AXIS_BAND = 0.15;
/** The garment must cover at least this share of the image, and leave at least the rest to the backdrop. */
export const MIN_GARMENT_AREA = 0.02;
export const MAX_GARMENT_AREA = 0.95;

/** 4-connected components of `mask` (0/1 bytes): a label per pixel (0 = off, 1.. = region) and each label's size. */
export function labelComponents(
  mask: Uint8Array,
  w: number,
  h: number,
  stack: Int32Array = new Int32Array(w * h),
): { label: Int32Array; sizes: number[] } {
  const n = w * h;
  const label = new Int32Array(n);
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
  return { label, sizes };
}

/**
 * The regions of `mask` (4-connected) that could be a garment, largest first (at most MAX_REGIONS), each with its
 * holes filled, its landmarks and its shape; regions under MIN_GARMENT_AREA or over MAX_GARMENT_AREA of the image
 * are left out.
 */
export function garmentRegions(mask: Uint8Array, w: number, h: number): (GarmentRegion & { mask: Uint8Array })[] {
  const n = w * h;
  const stack = new Int32Array(n);
  const { label, sizes } = labelComponents(mask, w, h, stack);
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

export function median(v: number[]): number {
  const s = [...v].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}
