// Limits shared by upload, analysis and generation. One place, so the API and the worker refuse the same inputs.

/** Spec "Limits": upload file size 10 MB. Read as MiB, so a file a client's OS calls "10 MB" is never refused. */
export const MAX_IMAGE_BYTES = 10 * 1024 * 1024;

/**
 * Largest decoded image we accept, in pixels. 40 MP is 5.5x the recommended 2400x3000 and covers 6000x6000; decoded as
 * RGBA it is 160 MB, which is the most one request may make libvips allocate. Bigger files are refused from the header,
 * before any pixel is decoded, and sharp's limitInputPixels enforces the same bound inside libvips.
 */
export const MAX_INPUT_PIXELS = 40_000_000;

/** No side may exceed this (WebP's own maximum; also stops 1 x 40,000,000 strips that pass the pixel limit). */
export const MAX_SIDE = 16_384;

/** Recommended minimum resolution from the spec ("2400x3000 px or higher"). */
export const RECOMMENDED_WIDTH = 2400;
export const RECOMMENDED_HEIGHT = 3000;
