// Analysis of untrusted image bytes: validate (format, size, pixel count) without decoding, let libvips decode and
// downsample on its threads, then run the pixel analysis on a worker thread. The event loop does neither.
import { decodeRaster, inspectImage, releaseNow, type InspectOptions } from '../images';
import { ANALYSIS_VERSION, type AnalysisFacts, type AnalysisResult, type PixelInput } from './analyze-pixels';
import { analysisPool, type AnalysisPool } from './pool';

/**
 * Longer side of the raster the analysis works on. 512 keeps color areas, gradients and detail measurable (a 1.5 mm
 * feature of a 4 in logo is still several pixels) while the JavaScript work stays in tens of milliseconds.
 */
export const ANALYSIS_MAX_SIDE = 512;

export interface AnalyzeOptions extends InspectOptions {
  quantity: number;
  pool?: AnalysisPool;
}

/** Throws ImageError (a client problem: answer 400) for anything that is not a readable, acceptable image. */
export async function analyzeImage(bytes: Buffer, opts: AnalyzeOptions): Promise<AnalysisResult> {
  return (await analyzeImageWithFacts(bytes, opts)).result;
}

/** analyzeImage with the measurements behind the result (the inks with their shares, for contrast checks). */
export async function analyzeImageWithFacts(
  bytes: Buffer,
  opts: AnalyzeOptions,
): Promise<{ result: AnalysisResult; facts: AnalysisFacts }> {
  inspectImage(bytes, opts);
  const raster = await decodeRaster(bytes, ANALYSIS_MAX_SIDE);
  // sharp's buffers live outside the V8 heap and cannot be transferred to a worker; one copy each into ordinary
  // memory (about 2 ms for a 7.2 MB alpha plane) lets them move without a further clone.
  const input: PixelInput = {
    data: new Uint8Array(raster.data),
    width: raster.width,
    height: raster.height,
    sourceWidth: raster.sourceWidth,
    sourceHeight: raster.sourceHeight,
    alphaPlane: raster.alphaPlane ? new Uint8Array(raster.alphaPlane) : undefined,
  };
  // sharp's originals (~8 MB for a 2400x3000 design) are read no more: freed now, not at V8's next collection
  releaseNow(raster.data, raster.alphaPlane);
  return (opts.pool ?? analysisPool()).run(input, opts.quantity, { move: true });
}

/** What a design library keeps of an upload's analysis: the answer, the inks the contrast checks read, and the
 * version and quantity it was made by and for (an answer kept by this version for that quantity is served as kept). */
export interface KeptAnalysis {
  result: AnalysisResult;
  inks: { hex: string; share: number }[];
  /** some of the design is see-through (its inks touch the fabric) */
  touchesFabric: boolean;
  /** the colour of an opaque background box, if any (it is not ink on the fabric) */
  boxHex: string | null;
  version: number;
  quantity: number;
}

/** analyzeImageWithFacts, as the design library keeps it (the API's asks and the worker's upload analysis). */
export async function analysisToKeep(bytes: Buffer, opts: AnalyzeOptions): Promise<KeptAnalysis> {
  const { result, facts } = await analyzeImageWithFacts(bytes, opts);
  return {
    result,
    inks: facts.inks,
    touchesFabric: facts.touchesFabric,
    boxHex: facts.backgroundBox,
    version: ANALYSIS_VERSION,
    quantity: opts.quantity,
  };
}
