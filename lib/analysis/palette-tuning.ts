// The palette's tuning (lib/analysis/palette.ts) and its colour bins (5 bits per channel), shared by the clustering
// and the explanation of fine inks (fine-inks.ts).

export const PALETTE_TUNING = {
  SOLID_ALPHA: 250,
  MIN_ALPHA: 32,
  EDGE_DIFF: 60,
  MERGE_DE: 11,
  MIN_SHARE: 0.0025,
  /** Bins smaller than this share of interior pixels never start a cluster (they can still join one). */
  SEED_SHARE: 0.0002,
  MAX_CLUSTERS: 96,
  /** Max RGB distance of a blended edge pixel from the segment between two inks. */
  MIX_DIST: 18,
  /** How far past two inks an edge pixel may lie and still be their blend (ringing, sharpening halos). */
  EDGE_OVERSHOOT: 0.3,
  /** Angle within which blended edge pixels are taken to head towards the same hidden ink. */
  RAY_COS: Math.cos((10 * Math.PI) / 180),
  /** Above this many colors the image is continuous tone anyway; explaining edges would add nothing. */
  EXPLAIN_UP_TO: 16,
  /** Soft-boundary pixels per interior pixel above which a color is a gradient band rather than a flat area. */
  TONAL_RATE: 0.004,
} as const;

export const BINS = 1 << 15;
export const binOf = (r: number, g: number, b: number) => ((r >> 3) << 10) | ((g >> 3) << 5) | (b >> 3);
