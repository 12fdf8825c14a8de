// Preflight of a print: what a print shop checks before a file goes on the press, measured on the print's own pixels
// (the design as placed on the zone's canvas at 300 DPI). Pure: raw RGBA in, a report out.
//
// Checks (codes are stable; levels: warning = print it knowingly, error = do not print as it is):
//   low_dpi           effective resolution of the design at its printed size: warning below 200, error below 100
//   semi_transparent  ink pixels neither clear nor solid (alpha 8-247) over 1 % of the ink: screen print and some
//                     DTG printers cannot lay partial ink (anti-aliased edges stay well below 1 %)
//   underbase_needed  a dark garment: the ink needs a white underbase, delivered as its own file for DTG (warning)
//   thin_lines        ink narrower than 1 pt (1/72 in) at print size: a run of ink shorter than 1 pt across or
//                     down, over at least 1 in of such ink (300 px at 300 DPI)
//   outside_zone      ink of the placed design falls outside the zone and is cut off (warning), or none of it is
//                     inside (error)

export type PreflightLevel = 'warning' | 'error';

export interface PreflightCheck {
  code: 'low_dpi' | 'semi_transparent' | 'underbase_needed' | 'thin_lines' | 'outside_zone';
  level: PreflightLevel;
  message: string;
  details?: Record<string, number | string | boolean>;
}

export interface PreflightReport {
  status: 'pass' | 'warning' | 'error';
  /** the design's pixels per inch at its printed size (the smaller of across and down) */
  effectiveDpi: number;
  /** alpha-weighted inked area inside the zone, square inches */
  inkedAreaIn2: number;
  /** true when the garment is dark: an underbase file comes with the print */
  underbase: boolean;
  checks: PreflightCheck[];
}

export const DPI_WARNING = 200;
export const DPI_ERROR = 100;
export const SEMI_ALPHA_MIN = 8;
export const SEMI_ALPHA_MAX = 247;
export const SEMI_SHARE_WARNING = 0.01;
/** 1 pt in inches. */
export const THIN_LINE_IN = 1 / 72;
/** Thin ink is reported from this much of it: 1 in of a 1-px line (DPI pixels of thin ink). */
export const THIN_LINE_MIN_IN = 1;
/** A garment whose colour has a relative luminance below this is dark (navy, black, charcoal, forest, maroon...). */
export const DARK_LUMINANCE = 0.2;

