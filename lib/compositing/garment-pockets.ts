// Pockets of backdrop the flood of garment-segment.ts could not enter: where a sleeve almost touches the body, the
// narrow gap between them is backdrop and soft drop shadow, but its mouth lies within the texture window of both
// outlines, so the flood stops outside and the gap stays garment (and the shadow peel, garment-shadow.ts, works only
// ring by ring from outside). Here the backdrop floods again, through pixels of the backdrop's colour or a shadow of
// it that lie off the outline (every pixel within one pixel of an edge is closed), without the texture condition;
// where the garment has a hue of its own (a heather's blue cast, any colour), also through pixels of the backdrop's
// hue (3x3 mean) whatever JPEG's noise in a narrow shadowed gap does to the high-pass. The regions it reaches are
// opened when they look like a pocket: narrow (at most POCKET_MAX_HALF_WIDTH pixels from their sides), small
// (POCKET_MAX_SHARE of the mask) and either lighter than the garment's outline and shadowed edge around them (a patch
// of a grey garment's own fabric is as light as the fabric around it), or of the backdrop's hue where the garment's
// fabric has another: a shadow keeps the backdrop's hue, so the gap of a heather garment, as dark there as its fabric,
// still differs from it in hue (a patch of its own fabric has the fabric's hue). A large region means the flood got
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
/**
 * ...or it has the backdrop's hue (its channels' ratios to the backdrop model, over their mean, within
 * POCKET_MAX_OWN_HUE of 1 on average) while the garment's fabric (the mask's inside, off its rim) does not (at least
 * POCKET_MIN_FABRIC_HUE, about 3 levels on a light backdrop, and three times the pocket's own), judged over at least
 * POCKET_MIN_HUE_AREA pixels (a mean of fewer is JPEG's chroma noise).
 */
export const POCKET_MIN_FABRIC_HUE = 0.012;
export const POCKET_MAX_OWN_HUE = 0.005;
/**
 * Hue is judged on pixels that keep at least this share of the backdrop model's brightness and are at least this
 * light (mean of the channels, of 255): on a dark pixel a few levels of JPEG's noise are a large share.
 */
const HUE_MIN_LIGHT = 0.5;
const HUE_MIN_LEVEL = 96;
export const POCKET_MIN_HUE_AREA = 16;
/** A region above this share of the mask is the garment itself: the photo's pockets are left closed. */
export const POCKET_LEAK_SHARE = 0.1;

/**
 * Opens the pockets in `reached` (1 = backdrop) in place. `fine`: pixels smooth and of the backdrop's colour or a
 * shadow of it; `tone`: of the backdrop's colour or a shadow of it, smooth or not; `hp`, `edge`: the high-pass
 * and the outline's threshold; `ch`, `model`: the image's channels and the backdrop model. Returns the number of
 * pixels opened.
 */
