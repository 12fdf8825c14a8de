// A plain garment on a textured or same-coloured backdrop (a bed sheet, a rug, a wooden floor, patterned wallpaper):
// a graph cut seeded by the photo's border (backdrop) and its centre (garment), as in GrabCut. Each pixel pays for
// the label it gets by how unlikely its colour is under that side's colour model (a histogram of the colours the side
// holds), and each pair of neighbours pays for being split, little across a strong edge and much inside a smooth
// area: the cheapest split (a minimum cut, maxflow.ts) follows the garment's outline where the colours alone are
// ambiguous. The colour models are re-estimated from the split and the cut re-run. Pure code on raw pixels.
import { minCut } from './maxflow';

export interface CutPixels {
  data: Uint8Array;
  width: number;
  height: number;
  channels: 3 | 4;
}

/** The cut runs on a copy shrunk by this factor (the boundary is then refined at full size by the caller). */
const SHRINK = 2;
/** Bits per axis of the colour histograms (brightness, red-blue, green-magenta). */
const BITS = 4;
/** Levels per bin: brightness (of 0-255; 8 bins used), and the two colour axes (around neutral grey). */
const LUMA_STEP = 32;
const CHROMA_STEP = 6;
/** Probability floor: a colour neither side holds costs both the same. */
const FLOOR = 1e-4;
/** Weight of the smoothness term (per neighbour pair, in the data term's units). */
const SMOOTH = 30;
/** Fixed-point scale of the capacities. */
const SCALE = 64;
/** Rounds of model re-estimation and cut. */
const ROUNDS = 3;

export interface CutSeeds {
  /** 1: garment for certain (the centre), per pixel of the full-size grid */
  garment: Uint8Array;
  /** 1: backdrop for certain (the border), per pixel of the full-size grid */
  backdrop: Uint8Array;
}

