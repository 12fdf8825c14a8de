// Untrusted image handling, shared by upload, analysis and generation:
//   inspectImage   size, format from magic bytes, dimensions from the header (no decoding)
//   openImage      sharp with a pixel limit and fail-on-corruption, for any further processing
//   makeThumbnail  small WebP preview (decodes everything, so it also proves the data is intact)
//   decodeRaster   small RGBA raster for pixel analysis
//   decodeImageJson  JSON body with a base64 image, parsed and decoded off the event loop when large
//   WorkerPool     worker threads for CPU-bound work
export * from './errors';
export * from './format';
export * from './header';
export * from './limits';
export * from './inspect';
export * from './decode';
export * from './data-url';
export * from './thumbnail';
export * from './raster';
export * from './json-image';
export * from './worker-pool';
export * from './design-levels';
