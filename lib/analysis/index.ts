// Printability analysis (spec "Analysis result"): colour counting, dominant colours, Pantone approximations,
// technique recommendation, price model and warnings. analyseImage() is the entry point for untrusted bytes;
// analysePixels() is the pure core (tests, benchmarks).
export { analyseImage, ANALYSIS_MAX_SIDE, type AnalyseOptions } from './analyse-image';
export {
  analysePixels,
  DECISION_THRESHOLDS,
  type AnalysisResult,
  type AnalysisFacts,
  type PixelInput,
} from './analyse-pixels';
export { AnalysisPool, analysisPool } from './pool';
export { extractPalette, PALETTE_TUNING, type Palette, type InkColour } from './palette';
export { screenPrice, dtgPrice, orderTotals, SCREEN_MODEL, DTG_MODEL, CURRENCY } from './pricing';
export { recommend, complexityOf, LIMITS, type Technique, type Complexity, type DesignFacts } from './recommend';
export { nearestPantone, pantoneLabel, PANTONE_TABLE, PANTONE_MAX_DE } from './pantone';
export { ciede2000, deltaE76, rgbToLab, hexToLab, hexToRgb, toHex } from './colour';