/** The garment's side of the minimum cut (0/1, full-size grid), seeded as given. */
export function graphCutMask(px: CutPixels, seeds: CutSeeds): Uint8Array {
  const { data, width: W, height: H, channels } = px;
  const w = Math.max(1, Math.floor(W / SHRINK));
  const h = Math.max(1, Math.floor(H / SHRINK));
  const n = w * h;
  // the shrunk copy (box mean) and the seeds on it (any full-size seed pixel in the cell)
  const rgb = new Float32Array(n * 3);
  const fgSeed = new Uint8Array(n);
  const bgSeed = new Uint8Array(n);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      let r = 0;
      let g = 0;
      let b = 0;
      for (let dy = 0; dy < SHRINK; dy++)
        for (let dx = 0; dx < SHRINK; dx++) {
          const j = (y * SHRINK + dy) * W + x * SHRINK + dx;
          r += data[j * channels]!;
          g += data[j * channels + 1]!;
          b += data[j * channels + 2]!;
          if (seeds.garment[j]) fgSeed[i] = 1;
          if (seeds.backdrop[j]) bgSeed[i] = 1;
        }
      const k = SHRINK * SHRINK;
      rgb[i * 3] = r / k;
      rgb[i * 3 + 1] = g / k;
      rgb[i * 3 + 2] = b / k;
    }
  for (let y = 0; y < h; y++) {
    bgSeed[y * w] = 1;
    bgSeed[y * w + w - 1] = 1;
  }
  for (let x = 0; x < w; x++) {
    bgSeed[x] = 1;
    bgSeed[n - w + x] = 1;
  }
  // each pixel's histogram bin: brightness coarse (shading and folds move it), the colour itself fine
  const bin = new Int32Array(n);
  const top = (1 << BITS) - 1;
  const mid = 1 << (BITS - 1);
  for (let i = 0; i < n; i++) {
    const R = rgb[i * 3]!;
    const G = rgb[i * 3 + 1]!;
    const B = rgb[i * 3 + 2]!;
    const l = Math.min(top, Math.floor((R + G + B) / 3 / LUMA_STEP));
    const c1 = Math.max(0, Math.min(top, Math.floor((R - B) / CHROMA_STEP + mid)));
    const c2 = Math.max(0, Math.min(top, Math.floor(((R + B) / 2 - G) / CHROMA_STEP + mid)));
    bin[i] = (l << (2 * BITS)) | (c1 << BITS) | c2;
  }

  // pairwise weights: exp(-beta |dI|^2), beta from the mean squared difference of neighbours (GrabCut's)
  let sum = 0;
  let cnt = 0;
  const diff2 = (i: number, j: number) => {
    const a = rgb[i * 3]! - rgb[j * 3]!;
    const b = rgb[i * 3 + 1]! - rgb[j * 3 + 1]!;
    const c = rgb[i * 3 + 2]! - rgb[j * 3 + 2]!;
    return a * a + b * b + c * c;
  };
  const right = new Float32Array(n);
  const down = new Float32Array(n);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      if (x < w - 1) {
        right[i] = diff2(i, i + 1);
        sum += right[i]!;
        cnt++;
      }
      if (y < h - 1) {
        down[i] = diff2(i, i + w);
        sum += down[i]!;
        cnt++;
      }
    }
  const beta = cnt && sum ? cnt / (2 * sum) : 0;
  const pair = new Int32Array(n * 4);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      if (x < w - 1) {
        const c = Math.round(SCALE * SMOOTH * Math.exp(-beta * right[i]!));
        pair[i * 4 + 1] = c;
        pair[(i + 1) * 4] = c;
      }
      if (y < h - 1) {
        const c = Math.round(SCALE * SMOOTH * Math.exp(-beta * down[i]!));
        pair[i * 4 + 3] = c;
        pair[(i + w) * 4 + 2] = c;
      }
    }

  let label: Uint8Array = Uint8Array.from(fgSeed);
  const bins = 1 << (3 * BITS);
  for (let round = 0; round < ROUNDS; round++) {
    // colour models: the garment's from what is labelled garment (the centre at first), the backdrop's from the rest
    // (the border at first)
    const fg = new Float32Array(bins);
    const bg = new Float32Array(bins);
    let nf = 0;
    let nb = 0;
    for (let i = 0; i < n; i++) {
      if (label[i]) {
        fg[bin[i]!]!++;
        nf++;
      } else if (round > 0 || bgSeed[i]) {
        bg[bin[i]!]!++;
        nb++;
      }
    }
    const pf = blurHistogram(fg, nf);
    const pb = blurHistogram(bg, nb);
    const terminal = new Int32Array(n);
    const big = SCALE * 1000;
    for (let i = 0; i < n; i++) {
      if (fgSeed[i]) terminal[i] = big;
      else if (bgSeed[i]) terminal[i] = -big;
      else {
        // cost of backdrop minus cost of garment: -ln pb + ln pf
        const c = Math.log(pf[bin[i]!]! + FLOOR) - Math.log(pb[bin[i]!]! + FLOOR);
        terminal[i] = Math.round(SCALE * c);
      }
    }
    const next = minCut({ width: w, height: h, terminal, edges: Int32Array.from(pair) });
    let changed = 0;
    for (let i = 0; i < n; i++) if (next[i] !== label[i]) changed++;
    label = next;
    if (round > 0 && changed < n * 0.001) break;
  }
  // back to full size (nearest cell; the last column or row of an odd size takes its neighbour's)
  const out = new Uint8Array(W * H);
  for (let y = 0; y < H; y++) {
    const sy = Math.min(h - 1, Math.floor(y / SHRINK));
    for (let x = 0; x < W; x++) out[y * W + x] = label[sy * w + Math.min(w - 1, Math.floor(x / SHRINK))]!;
  }
  return out;
}

/** A histogram (count per bin of 2^BITS per channel) smoothed by a 3x3x3 box, as probabilities. */
function blurHistogram(hist: Float32Array, total: number): Float32Array {
  const s = 1 << BITS;
  let cur = hist;
  for (let axis = 0; axis < 3; axis++) {
    const stride = 1 << (axis * BITS);
    const next = new Float32Array(cur.length);
    for (let i = 0; i < cur.length; i++) {
      const c = (i >> (axis * BITS)) & (s - 1);
      let v = cur[i]!;
      let k = 1;
      if (c > 0) {
        v += cur[i - stride]!;
        k++;
      }
      if (c < s - 1) {
        v += cur[i + stride]!;
        k++;
      }
      next[i] = v / k;
    }
    cur = next;
  }
  const t = Math.max(1, total);
  for (let i = 0; i < cur.length; i++) cur[i] = cur[i]! / t;
  return cur;
}
