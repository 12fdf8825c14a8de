// Contrast of a design's inks against a garment colour (issue 35): which share of the visible ink is hard to see on
// that fabric, and whether a colour is dark enough to take a design's dark variant. Pure; the inks come from the
// analysis' palette (palette.ts: every counted ink with its share of the ink).
//
// The measure is WCAG 2 contrast ratio of relative luminance, (L1 + 0.05) / (L2 + 0.05), not CIEDE2000: what keeps
// ink readable on a shirt seen from a few metres, in any light, is the lightness step between ink and fabric.
// CIEDE2000 also counts chroma and hue, which dark fabric and dim light take away: pure navy #000080 on black is
// ΔE00 28 ("clearly different") yet 1.02:1, and nearly invisible once printed; navy #1F2A44 on black is 1.14:1.
// The cost: a design that differs from the fabric in hue only (red on a green of the same lightness) is not flagged;
// it stays visible to most viewers (docs/uploads-and-analysis.md#contrast-on-garment-colours).
import { hexToLab, hexToRgb } from './color';

export const CONTRAST = {
  /** Below this ratio an ink is hard to see on the fabric (WCAG's 3:1 for graphics flags red on black, 2.8:1). */
  minRatio: 2,
  /** A low_contrast warning needs at least this share of the visible ink below minRatio. */
  minShare: 0.2,
  /** Colours with CIELAB lightness L* below this are dark: they take a design's darkDesignUrl. */
  darkBelowL: 50,
} as const;

const linear = (v: number) => {
  const c = v / 255;
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
};

/** WCAG 2 relative luminance of a #RRGGBB colour. */
export function relativeLuminance(hex: string): number {
  const [r, g, b] = hexToRgb(hex);
  return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);
}

/** WCAG 2 contrast ratio of two #RRGGBB colours, 1 to 21. */
export function contrastRatio(a: string, b: string): number {
  const x = relativeLuminance(a);
  const y = relativeLuminance(b);
  return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05);
}

/** A colour darker than CONTRAST.darkBelowL (CIELAB L*). */
export const darkColor = (hex: string): boolean => hexToLab(hex)[0] < CONTRAST.darkBelowL;

export interface InkContrast {
  hex: string;
  share: number;
  ratio: number;
}

export interface ContrastReport {
  /** every ink with its share and its contrast ratio against the fabric */
  inks: InkContrast[];
  /** share of the visible ink below CONTRAST.minRatio (0-1) */
  lowShare: number;
  /** lowShare >= CONTRAST.minShare: worth a warning */
  low: boolean;
}

/**
 * The contrast of a design's inks on a garment colour. A design with nothing see-through (`touchesFabric` false) sits
 * on its own background: nothing of its ink meets the fabric, so nothing is low. Shares are renormalised over the
 * inks given (a background box's colour left out).
 */
export function contrastOn(
  inks: readonly { hex: string; share: number }[],
  garmentHex: string,
  opts: { touchesFabric?: boolean; exclude?: string | null } = {},
): ContrastReport {
  const counted = inks.filter((i) => i.hex.toLowerCase() !== opts.exclude?.toLowerCase());
  const total = counted.reduce((s, i) => s + i.share, 0);
  const out = counted.map((i) => ({
    hex: i.hex,
    share: total > 0 ? Math.round((i.share / total) * 1000) / 1000 : 0,
    ratio: Math.round(contrastRatio(i.hex, garmentHex) * 100) / 100,
  }));
  if (opts.touchesFabric === false || total === 0) return { inks: out, lowShare: 0, low: false };
  const lowShare =
    counted.reduce((s, i) => s + (contrastRatio(i.hex, garmentHex) < CONTRAST.minRatio ? i.share : 0), 0) / total;
  const rounded = Math.round(lowShare * 1000) / 1000;
  return { inks: out, lowShare: rounded, low: lowShare >= CONTRAST.minShare };
}
