/** Alpha facts measured on every pixel of the full-resolution image (not the downsampled raster). */
export interface AlphaStats {
  /** The file has an alpha channel at all. */
  hasAlpha: boolean;
  /** Lowest alpha of any pixel: < 255 means some pixel is actually (partly) transparent. */
  minAlpha: number;
  /** Share of pixels with alpha >= 250 (solid) and with alpha < 8 (clear); the rest is translucent. */
  solidShare: number;
  clearShare: number;
}

/** Counts a full-resolution alpha plane (one byte per pixel); no plane means the image has no alpha channel. */
export function alphaStats(plane: Uint8Array | undefined): AlphaStats {
  if (!plane || plane.length === 0) return { hasAlpha: false, minAlpha: 255, solidShare: 1, clearShare: 0 };
  let min = 255;
  let solid = 0;
  let clear = 0;
  for (let i = 0; i < plane.length; i++) {
    const a = plane[i]!;
    if (a < min) min = a;
    if (a >= 250) solid++;
    else if (a < 8) clear++;
  }
  return { hasAlpha: true, minAlpha: min, solidShare: solid / plane.length, clearShare: clear / plane.length };
}

/** Share of the visible pixels that are semi-transparent. */
export const translucentShareOf = (a: AlphaStats) => {
  const visible = 1 - a.clearShare;
  return visible > 0 ? Math.max(0, visible - a.solidShare) / visible : 0;
};
