// A plain garment on a textured backdrop (a bed sheet, a rug, a wooden floor, patterned wallpaper): neither a smooth
// backdrop for the outline path (garment-segment.ts) nor one colour for the colour path (garment-detect.ts). What holds
// instead is that the garment is one plain colour and lies in the middle of the photo, and that the backdrop is what
// the photo's border shows: a graph cut (garment-graphcut.ts) seeded by the photo's centre (garment) and its border
// (backdrop) splits the photo where the two sides' colours differ and along the strongest edges between them, so a
// white tee on a light patterned sheet, or a pink one on a floor of its colour, keeps its own outline; the boundary is
// then refined to the pixel and the region holding the centre, holes filled, is the garment. A border of every hue
// (no backdrop) or a centre that is not one plain colour (a print, a busy photo) is declined. Pure code on raw pixels.
import { boxMean, quantile, refine, ring } from './segment-filters';
import { labelComponents } from './garment-regions';
import { graphCutMask } from './garment-graphcut';

export interface SeededPixels {
  data: Uint8Array;
  width: number;
  height: number;
  channels: 3 | 4;
}

/** The seed: the middle SEED_SHARE of the photo's width and height. */
const SEED_SHARE = 0.2;
/** A seed whose colour varies more than this (75th percentile, levels) is not one plain garment. */
const SEED_MAX_SPREAD = 28;
/**
 * A border whose hue (the colour less its brightness) varies more than this around its median (75th percentile,
 * levels) is no backdrop: declined. Floors, sheets and rugs of corpus (b): 14-23; a collage of random colours: 70+.
 */
export const SEEDED_MAX_BORDER_HUE = 45;
/** Rounds of the boundary's pixel-level refinement (the cut runs on a half-size copy). */
const REFINE_ROUNDS = 3;

/** The mask (0/1) of the plain garment holding the photo's centre, or why there is none. */
export function seededGarmentMask(px: SeededPixels): { ok: true; mask: Uint8Array } | { ok: false; reason: string } {
  const { data, width: w, height: h, channels } = px;
  const n = w * h;
  const r = Math.max(1, Math.round(Math.min(w, h) * 0.005));
  const ch = [0, 1, 2].map((c) => {
    const a = new Float32Array(n);
    for (let i = 0; i < n; i++) a[i] = data[i * channels + c]!;
    return boxMean(a, w, h, r);
  });
  const luma = new Float32Array(n);
  for (let i = 0; i < n; i++) luma[i] = (ch[0]![i]! + ch[1]![i]! + ch[2]![i]!) / 3;
  const border = ring(w, h, Math.max(2, Math.round(Math.min(w, h) * 0.01)));
  const med = ch.map((c) =>
    quantile(
      Array.from(border, (i) => c[i]!),
      0.5,
    ),
  );
  // a backdrop (wood, a sheet, a rug) varies in brightness more than in hue; a border of every hue is no backdrop
  const ml = (med[0]! + med[1]! + med[2]!) / 3;
  const bhue = quantile(
    Array.from(border, (i) => Math.max(...ch.map((c, k) => Math.abs(c[i]! - luma[i]! - (med[k]! - ml))))),
    0.75,
  );
  if (bhue > SEEDED_MAX_BORDER_HUE)
    return { ok: false, reason: `no backdrop: the border's hue varies by ${Math.round(bhue)} levels` };
  const seed: number[] = [];
  const x0 = Math.round(w * (0.5 - SEED_SHARE / 2));
  const y0 = Math.round(h * (0.5 - SEED_SHARE / 2));
  for (let y = y0; y < h - y0; y++) for (let x = x0; x < w - x0; x++) seed.push(y * w + x);
  const c0 = ch.map((c) =>
    quantile(
      seed.map((i) => c[i]!),
      0.5,
    ),
  );
  const l0 = (c0[0]! + c0[1]! + c0[2]!) / 3;
  // hue: the colour with its brightness taken out; brightness: the mean of the channels
  const hue = (i: number) => Math.max(...ch.map((c, k) => Math.abs(c[i]! - luma[i]! - (c0[k]! - l0))));
  const lum = (i: number) => Math.abs(luma[i]! - l0);
  const sh = quantile(seed.map(hue), 0.75);
  const sl = quantile(seed.map(lum), 0.75);
  if (Math.max(sh, sl) > SEED_MAX_SPREAD)
    return { ok: false, reason: 'the middle of the photo is not one plain colour' };
  // the garment's side of a graph cut seeded by the centre (garment) and the border (backdrop), its boundary then
  // refined to the pixel on the full-size grid
  const inSeed = new Uint8Array(n);
  for (const i of seed) inSeed[i] = 1;
  const inBorder = new Uint8Array(n);
  for (const i of border) inBorder[i] = 1;
  const mask = graphCutMask(px, { garment: inSeed, backdrop: inBorder });
  const raw = [0, 1, 2].map((c) => {
    const a = new Float32Array(n);
    for (let i = 0; i < n; i++) a[i] = data[i * channels + c]!;
    return a;
  });
  for (let round = 0; round < REFINE_ROUNDS; round++) refine(mask, raw, w, h);
  // the component that holds most of the seed
  const { label, sizes } = labelComponents(mask, w, h);
  const count = new Map<number, number>();
  for (const i of seed) if (label[i]) count.set(label[i]!, (count.get(label[i]!) ?? 0) + 1);
  let best = 0;
  let bestN = 0;
  for (const [id, c] of count) if (c > bestN) [best, bestN] = [id, c];
  if (!best || bestN < 0.3 * seed.length || !sizes[best]) return { ok: false, reason: 'no plain region in the middle' };
  for (let i = 0; i < n; i++) mask[i] = label[i] === best ? 1 : 0;
  return { ok: true, mask };
}
