// The compositing engine: photo-like placement of a design on a garment blank. Pure image code (sharp/libvips and
// JS loops): no database or Temporal imports. Importing it applies the process-wide sharp settings (config.ts).
//
//   seed time:    deriveFabricMaps(blankJpeg) -> stored under fabricMapKeys(blankKey)
//   per worker:   new PreparedBlankCache({ load }) -> get(blankKey) decodes blank + maps once (LRU by bytes)
//   per request:  composite({ blank, design, zone, placement, applyTexture }) -> mockup + thumbnail JPEGs
export {
  configureSharp,
  setMaxParallelComposites,
  DEFAULT_MAX_PARALLEL,
  MAX_DESIGN_PIXELS,
  MAX_BLANK_SIDE,
  VIPS_THREADS_PER_PIPELINE,
} from './config';
export {
  composite,
  JPEG_QUALITY,
  THUMB_QUALITY,
  type CompositeOptions,
  type CompositeResult,
  type ZoneRect,
} from './composite';
export type { Placement } from './placement';
export {
  DesignImageError,
  configureDesignCache,
  DEFAULT_DESIGN_CACHE_BYTES,
  derivedCache,
  designCacheBytes,
  placeDesign,
  type DesignSource,
  type PlacedDesign,
} from './design';
export { deriveFabricMaps, fabricMapKeys, FABRIC_MAPS_VERSION, type FabricMaps } from './maps';
export { PreparedBlankCache, prepareBlank, DEFAULT_BLANK_CACHE_BYTES, type PreparedBlank } from './prepared';
export {
  detectGarment,
  detectGarmentInImage,
  locateGarment,
  landmarks,
  shapeMatch,
  shapeOf,
  DETECT_SIDE,
  type FracBox,
  type GarmentDetection,
  type GarmentLandmarks,
  type GarmentRegion,
} from './garment-detect';
export {
  choosePrintZone,
  chooseRegion,
  fitZone,
  MIN_SHAPE_MATCH,
  referenceLandmarks,
  referenceRegion,
  zonePixels,
  type ChosenZone,
  type PlacementBasis,
  type PrintAreaPercent,
} from './garment-zone';
export { createBlankCache, designSource, type SourceDeps, type TimedRead } from './sources';
export { testWatermarkSvg, watermarkTest, WATERMARK_OPACITY, WATERMARK_RGB } from './watermark';