export function openPockets(
  reached: Uint8Array,
  fine: Uint8Array,
  tone: Uint8Array,
  hp: Float32Array,
  edge: number,
  ch: Float32Array[],
  model: Float32Array[],
  w: number,
  h: number,
): number {
  const n = w * h;
  // hue: each channel's ratio to the backdrop model over the three's mean, less 1 (0, 0, 0 for the backdrop and its
  // shadow); only where the pixel keeps HUE_MIN_LIGHT of the backdrop's brightness (a dark pixel's hue is noise)
  const hueOf = (i: number, out: Float64Array, at: number): boolean => {
    const k0 = ch[0]![i]! / Math.max(1, model[0]![i]!);
    const k1 = ch[1]![i]! / Math.max(1, model[1]![i]!);
    const k2 = ch[2]![i]! / Math.max(1, model[2]![i]!);
    const m = (k0 + k1 + k2) / 3;
    if (m < HUE_MIN_LIGHT || ch[0]![i]! + ch[1]![i]! + ch[2]![i]! < 3 * HUE_MIN_LEVEL) return false;
    out[at]! += k0 / m - 1;
    out[at + 1]! += k1 / m - 1;
    out[at + 2]! += k2 / m - 1;
    return true;
  };
  // the garment's own hue: the mean over the mask's inside, off its rim (RING pixels from the backdrop); a garment
  // mostly too dark to judge has none
  const rim = chessboardInside(
    Uint8Array.from(reached, (r) => 1 - r),
    w,
    h,
  );
  const fabricHue = new Float64Array(3);
  let fabricN = 0;
  let insideN = 0;
  for (let i = 0; i < n; i++)
    if (rim[i]! > RING && !reached[i]) {
      insideN++;
      if (hueOf(i, fabricHue, 0)) fabricN++;
    }
  const fabric = [0, 1, 2].map((c) => fabricHue[c]! / Math.max(1, fabricN));
  const hueful = fabricN >= insideN / 2 && Math.max(...fabric.map(Math.abs)) >= POCKET_MIN_FABRIC_HUE;
  // passable: fine, and not within one pixel of an edge (the outline closed by one pixel)
  const pass = Uint8Array.from(fine);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      if (hp[y * w + x]! < edge) continue;
      for (let yy = Math.max(0, y - 1); yy <= Math.min(h - 1, y + 1); yy++)
        for (let xx = Math.max(0, x - 1); xx <= Math.min(w - 1, x + 1); xx++) pass[yy * w + xx] = 0;
    }
  // a garment of a hue of its own: also passable, whatever JPEG's noise does to the high-pass, a pixel of the
  // backdrop's colour or shadow whose hue (3x3 mean) is much nearer the backdrop's than the fabric's
  const huePass = (): Uint8Array => {
    const pass2 = Uint8Array.from(pass);
    // only around the mask (its bounding box and 1 px): the rest is backdrop
    let x0 = w;
    let x1 = -1;
    let y0 = h;
    let y1 = -1;
    for (let y = 0; y < h; y++)
      for (let x = 0; x < w; x++)
        if (!reached[y * w + x]) {
          if (x < x0) x0 = x;
          if (x > x1) x1 = x;
          if (y < y0) y0 = y;
          if (y > y1) y1 = y;
        }
    if (x1 < 0) return pass2;
    x0 = Math.max(0, x0 - 1);
    y0 = Math.max(0, y0 - 1);
    x1 = Math.min(w - 1, x1 + 1);
    y1 = Math.min(h - 1, y1 + 1);
    const hue = new Float64Array(n * 3);
    const light = new Uint8Array(n);
    for (let y = y0; y <= y1; y++)
      for (let x = x0; x <= x1; x++) light[y * w + x] = hueOf(y * w + x, hue, (y * w + x) * 3) ? 1 : 0;
    const acc = new Float64Array(3);
    for (let y = y0; y <= y1; y++)
      for (let x = x0; x <= x1; x++) {
        const i = y * w + x;
        if (pass2[i] || !tone[i] || reached[i] || !light[i]) continue;
        acc.fill(0);
        let k = 0;
        for (let yy = Math.max(y0, y - 1); yy <= Math.min(y1, y + 1); yy++)
          for (let xx = Math.max(x0, x - 1); xx <= Math.min(x1, x + 1); xx++) {
            const j = yy * w + xx;
            if (!light[j]) continue;
            acc[0]! += hue[j * 3]!;
            acc[1]! += hue[j * 3 + 1]!;
            acc[2]! += hue[j * 3 + 2]!;
            k++;
          }
        let toBackdrop = 0;
        let toFabric = 0;
        for (let c = 0; c < 3; c++) {
          toBackdrop = Math.max(toBackdrop, Math.abs(acc[c]! / k));
          toFabric = Math.max(toFabric, Math.abs(acc[c]! / k - fabric[c]!));
        }
        if (3 * toBackdrop < toFabric) pass2[i] = 1;
      }
    return pass2;
  };
  // the flood from the backdrop through `passable`, and the regions it newly reaches opened where they are pockets:
  // by their brightness, or (byHue) by their hue alone
  const floodOpen = (passable: Uint8Array, byHue: boolean): number => {
    let maskArea = 0;
    for (let i = 0; i < n; i++) if (!reached[i]) maskArea++;

    // the flood from the backdrop through passable pixels: `added`, what it newly reaches
    const added = new Uint8Array(n);
    const stack = new Int32Array(n);
    let sp = 0;
    // seeded by the passable pixels next to the backdrop (the same as from every backdrop pixel)
    for (let i = 0; i < n; i++) {
      if (reached[i] || !passable[i]) continue;
      const x = i % w;
      if (
        (x > 0 && reached[i - 1]) ||
        (x < w - 1 && reached[i + 1]) ||
        (i >= w && reached[i - w]) ||
        (i < n - w && reached[i + w])
      ) {
        added[i] = 1;
        stack[sp++] = i;
      }
    }
    const visit = (j: number) => {
      if (passable[j] && !reached[j] && !added[j]) {
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
    const ownHue = new Float64Array(sizes.length * 3);
    const ownLight = new Int32Array(sizes.length);
    const ringSum = new Float64Array(sizes.length);
    const ringN = new Int32Array(sizes.length);
    const seen = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      const l = label[i]!;
      if (!l || !small[l]) continue;
      own[l]! += ratio(i);
      if (hueOf(i, ownHue, l * 3)) ownLight[l]!++;
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
    const open = new Uint8Array(sizes.length);
    for (let l = 1; l < sizes.length; l++) {
      if (!small[l] || !ringN[l]) continue;
      if (!byHue) {
        if (own[l]! / sizes[l]! - ringSum[l]! / ringN[l]! >= POCKET_MIN_CONTRAST) open[l] = 1;
      } else if (ownLight[l]! >= POCKET_MIN_HUE_AREA) {
        let ownH = 0;
        let apart = 0;
        for (let c = 0; c < 3; c++) {
          const o = ownHue[l * 3 + c]! / ownLight[l]!;
          ownH = Math.max(ownH, Math.abs(o));
          apart = Math.max(apart, Math.abs(fabric[c]! - o));
        }
        if (ownH <= POCKET_MAX_OWN_HUE && apart >= 3 * ownH) open[l] = 1;
      }
    }
    let opened = 0;
    for (let i = 0; i < n; i++) {
      if (!open[label[i]!]) continue;
      reached[i] = 1;
      opened++;
    }
    return opened;
  };
  // first through the smooth pixels, the pockets lighter than the garment around them; then, for a garment of a hue
  // of its own, also through the pixels of the backdrop's hue, the pockets of that hue
  let opened = floodOpen(pass, false);
  if (hueful) opened += floodOpen(huePass(), true);
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
