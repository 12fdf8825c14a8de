// Finding a garment that has (almost) the backdrop's colour: a white tee on a white sweep, a heather tee on light grey
// paper. Colour alone cannot separate them (garment-detect.ts's colour path), so this looks at what does differ:
//   - the backdrop's own falloff is modelled (a smooth quadratic surface per channel, fitted robustly to the border
//     and then to everything that looks like backdrop), so a vignette or a gradient on seamless paper is not garment;
//   - the outline and the fabric: a fine high-pass (each pixel against its 3x3 neighbourhood) is near zero on a smooth
//     sweep and on the soft ramps of a drop shadow, and high on a garment's edges, seams, folds and knit;
//   - the backdrop is flooded from the image's border through pixels that are smooth and either of the backdrop's
//     colour or a shadow of it (darker, same chromaticity); the outline, closed by one pixel, stops it, so whatever it
//     does not reach is garment (and what the garment encloses);
//   - the regions left are returned, largest first, for the caller to pick the one that looks like the garment.
// Pure code on raw pixels: no sharp, no I/O.

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

/** One round of boundary refinement (see segmentByOutline), in place. */
function refine(mask: Uint8Array, ch: Float32Array[], w: number, h: number): void {
  const n = w * h;
  const edge = new Uint8Array(n);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      const m = mask[i];
      if (
        (x > 0 && mask[i - 1] !== m) ||
        (x < w - 1 && mask[i + 1] !== m) ||
        (y > 0 && mask[i - w] !== m) ||
        (y < h - 1 && mask[i + w] !== m)
      )
        edge[i] = 1;
    }
  const next = Uint8Array.from(mask);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      if (!edge[i]) continue;
      const sums = [0, 0, 0, 0, 0, 0];
      let ng = 0;
      let nb = 0;
      for (let dy = -2; dy <= 2; dy++) {
        const yy = y + dy;
        if (yy < 0 || yy >= h) continue;
        for (let dx = -2; dx <= 2; dx++) {
          const xx = x + dx;
          if (xx < 0 || xx >= w) continue;
          const j = yy * w + xx;
          if (edge[j]) continue;
          const o = mask[j] ? 0 : 3;
          sums[o]! += ch[0]![j]!;
          sums[o + 1]! += ch[1]![j]!;
          sums[o + 2]! += ch[2]![j]!;
          if (mask[j]) ng++;
          else nb++;
        }
      }
      if (!ng || !nb) continue;
      let dg = 0;
      let db = 0;
      for (let c = 0; c < 3; c++) {
        const v = ch[c]![i]!;
        dg += (v - sums[c]! / ng) ** 2;
        db += (v - sums[c + 3]! / nb) ** 2;
      }
      next[i] = dg < db ? 1 : 0;
    }
  mask.set(next);
}

/** Mean over a (2r+1)^2 window (edges clamped), by running sums. */
function boxMean(src: Float32Array, w: number, h: number, r: number): Float32Array {
  const tmp = new Float32Array(w * h);
  const out = new Float32Array(w * h);
  for (let y = 0; y < h; y++) {
    const row = y * w;
    let s = 0;
    for (let x = -r - 1; x < r; x++) s += src[row + Math.min(w - 1, Math.max(0, x))]!;
    for (let x = 0; x < w; x++) {
      s += src[row + Math.min(w - 1, x + r)]! - src[row + Math.max(0, x - r - 1)]!;
      tmp[row + x] = s;
    }
  }
  const k = (2 * r + 1) * (2 * r + 1);
  for (let x = 0; x < w; x++) {
    let s = 0;
    for (let y = -r - 1; y < r; y++) s += tmp[Math.min(h - 1, Math.max(0, y)) * w + x]!;
    for (let y = 0; y < h; y++) {
      s += tmp[Math.min(h - 1, y + r) * w + x]! - tmp[Math.max(0, y - r - 1) * w + x]!;
      out[y * w + x] = s / k;
    }
  }
  return out;
}

