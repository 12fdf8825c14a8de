// Pockets of backdrop the flood of garment-segment.ts could not enter: where a sleeve almost touches the body, the
// narrow gap between them is backdrop and soft drop shadow, but its mouth lies within the texture window of both
// outlines, so the flood stops outside and the gap stays garment (and the shadow peel, garment-shadow.ts, works only
// ring by ring from outside). Here the backdrop floods again, through pixels of the backdrop's colour or a shadow of
// it that lie off the outline (every pixel within one pixel of an edge is closed), without the texture condition. The
// regions it reaches are opened when they look like a pocket: narrow (at most POCKET_MAX_HALF_WIDTH pixels from their
// sides), small (POCKET_MAX_SHARE of the mask) and lighter than the garment's outline and shadowed edge around them
// (a patch of a grey garment's own fabric is as light as the fabric around it). A large region means the flood got
// into the garment through a gap in its outline (a garment of the backdrop's colour or a shadow's grey): then nothing
// is opened in that photo. Pure code on raw arrays.
import { labelComponents } from './garment-regions';

/** A pocket lies at most this many pixels (chessboard, detection copy) from its sides... */
export const POCKET_MAX_HALF_WIDTH = 9;
/** ...covers at most this share of the mask... */
export const POCKET_MAX_SHARE = 0.025;
/** ...and is lighter than the mask within RING pixels around it by this share of the backdrop's brightness. */
export const POCKET_MIN_CONTRAST = 0.03;
const RING = 3;
/** A region above this share of the mask is the garment itself: the photo's pockets are left closed. */
export const POCKET_LEAK_SHARE = 0.1;

/**
 * Opens the pockets in `reached` (1 = backdrop) in place. `fine`: pixels smooth and of the backdrop's colour or a
 * shadow of it; `hp`, `edge`: the high-pass and the outline's threshold; `ch`, `model`: the image's channels and the
 * backdrop model. Returns the number of pixels opened.
 */
export function openPockets(
  reached: Uint8Array,
  fine: Uint8Array,
  hp: Float32Array,
  edge: number,
  ch: Float32Array[],
  model: Float32Array[],
  w: number,
  h: number,
): number {
  const n = w * h;
  // passable: fine, and not within one pixel of an edge (the outline closed by one pixel)
  const pass = Uint8Array.from(fine);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      if (hp[y * w + x]! < edge) continue;
      for (let yy = Math.max(0, y - 1); yy <= Math.min(h - 1, y + 1); yy++)
        for (let xx = Math.max(0, x - 1); xx <= Math.min(w - 1, x + 1); xx++) pass[yy * w + xx] = 0;
    }
  let maskArea = 0;
  for (let i = 0; i < n; i++) if (!reached[i]) maskArea++;

  // the flood from the backdrop through passable pixels: `added`, what it newly reaches
  const added = new Uint8Array(n);
  const stack = new Int32Array(n);
  let sp = 0;
  for (let i = 0; i < n; i++) if (reached[i]) stack[sp++] = i;
  const visit = (j: number) => {
    if (pass[j] && !reached[j] && !added[j]) {
      added[j] = 1;
      stack[sp++] = j;
    }
  };
  while (sp > 0) {
    const i = stack[--sp]!;
    const x = i % w;
    if (x > 0) visit(i - 1);
    if (x < w - 1) visit(i + 1);
    if (i >= w) visit(i - w);
    if (i < n - w) visit(i + w);
  }
  const { label, sizes } = labelComponents(added, w, h, stack);
  let largest = 0;
  for (let l = 1; l < sizes.length; l++) largest = Math.max(largest, sizes[l]!);
  if (sizes.length < 2 || largest > POCKET_LEAK_SHARE * maskArea) return 0;

  // each region's half width: the largest chessboard distance of its pixels to a pixel outside it
  const dist = chessboardInside(added, w, h);
  const thick = new Int32Array(sizes.length);
  for (let i = 0; i < n; i++) if (label[i]! && dist[i]! > thick[label[i]!]!) thick[label[i]!] = dist[i]!;
  const small = new Uint8Array(sizes.length);
  for (let l = 1; l < sizes.length; l++)
    small[l] = thick[l]! <= POCKET_MAX_HALF_WIDTH && sizes[l]! <= POCKET_MAX_SHARE * maskArea ? 1 : 0;

  // each small region's brightness (relative to the backdrop model) against the mask's within RING pixels of it
  const ratio = (i: number) =>
    (ch[0]![i]! + ch[1]![i]! + ch[2]![i]!) / Math.max(1, model[0]![i]! + model[1]![i]! + model[2]![i]!);
  const own = new Float64Array(sizes.length);
  const ringSum = new Float64Array(sizes.length);
  const ringN = new Int32Array(sizes.length);
  const seen = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const l = label[i]!;
    if (!l || !small[l]) continue;
    own[l]! += ratio(i);
    const x = i % w;
    const y = (i - x) / w;
    for (let yy = Math.max(0, y - RING); yy <= Math.min(h - 1, y + RING); yy++)
      for (let xx = Math.max(0, x - RING); xx <= Math.min(w - 1, x + RING); xx++) {
        const j = yy * w + xx;
        if (reached[j] || label[j] || seen[j] === l) continue;
        seen[j] = l;
        ringSum[l]! += ratio(j);
        ringN[l]!++;
      }
  }
  let opened = 0;
  for (let i = 0; i < n; i++) {
    const l = label[i]!;
    if (!l || !small[l] || !ringN[l]) continue;
    if (own[l]! / sizes[l]! - ringSum[l]! / ringN[l]! < POCKET_MIN_CONTRAST) continue;
    reached[i] = 1;
    opened++;
  }
  return opened;
}

/** For each pixel of `inside` (0/1), its chessboard distance to the nearest pixel outside it (1 = on its rim). */
function chessboardInside(inside: Uint8Array, w: number, h: number): Int32Array {
  const d = new Int32Array(w * h);
  const at = (x: number, y: number) => (x < 0 || y < 0 || x >= w || y >= h ? 0 : d[y * w + x]!);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      if (inside[i]) d[i] = Math.min(at(x - 1, y), at(x, y - 1), at(x - 1, y - 1), at(x + 1, y - 1)) + 1;
    }
  for (let y = h - 1; y >= 0; y--)
    for (let x = w - 1; x >= 0; x--) {
      const i = y * w + x;
      if (inside[i])
        d[i] = Math.min(d[i]!, Math.min(at(x + 1, y), at(x, y + 1), at(x + 1, y + 1), at(x - 1, y + 1)) + 1);
    }
  return d;
}
