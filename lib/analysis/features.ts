// Print-relevant facts about a design beyond its colors: resolution at print size, an opaque background box,
// detail too fine to stitch, and colors that vanish on common garment colors.
import { ciede2000, deltaE76, hexToLab, rgbToLab, type Lab } from './color';
import type { InkColor, RgbaInput } from './palette';

// --- resolution ------------------------------------------------------------------------------------------------

/** A standard full-front print area in inches; 2400x3000 px (the spec's recommendation) fills it at 200 dpi. */
export const FULL_FRONT_IN = { width: 12, height: 15 } as const;
/** Below this, a full-size print looks soft or pixelated. */
export const MIN_DPI = 200;

export interface PrintSize {
  /** Size of the design fitted into the full-front area, in inches. */
  widthIn: number;
  heightIn: number;
  /** Pixels per inch at that size. */
  dpi: number;
  /** Largest size (inches) that still gets MIN_DPI. */
  maxWidthIn: number;
  maxHeightIn: number;
}

export function printSize(width: number, height: number): PrintSize {
  const scale = Math.min(FULL_FRONT_IN.width / width, FULL_FRONT_IN.height / height); // inches per pixel
  return {
    widthIn: width * scale,
    heightIn: height * scale,
    dpi: 1 / scale,
    maxWidthIn: width / MIN_DPI,
    maxHeightIn: height / MIN_DPI,
  };
}

// --- opaque background box -------------------------------------------------------------------------------------

export interface BackgroundBox {
  color: InkColor;
  /** Share of the border pixels that are this color. */
  borderShare: number;
}

/**
 * A design whose border is (almost) entirely one solid flat color that covers a large part of the image has a
 * background box: printed as is, that rectangle is printed too. Photos and full-bleed art have varied borders, and
 * designs on transparency have clear borders, so neither is flagged. A few stray transparent pixels do not hide a box.
 */
export function detectBackgroundBox(img: RgbaInput, colors: InkColor[]): BackgroundBox | null {
  if (colors.length < 2) return null;
  const { data, width: w, height: h } = img;
  const labs = colors.map((c) => c.lab);
  const hits = new Float64Array(colors.length);
  let border = 0;
  const visit = (x: number, y: number) => {
    const i = (y * w + x) * 4;
    border++;
    if (data[i + 3]! < 250) return;
    const lab = rgbToLab(data[i]!, data[i + 1]!, data[i + 2]!);
    let best = -1;
    let bestD = 8; // the same flat color, allowing JPEG noise
    for (let k = 0; k < labs.length; k++) {
      const d = deltaE76(labs[k]!, lab);
      if (d < bestD) {
        bestD = d;
        best = k;
      }
    }
    if (best >= 0) hits[best]!++;
  };
  for (let x = 0; x < w; x++) {
    visit(x, 0);
    if (h > 1) visit(x, h - 1);
  }
  for (let y = 1; y < h - 1; y++) {
    visit(0, y);
    if (w > 1) visit(w - 1, y);
  }
  let best = 0;
  for (let k = 1; k < hits.length; k++) if (hits[k]! > hits[best]!) best = k;
  const borderShare = border ? hits[best]! / border : 0;
  const color = colors[best]!;
  // The box must frame the design (nearly the whole border) and be a real area, not a thin outline.
  return borderShare >= 0.9 && color.share >= 0.15 ? { color, borderShare } : null;
}

// --- fine detail -----------------------------------------------------------------------------------------------

/** Embroidery is judged at a typical left-chest logo size, where its smallest stitchable feature is about 1.5 mm. */
export const EMBROIDERY_SIZE_IN = 4;
export const MIN_STITCH_MM = 1.5;
/** One pixel of the detail raster is half the smallest stitchable feature, so a 1-pixel feature is too thin. */
const DETAIL_PX_MM = MIN_STITCH_MM / 2;

/** Box-filter downsampling with premultiplied alpha (so transparent pixels do not darken colors). */
export function shrinkRgba(img: RgbaInput, maxSide: number): RgbaInput {
  const { data, width: w, height: h } = img;
  const scale = maxSide / Math.max(w, h);
  if (scale >= 1) return img;
  const W = Math.max(1, Math.round(w * scale));
  const H = Math.max(1, Math.round(h * scale));
  const acc = new Float64Array(W * H * 5);
  for (let y = 0; y < h; y++) {
    const ty = Math.min(H - 1, Math.floor((y * H) / h));
    for (let x = 0; x < w; x++) {
      const tx = Math.min(W - 1, Math.floor((x * W) / w));
      const i = (y * w + x) * 4;
      const a = data[i + 3]!;
      const o = (ty * W + tx) * 5;
      acc[o]! += data[i]! * a;
      acc[o + 1]! += data[i + 1]! * a;
      acc[o + 2]! += data[i + 2]! * a;
      acc[o + 3]! += a;
      acc[o + 4]!++;
    }
  }
  const out = new Uint8Array(W * H * 4);
  for (let p = 0; p < W * H; p++) {
    const o = p * 5;
    const a = acc[o + 3]!;
    const n = acc[o + 4]! || 1;
    out[p * 4] = a ? Math.round(acc[o]! / a) : 0;
    out[p * 4 + 1] = a ? Math.round(acc[o + 1]! / a) : 0;
    out[p * 4 + 2] = a ? Math.round(acc[o + 2]! / a) : 0;
    out[p * 4 + 3] = Math.round(a / n);
  }
  return { data: out, width: W, height: H };
}