/** Relative luminance (WCAG) of a #rrggbb colour. */
export function relativeLuminance(hex: string): number {
  const m = /^#?([0-9a-f]{6})$/i.exec(hex.trim());
  if (!m) throw new RangeError(`not a colour: ${hex}`);
  const n = parseInt(m[1]!, 16);
  const lin = (c: number) => {
    const s = c / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * lin((n >> 16) & 255) + 0.7152 * lin((n >> 8) & 255) + 0.0722 * lin(n & 255);
}

export function isDarkGarment(hex: string | null | undefined): boolean {
  return !!hex && relativeLuminance(hex) < DARK_LUMINANCE;
}

/** What the renderer measured: the placed design (rotated) and where it sits on the canvas. */
export interface PlacedRaster {
  /** RGBA, not premultiplied */
  data: Buffer;
  width: number;
  height: number;
  /** its top-left on the canvas, pixels (may be negative or past the canvas) */
  left: number;
  top: number;
}

export interface PreflightInput {
  placed: PlacedRaster;
  canvas: { width: number; height: number };
  dpi: number;
  /** the design's upright pixels and the size it was placed at (unrotated), for the effective DPI */
  designSize: { width: number; height: number };
  placedSize: { width: number; height: number };
  garmentHex?: string | null;
}

/** Counts over the placed raster: ink inside and outside the canvas, semi-transparent ink, alpha-weighted area. */
export function inkStats(p: PlacedRaster, canvas: { width: number; height: number }) {
  const { data, width: w, height: h, left, top } = p;
  let inside = 0;
  let outside = 0;
  let semi = 0;
  let alphaSum = 0;
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  for (let y = 0; y < h; y++) {
    const cy = y + top;
    const rowIn = cy >= 0 && cy < canvas.height;
    let i = y * w * 4 + 3;
    for (let x = 0; x < w; x++, i += 4) {
      const a = data[i]!;
      if (a < SEMI_ALPHA_MIN) continue;
      const cx = x + left;
      if (!rowIn || cx < 0 || cx >= canvas.width) {
        outside++;
        continue;
      }
      inside++;
      alphaSum += a;
      if (a <= SEMI_ALPHA_MAX) semi++;
      if (cx < x0) x0 = cx;
      if (cx > x1) x1 = cx;
      if (cy < y0) y0 = cy;
      if (cy > y1) y1 = cy;
    }
  }
  const inkBox = inside ? { left: x0, top: y0, width: x1 - x0 + 1, height: y1 - y0 + 1 } : null;
  return { inside, outside, semi, alphaArea: alphaSum / 255, inkBox };
}

/**
 * Pixels of ink (alpha >= 128) inside the canvas whose horizontal or vertical run of ink is shorter than `maxRun`
 * pixels: a line narrower than that across (a line at 45 degrees is measured sqrt(2) times its width). The edges of
 * large shapes, straight or slanted, have long runs both ways; only a few pixels at sharp corners count.
 */
export function thinInk(p: PlacedRaster, canvas: { width: number; height: number }, maxRun: number): number {
  // the part of the raster on the canvas
  const ox = Math.max(0, -p.left);
  const oy = Math.max(0, -p.top);
  const w = Math.min(p.width, canvas.width - p.left) - ox;
  const h = Math.min(p.height, canvas.height - p.top) - oy;
  if (w <= 0 || h <= 0) return 0;
  const mask = new Uint8Array(w * h);
  for (let y = 0; y < h; y++) {
    let i = ((y + oy) * p.width + ox) * 4 + 3;
    for (let x = 0, o = y * w; x < w; x++, i += 4, o++) mask[o] = p.data[i]! >= 128 ? 1 : 0;
  }
  // horizontal run length of each ink pixel (short runs marked), then vertical
  const shortH = new Uint8Array(w * h);
  for (let y = 0; y < h; y++) {
    const row = y * w;
    let x = 0;
    while (x < w) {
      if (!mask[row + x]) {
        x++;
        continue;
      }
      let e = x;
      while (e < w && mask[row + e]) e++;
      if (e - x < maxRun) shortH.fill(1, row + x, row + e);
      x = e;
    }
  }
  let thin = 0;
  for (let x = 0; x < w; x++) {
    let y = 0;
    while (y < h) {
      if (!mask[y * w + x]) {
        y++;
        continue;
      }
      let e = y;
      while (e < h && mask[e * w + x]) e++;
      if (e - y < maxRun) thin += e - y;
      else for (let k = y; k < e; k++) thin += shortH[k * w + x]!;
      y = e;
    }
  }
  return thin;
}

const round1 = (v: number) => Math.round(v * 10) / 10;

export function preflight(input: PreflightInput): PreflightReport {
  const { placed, canvas, dpi } = input;
  const checks: PreflightCheck[] = [];
  const effectiveDpi = Math.round(
    dpi * Math.min(input.designSize.width / input.placedSize.width, input.designSize.height / input.placedSize.height),
  );
  if (effectiveDpi < DPI_WARNING) {
    const error = effectiveDpi < DPI_ERROR;
    checks.push({
      code: 'low_dpi',
      level: error ? 'error' : 'warning',
      message:
        `The design has ${effectiveDpi} pixels per inch at its printed size ` +
        `(${round1(input.placedSize.width / dpi)} x ${round1(input.placedSize.height / dpi)} in); ` +
        `${error ? `below ${DPI_ERROR} it prints visibly blurred` : `${DPI_WARNING} or more prints sharp`}. ` +
        `Use a larger image (${Math.ceil((input.placedSize.width / dpi) * DPI_WARNING)} x ` +
        `${Math.ceil((input.placedSize.height / dpi) * DPI_WARNING)} px or more) or print it smaller.`,
      details: { effectiveDpi, minimum: DPI_WARNING },
    });
  }
  const s = inkStats(placed, canvas);
  const ink = s.inside;
  if (ink > 0 && s.semi / ink > SEMI_SHARE_WARNING) {
    const share = Math.round((s.semi / ink) * 1000) / 10;
    checks.push({
      code: 'semi_transparent',
      level: 'warning',
      message: `${share} % of the ink is semi-transparent: screen print and some DTG printers cannot lay partial ink (it prints solid or as a halftone).`,
      details: { sharePercent: share, pixels: s.semi },
    });
  }
  const underbase = isDarkGarment(input.garmentHex) && ink > 0;
  if (underbase) {
    checks.push({
      code: 'underbase_needed',
      level: 'warning',
      message: `The garment (${input.garmentHex}) is dark: the ink needs a white underbase, delivered as its own file for DTG.`,
      details: { garmentColor: input.garmentHex! },
    });
  }
  const maxRun = Math.max(2, Math.floor(dpi * THIN_LINE_IN + 1e-9) + 1);
  const thin = ink > 0 ? thinInk(placed, canvas, maxRun) : 0;
  if (thin >= dpi * THIN_LINE_MIN_IN) {
    checks.push({
      code: 'thin_lines',
      level: 'warning',
      message: `Some lines are thinner than 1 pt (1/72 in, ${round1(dpi / 72)} px at ${dpi} DPI) at print size and may not print or may break up.`,
      details: { pixels: thin },
    });
  }
  if (s.outside > 0) {
    const none = ink === 0;
    const share = Math.round((s.outside / (s.outside + ink)) * 1000) / 10;
    checks.push({
      code: 'outside_zone',
      level: none ? 'error' : 'warning',
      message: none
        ? 'The design lies entirely outside the print zone: nothing would be printed.'
        : `${share} % of the design lies outside the print zone and is cut off.`,
      details: { sharePercent: share },
    });
  }
  const pxPerIn2 = dpi * dpi;
  return {
    status: checks.some((c) => c.level === 'error') ? 'error' : checks.length ? 'warning' : 'pass',
    effectiveDpi,
    inkedAreaIn2: Math.round((s.alphaArea / pxPerIn2) * 100) / 100,
    underbase,
    checks,
  };
}
