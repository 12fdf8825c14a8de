// Finding a garment that has (almost) the backdrop's colour: a white tee on a white sweep, a heather tee on light grey
// paper. Colour alone cannot separate them (garment-detect.ts's colour path), so this looks at what does differ:
//   - the backdrop's own falloff is modelled (a smooth quadratic surface per channel, fitted robustly to the border
//     and then to everything that looks like backdrop), so a vignette or a gradient on seamless paper is not garment;
//   - the outline and the fabric: a fine high-pass (each pixel against its 3x3 neighbourhood) is near zero on a smooth
//     sweep and on the soft ramps of a drop shadow, and high on a garment's edges, seams, folds and knit;
//   - the backdrop is flooded from the image's border through pixels that are smooth and either of the backdrop's
//     colour or a shadow of it (darker, same chromaticity); the outline, closed by one pixel, stops it, so whatever it
//     does not reach is garment (and what the garment encloses); a drop shadow's steep band next to the garment is
//     peeled off (garment-shadow.ts) and the pockets of backdrop between a sleeve and the body opened
//     (garment-pockets.ts);
//   - the regions left are returned, largest first, for the caller to pick the one that looks like the garment.
// Pure code on raw pixels: no sharp, no I/O.
import { openPockets } from './garment-pockets';
import { peelShadow } from './garment-shadow';
import { box3, boxMean, evalSurface, fitSurface, quantile, refine, ring } from './segment-filters';

export interface Pixels {
  data: Uint8Array;
  width: number;
  height: number;
  channels: 3 | 4;
}

export interface Segmentation {
  /** 1 = not backdrop (garment candidates, holes filled), per pixel */
  mask: Uint8Array;
  /** the backdrop model's colour at the image's centre */
  backdrop: [number, number, number];
  /** the high-pass threshold the outline was found with */
  edge: number;
}

/** Spread (75th percentile of the border's distance to the backdrop model) above which there is no clear backdrop. */
export const OUTLINE_MAX_SPREAD = 24;

/** Texture window radius (pixels of the detection copy). */
const TEX_RADIUS = 3;
/** Edge threshold: EDGE_K x the 95th percentile of the backdrop's high-pass, at least EDGE_MIN levels. */
const EDGE_K = 2.5;
const EDGE_MIN = 1.5;
/** Texture threshold: TEX_K x the 98th percentile of the backdrop's texture, at least TEX_MIN levels. */
const TEX_K = 1.1;
const TEX_MIN = 0.35;
/** A backdrop whose texture (98th percentile on the border) is above this is not smooth: the path declines. */
export const SMOOTH_MAX_TEX = 1.5;

/** Rounds of the boundary's pixel-level refinement. */
const REFINE_ROUNDS = 6;
/** A shadow keeps the backdrop's chromaticity: its channels darken alike, within this share (+ 4 levels). */
const SHADOW_CHROMA = 0.05;

/**
 * Separates whatever is not backdrop from a smooth backdrop of any colour, the garment's own included, by its outline
 * and texture. Returns the mask of everything the backdrop flood did not reach (holes filled), or why not.
 */