/**
 * Share of the ink that lies in features narrower than MIN_STITCH_MM when the design is embroidered at
 * EMBROIDERY_SIZE_IN on its longer side. The design is reduced so one pixel is half that width; then a pixel is fine
 * detail when it is a one-pixel-wide run of its color (a thin line, or a thin gap between areas), or when it is only
 * partly covered without being the soft rim of a larger shape (lines thinner than a pixel). `realTranslucency`
 * disables the partial-coverage rule for designs that are genuinely semi-transparent.
 */
export function fineDetailShare(img: RgbaInput, colors: InkColor[], realTranslucency: boolean): number {
  const side = Math.round((EMBROIDERY_SIZE_IN * 25.4) / DETAIL_PX_MM);
  const small = shrinkRgba(img, side);
  const { data, width: w, height: h } = small;
  const n = w * h;
  const labs: Lab[] = colors.map((c) => c.lab);
  const CLEAR = -1;
  const BLEND = -2;
  // Nearest color per 15-bit RGB bin, computed once per bin: the detail raster has few distinct colors.
  const UNKNOWN = -3;
  const byBin = new Int16Array(1 << 15).fill(UNKNOWN);
  const label = new Int16Array(n);
  for (let p = 0; p < n; p++) {
    const i = p * 4;
    if (data[i + 3]! < 128) {
      label[p] = CLEAR;
      continue;
    }
    const bin = ((data[i]! >> 3) << 10) | ((data[i + 1]! >> 3) << 5) | (data[i + 2]! >> 3);
    let best = byBin[bin]!;
    if (best === UNKNOWN) {
      const lab = rgbToLab(data[i]!, data[i + 1]!, data[i + 2]!);
      best = BLEND;
      let bestD = 22;
      for (let k = 0; k < labs.length; k++) {
        const d = deltaE76(labs[k]!, lab);
        if (d < bestD) {
          bestD = d;
          best = k;
        }
      }
      byBin[bin] = best;
    }
    label[p] = best;
  }
  const at = (x: number, y: number) => (x < 0 || y < 0 || x >= w || y >= h ? CLEAR : label[y * w + x]!);
  const alphaAt = (x: number, y: number) => (x < 0 || y < 0 || x >= w || y >= h ? 0 : data[(y * w + x) * 4 + 3]!);
  let ink = 0;
  let fine = 0;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const p = y * w + x;
      const a = data[p * 4 + 3]!;
      if (a < 32) continue;
      const weight = a / 255;
      ink += weight;
      const l = label[p]!;
      const L = at(x - 1, y);
      const R = at(x + 1, y);
      const U = at(x, y - 1);
      const D = at(x, y + 1);
      if (l >= 0) {
        if ((L !== l && R !== l) || (U !== l && D !== l)) fine += weight;
      } else if (l === BLEND) {
        // A blend between two different neighbors is the boundary of two areas; sandwiched, it is a thin line.
        if ((L === R && L !== BLEND) || (U === D && U !== BLEND)) fine += weight;
      } else if (!realTranslucency) {
        const rim =
          alphaAt(x - 1, y) >= 128 || alphaAt(x + 1, y) >= 128 || alphaAt(x, y - 1) >= 128 || alphaAt(x, y + 1) >= 128;
        if (!rim) fine += weight;
      }
    }
  }
  return ink ? fine / ink : 0;
}

// --- visibility on garments ------------------------------------------------------------------------------------

/** The blank colors most designs go on; approximations of common stock colors. */
export const COMMON_GARMENTS = [
  { name: 'white', hex: '#FFFFFF' },
  { name: 'black', hex: '#231F20' },
  { name: 'heather gray', hex: '#A7A8AA' },
  { name: 'navy', hex: '#1F2A44' },
] as const;
const GARMENT_LABS = COMMON_GARMENTS.map((g) => ({ ...g, lab: hexToLab(g.hex) }));

/** Below this CIEDE2000 difference an ink is hard to tell from the fabric under it. */
export const LOW_CONTRAST_DE = 8;

export interface LowContrast {
  color: InkColor;
  garments: string[];
}

/**
 * Colors that would nearly disappear on common garment colors. Only ink that touches the fabric matters: designs
 * with no transparent area (everything sits on its own background) and the color of a background box are skipped.
 */
export function lowContrastColors(
  colors: InkColor[],
  touchesFabric: boolean,
  exclude: InkColor | null,
  minShare = 0.05,
): LowContrast[] {
  if (!touchesFabric) return [];
  const out: LowContrast[] = [];
  for (const c of colors) {
    if (c.share < minShare || c === exclude) continue;
    const garments = GARMENT_LABS.filter((g) => ciede2000(c.lab, g.lab) < LOW_CONTRAST_DE).map((g) => g.name);
    if (garments.length) out.push({ color: c, garments });
  }
  return out;
}
