// Printability analysis (spec "Analysis result"): color counting, dominant colors, Pantone approximations,
// technique recommendation, price model and warnings. analyzeImage() is the entry point for untrusted bytes;
// analyzePixels() is the pure core (tests, benchmarks).
export {
  analyzeImage,
  analyzeImageWithFacts,
  analysisToKeep,
  ANALYSIS_MAX_SIDE,
  type AnalyzeOptions,
  type KeptAnalysis,
} from './analyze-image';
export { contrastOn, darkColor, CONTRAST, type InkContrast, type ContrastReport } from './contrast';
export {
  analyzePixels,
  ANALYSIS_VERSION,
  DECISION_THRESHOLDS,
  type AnalysisResult,
  type AnalysisFacts,
  type PixelInput,
} from './analyze-pixels';
export { AnalysisPool, analysisPool, ANALYSIS_THREAD_YOUNG_MB } from './pool';
export { extractPalette, type Palette, type InkColor } from './palette';
export { PALETTE_TUNING } from './palette-tuning';
export { screenPrice, dtgPrice, orderTotals, SCREEN_MODEL, DTG_MODEL, CURRENCY } from './pricing';
export { recommend, complexityOf, LIMITS, type Technique, type Complexity, type DesignFacts } from './recommend';
export { nearestPantone, pantoneLabel, PANTONE_TABLE, PANTONE_MAX_DE } from './pantone';
export { ciede2000, deltaE76, rgbToLab, hexToLab, hexToRgb, toHex } from './color';