/** Quadratic surface a + b u + c v + d u^2 + e uv + f v^2 (u, v in -0.5..0.5), least squares over chosen pixels. */
function fitSurface(ch: Float32Array[], w: number, h: number, use: Uint8Array, step: number): Float64Array[] | null {
  const A = new Float64Array(36);
  const B = ch.map(() => new Float64Array(6));
  const f = new Float64Array(6);
  let n = 0;
  for (let y = 0; y < h; y += step) {
    const v = y / (h - 1) - 0.5;
    for (let x = 0; x < w; x += step) {
      const i = y * w + x;
      if (!use[i]) continue;
      const u = x / (w - 1) - 0.5;
      f[0] = 1;
      f[1] = u;
      f[2] = v;
      f[3] = u * u;
      f[4] = u * v;
      f[5] = v * v;
      const v0 = ch[0]![i]!;
      const v1 = ch[1]![i]!;
      const v2 = ch[2]![i]!;
      for (let a = 0; a < 6; a++) {
        const fa = f[a]!;
        for (let b = a; b < 6; b++) A[a * 6 + b]! += fa * f[b]!;
        B[0]![a]! += fa * v0;
        B[1]![a]! += fa * v1;
        B[2]![a]! += fa * v2;
      }
      n++;
    }
  }
  if (n < 24) return null;
  for (let a = 0; a < 6; a++) for (let b = 0; b < a; b++) A[a * 6 + b] = A[b * 6 + a]!;
  // a little ridge on the curvature terms: a border-only fit must not invent a bowl in the middle
  for (const k of [3, 4, 5]) A[k * 6 + k]! += n * 1e-3;
  return B.map((rhs) => solve6(A, rhs));
}

function solve6(Ain: Float64Array, bin: Float64Array): Float64Array {
  const A = Float64Array.from(Ain);
  const b = Float64Array.from(bin);
  for (let c = 0; c < 6; c++) {
    let p = c;
    for (let r = c + 1; r < 6; r++) if (Math.abs(A[r * 6 + c]!) > Math.abs(A[p * 6 + c]!)) p = r;
    if (p !== c) {
      for (let k = 0; k < 6; k++) [A[c * 6 + k], A[p * 6 + k]] = [A[p * 6 + k]!, A[c * 6 + k]!];
      [b[c], b[p]] = [b[p]!, b[c]!];
    }
    const d = A[c * 6 + c]! || 1e-12;
    for (let r = c + 1; r < 6; r++) {
      const m = A[r * 6 + c]! / d;
      if (!m) continue;
      for (let k = c; k < 6; k++) A[r * 6 + k]! -= m * A[c * 6 + k]!;
      b[r]! -= m * b[c]!;
    }
  }
  const x = new Float64Array(6);
  for (let r = 5; r >= 0; r--) {
    let s = b[r]!;
    for (let k = r + 1; k < 6; k++) s -= A[r * 6 + k]! * x[k]!;
    x[r] = s / (A[r * 6 + r]! || 1e-12);
  }
  return x;
}

function evalSurface(coef: Float64Array, w: number, h: number, out: Float32Array): void {
  for (let y = 0; y < h; y++) {
    const v = y / (h - 1) - 0.5;
    for (let x = 0; x < w; x++) {
      const u = x / (w - 1) - 0.5;
      out[y * w + x] = coef[0]! + coef[1]! * u + coef[2]! * v + coef[3]! * u * u + coef[4]! * u * v + coef[5]! * v * v;
    }
  }
}

/** Indices of a ring `b` pixels wide along the image's edges. */
export function ring(w: number, h: number, b: number): Int32Array {
  const out: number[] = [];
  for (let y = 0; y < h; y++) {
    const edgeRow = y < b || y >= h - b;
    for (let x = 0; x < w; x++) if (edgeRow || x < b || x >= w - b) out.push(y * w + x);
  }
  return Int32Array.from(out);
}

function quantile(values: Float32Array | number[], q: number): number {
  const s = Float32Array.from(values).sort();
  return s.length ? s[Math.min(s.length - 1, Math.floor(s.length * q))]! : 0;
}

/** 3x3 box mean of one channel (edges replicated). */
function box3(src: Float32Array, w: number, h: number, out: Float32Array): void {
  const tmp = new Float32Array(w * h);
  for (let y = 0; y < h; y++) {
    const r = y * w;
    for (let x = 0; x < w; x++) {
      const a = src[r + (x > 0 ? x - 1 : 0)]!;
      const c = src[r + (x < w - 1 ? x + 1 : w - 1)]!;
      tmp[r + x] = a + src[r + x]! + c;
    }
  }
  for (let y = 0; y < h; y++) {
    const up = (y > 0 ? y - 1 : 0) * w;
    const dn = (y < h - 1 ? y + 1 : h - 1) * w;
    const r = y * w;
    for (let x = 0; x < w; x++) out[r + x] = (tmp[up + x]! + tmp[r + x]! + tmp[dn + x]!) / 9;
  }
}

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
  for (let i = 0; i < n; i++) {
    if (hp[i]! >= edge) continue;
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