export function segmentByOutline(px: Pixels): { ok: true; seg: Segmentation } | { ok: false; reason: string } {
  const { data, width: w, height: h, channels } = px;
  const n = w * h;
  const ch = [0, 1, 2].map((c) => {
    const a = new Float32Array(n);
    for (let i = 0; i < n; i++) a[i] = data[i * channels + c]!;
    return a;
  });
  const b = Math.max(3, Math.round(Math.min(w, h) * 0.015));
  const border = ring(w, h, b);
  const inBorder = new Uint8Array(n);
  for (const i of border) inBorder[i] = 1;

  // the backdrop model: fitted to the border, then to every pixel close to the model (three rounds)
  const model = ch.map(() => new Float32Array(n));
  const dist = new Float32Array(n);
  const measure = () => {
    for (let i = 0; i < n; i++) {
      const d0 = Math.abs(ch[0]![i]! - model[0]![i]!);
      const d1 = Math.abs(ch[1]![i]! - model[1]![i]!);
      const d2 = Math.abs(ch[2]![i]! - model[2]![i]!);
      dist[i] = d0 > d1 ? (d0 > d2 ? d0 : d2) : d1 > d2 ? d1 : d2;
    }
  };
  let coef = fitSurface(ch, w, h, inBorder, 1);
  if (!coef) return { ok: false, reason: 'the image is too small' };
  coef.forEach((c, k) => evalSurface(c, w, h, model[k]!));
  measure();
  const borderDist = Array.from(border, (i) => dist[i]!);
  const spread = quantile(borderDist, 0.75);
  if (spread > OUTLINE_MAX_SPREAD)
    return { ok: false, reason: `no clear backdrop: the border varies by ${Math.round(spread)} levels around it` };
  for (let round = 0; round < 2; round++) {
    const tol = Math.max(4, 3 * quantile(borderDist, 0.9) + 2);
    // border pixels far from the model (a sleeve touching the edge) do not pull the fit
    const near = new Uint8Array(n);
    for (let i = 0; i < n; i++) near[i] = dist[i]! <= tol ? 1 : 0;
    const next = fitSurface(ch, w, h, near, 2);
    if (!next) break;
    coef = next;
    coef.forEach((c, k) => evalSurface(c, w, h, model[k]!));
    measure();
    for (let k = 0; k < border.length; k++) borderDist[k] = dist[border[k]!]!;
  }

  // the high-pass: each channel against its 3x3 mean, the largest of the three
  const hp = new Float32Array(n);
  const mean = new Float32Array(n);
  for (const c of ch) {
    box3(c, w, h, mean);
    for (let i = 0; i < n; i++) {
      const d = Math.abs(c[i]! - mean[i]!);
      if (d > hp[i]!) hp[i] = d;
    }
  }
  // texture: the high-pass's mean over a (2 TEX_RADIUS + 1)^2 window; knit and folds keep it up inside a garment
  const tex = boxMean(hp, w, h, TEX_RADIUS);
  // their spread on the backdrop (border pixels near the model) sets the thresholds
  const bhp: number[] = [];
  const btex: number[] = [];
  for (const i of border)
    if (dist[i]! <= 3 * spread + 4) {
      bhp.push(hp[i]!);
      btex.push(tex[i]!);
    }
  const backdropTex = quantile(btex, 0.98);
  if (backdropTex > SMOOTH_MAX_TEX)
    return { ok: false, reason: `the backdrop is not smooth (texture ${backdropTex.toFixed(1)} levels)` };
  const edge = Math.max(EDGE_MIN, EDGE_K * quantile(bhp, 0.95));
  const texT = Math.max(TEX_MIN, TEX_K * backdropTex);
  const tolD = Math.max(6, 3 * quantile(borderDist, 0.9) + 3);

  // passable: smooth, and of the backdrop's colour or a shadow of it (darker, the same chromaticity)
  const fine = new Uint8Array(n);
  const open = new Uint8Array(n);
  // of the backdrop's colour or a shadow of it, smooth or not
  const tone = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    let ok = dist[i]! < tolD;
    if (!ok) {
      const m0 = model[0]![i]!;
      const m1 = model[1]![i]!;
      const m2 = model[2]![i]!;
      const k0 = ch[0]![i]! / Math.max(1, m0);
      const k1 = ch[1]![i]! / Math.max(1, m1);
      const k2 = ch[2]![i]! / Math.max(1, m2);
      const kmax = k0 > k1 ? (k0 > k2 ? k0 : k2) : k1 > k2 ? k1 : k2;
      const kmin = k0 < k1 ? (k0 < k2 ? k0 : k2) : k1 < k2 ? k1 : k2;
      ok = kmax < 1 && kmax - kmin < SHADOW_CHROMA + 4 / Math.max(1, Math.min(m0, m1, m2));
    }
    if (!ok) continue;
    tone[i] = 1;
    if (hp[i]! >= edge) continue;
    fine[i] = 1;
    if (tex[i]! < texT) open[i] = 1;
  }
  // the flood from the border through smooth, untextured backdrop
  const reached = new Uint8Array(n);
  const stack = new Int32Array(n);
  let sp = 0;
  for (const i of border)
    if (open[i] && !reached[i]) {
      reached[i] = 1;
      stack[sp++] = i;
    }
  const flood = (allowed: Uint8Array) => {
    while (sp > 0) {
      const i = stack[--sp]!;
      const x = i % w;
      if (x > 0 && allowed[i - 1] && !reached[i - 1]) {
        reached[i - 1] = 1;
        stack[sp++] = i - 1;
      }
      if (x < w - 1 && allowed[i + 1] && !reached[i + 1]) {
        reached[i + 1] = 1;
        stack[sp++] = i + 1;
      }
      if (i >= w && allowed[i - w] && !reached[i - w]) {
        reached[i - w] = 1;
        stack[sp++] = i - w;
      }
      if (i < n - w && allowed[i + w] && !reached[i + w]) {
        reached[i + w] = 1;
        stack[sp++] = i + w;
      }
    }
  };
  flood(open);
  // the texture window stops the flood up to TEX_RADIUS pixels before the outline: from there, the backdrop grows
  // on smooth pixels of its colour (or shadow) alone, TEX_RADIUS + 1 steps at most (a gap cannot take the garment)
  let front: number[] = [];
  for (let i = 0; i < n; i++) {
    if (!reached[i]) continue;
    const x = i % w;
    if (
      (x > 0 && !reached[i - 1]) ||
      (x < w - 1 && !reached[i + 1]) ||
      (i >= w && !reached[i - w]) ||
      (i < n - w && !reached[i + w])
    )
      front.push(i);
  }
  for (let step = 0; step <= TEX_RADIUS && front.length; step++) {
    const next: number[] = [];
    for (const i of front) {
      const x = i % w;
      if (x > 0 && fine[i - 1] && !reached[i - 1]) {
        reached[i - 1] = 1;
        next.push(i - 1);
      }
      if (x < w - 1 && fine[i + 1] && !reached[i + 1]) {
        reached[i + 1] = 1;
        next.push(i + 1);
      }
      if (i >= w && fine[i - w] && !reached[i - w]) {
        reached[i - w] = 1;
        next.push(i - w);
      }
      if (i < n - w && fine[i + w] && !reached[i + w]) {
        reached[i + w] = 1;
        next.push(i + w);
      }
    }
    front = next;
  }
  // a soft drop shadow's steep part next to the garment, where the flood stopped: peeled off ring by ring
  peelShadow(reached, ch, model, w, h, SHADOW_CHROMA);
  // pockets of backdrop and shadow between a sleeve and the body, whose narrow mouth the flood did not pass
  openPockets(reached, fine, tone, hp, edge, ch, model, w, h);
  const mask = new Uint8Array(n);
  for (let i = 0; i < n; i++) mask[i] = reached[i] ? 0 : 1;
  // the outline to the pixel: the high-pass of a backdrop pixel next to the garment sees the garment, so the mask is a
  // pixel too wide; each pixel on the boundary goes to the side whose nearby pixels (5x5, off the boundary) it is
  // closer to in colour
  for (let round = 0; round < REFINE_ROUNDS; round++) refine(mask, ch, w, h);
  const c = (w >> 1) + (h >> 1) * w;
  return {
    ok: true,
    seg: { mask, backdrop: [model[0]![c]!, model[1]![c]!, model[2]![c]!].map(Math.round) as never, edge },
  };
}
