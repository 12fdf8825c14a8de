// The printability analysis proper: pure and synchronous, from pixels to the spec's analysis result. It runs on a
// worker thread (see pool.ts); nothing here touches sharp, the network or the database.
import { alphaStats, translucentShareOf } from './alpha';
import { detectBackgroundBox, fineDetailShare, lowContrastColors, printSize } from './features';
import { extractPalette, type RgbaInput } from './palette';
import { nearestPantone, pantoneLabel } from './pantone';
import { CURRENCY, dtgPrice, screenPrice } from './pricing';
import { LIMITS, recommend, type Complexity, type Technique } from './recommend';
import { warningsFor } from './warnings';

export interface PixelInput extends RgbaInput {
  /** Size of the original image; the raster may be a downsampled copy. */
  sourceWidth: number;
  sourceHeight: number;
  /** Full-resolution alpha plane (one byte per source pixel), when the image has an alpha channel. */
  alphaPlane?: Uint8Array;
}

/** The spec's "Analysis result". */
export interface AnalysisResult {
  colors: { count: number; dominant: string[]; pantone: string[] };
  dimensions: { width: number; height: number; aspectRatio: number; hasTransparency: boolean };
  recommendation: { technique: Technique; reason: string; complexity: Complexity };
  pricing: {
    dtg: { perUnit: number; currency: string };
    screen: { perUnit: number; setup: number; minimumQuantity: number; currency: string };
  };
  warnings: string[];
}

/** The measurements behind a result, for tests, benchmarks and the README. */
export interface AnalysisFacts {
  colorCount: number;
  tonalShare: number;
  softBoundaryRate: number;
  translucentShare: number;
  fineShare: number;
  inkCoverage: number;
  dpi: number;
  printedSquareInches: number;
  backgroundBox: string | null;
  /** every counted ink with its share of the ink (contrast checks, lib/analysis/contrast.ts) */
  inks: { hex: string; share: number }[];
  /** a noticeable part of the image is see-through: its inks sit on the fabric */
  touchesFabric: boolean;
}

export const DECISION_THRESHOLDS = {
  /** Share of the ink in gradient bands above which the design is continuous tone. */
  TONAL_SHARE: 0.15,
  /** Share of visible pixels that are semi-transparent above which that matters for printing. */
  TRANSLUCENT_SHARE: 0.1,
  /** Share of the ink in sub-1.5 mm detail (at embroidery size) above which it is too fine to stitch. */
  FINE_SHARE: 0.2,
} as const;

/**
 * The analysis's version: what analyzePixels answers for given pixels and quantity. A stored analysis of another
 * version is made again rather than served (api/services/upload-library.ts). Bump it whenever the answer changes:
 * test/unit/analysis-version.test.ts pins this version's answers on the fixtures and fails until it is bumped.
 */
export const ANALYSIS_VERSION = 1;

export function analyzePixels(input: PixelInput, quantity: number): { result: AnalysisResult; facts: AnalysisFacts } {
  const T = DECISION_THRESHOLDS;
  const palette = extractPalette(input);
  const alpha = alphaStats(input.alphaPlane);
  const hasTransparency = alpha.minAlpha < 255;
  const translucentShare = translucentShareOf(alpha);
  const colors = palette.colors;
  const colorCount = colors.length;

  const continuousTone = palette.tonalShare >= T.TONAL_SHARE;
  const translucent = translucentShare >= T.TRANSLUCENT_SHARE;
  // Fine detail only matters where embroidery or vinyl could be chosen: flat designs of up to 15 colors.
  const fineShare =
    colorCount > 0 && colorCount <= LIMITS.embroidery && !continuousTone
      ? fineDetailShare(input, colors, translucentShare >= T.TRANSLUCENT_SHARE / 2)
      : 0;
  const fineDetail = fineShare >= T.FINE_SHARE;
  const print = printSize(input.sourceWidth, input.sourceHeight);
  const box = detectBackgroundBox(input, colors);
  // Ink touches the fabric when a noticeable part of the image is see-through.
  const touchesFabric = alpha.clearShare + translucentShare * (1 - alpha.clearShare) >= 0.05;
  const lowContrast = lowContrastColors(colors, touchesFabric, box?.color ?? null);

  const printedSquareInches = print.widthIn * print.heightIn * palette.inkCoverage;
  const screen = screenPrice(colorCount, quantity);
  const dtg = dtgPrice(printedSquareInches, quantity);
  const recommendation = recommend(
    { colorCount, continuousTone, translucent, fineDetail, inkCoverage: palette.inkCoverage },
    quantity,
    screen,
    dtg,
  );

  const dominant = colors.slice(0, 5);
  const pantone: string[] = [];
  for (const c of dominant) {
    const m = nearestPantone(c.lab);
    if (m && !pantone.includes(pantoneLabel(m))) pantone.push(pantoneLabel(m));
  }

  const warnings = warningsFor({
    width: input.sourceWidth,
    height: input.sourceHeight,
    print,
    colorCount,
    continuousTone,
    translucentShare,
    translucent,
    fineDetail,
    fineShare,
    box,
    lowContrast,
    visiblePixels: colorCount > 0,
  });

  return {
    result: {
      colors: { count: colorCount, dominant: dominant.map((c) => c.hex), pantone },
      dimensions: {
        width: input.sourceWidth,
        height: input.sourceHeight,
        aspectRatio: Math.round((input.sourceWidth / input.sourceHeight) * 10000) / 10000,
        hasTransparency,
      },
      recommendation,
      pricing: {
        dtg: { perUnit: dtg.perUnit, currency: CURRENCY },
        screen: {
          perUnit: screen.perUnit,
          setup: screen.setup,
          minimumQuantity: screen.minimumQuantity,
          currency: CURRENCY,
        },
      },
      warnings,
    },
    facts: {
      colorCount,
      tonalShare: palette.tonalShare,
      softBoundaryRate: palette.softBoundaryRate,
      translucentShare,
      fineShare,
      inkCoverage: palette.inkCoverage,
      dpi: print.dpi,
      printedSquareInches,
      backgroundBox: box?.color.hex ?? null,
      inks: colors.map((c) => ({ hex: c.hex, share: Math.round(c.share * 10000) / 10000 })),
      touchesFabric,
    },
  };
}
