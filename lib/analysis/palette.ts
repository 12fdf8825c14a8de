// Counting printable colors the way a separator would: one ink per flat color area. Anti-aliased edges, JPEG
// noise and transparency must not each become a "color" (a crisp two-color logo is 2), while a photo or a gradient
// is many. The method, in order:
//
// 1. Pixels are split by alpha: solid (>= 250), translucent (32-249: feathered edges, shadows) and clear.
// 2. A solid pixel is an *edge* pixel when it differs sharply (L1 RGB distance > EDGE_DIFF) from a solid 8-neighbor.
//    Anti-aliasing, resampling and JPEG ringing all live on edges, so colors are first learnt from *interior*
//    pixels only: the inside of areas, where a printer's ink actually is. Interior colors are read through a 3x3
//    mean, which divides per-pixel noise by about three.
// 3. Interior pixels are binned (5 bits per channel) and the bins clustered greedily in CIELAB, most frequent first:
//    a bin joins the nearest cluster within MERGE_DE (CIE76), otherwise it starts a new one. Noise and compression
//    artifacts sit within MERGE_DE of their area's color, so they join it instead of adding colors.
// 4. A cluster counts as a color when it covers at least MIN_SHARE of the ink (smaller specks are noise to a
//    printer, and a screen is not burnt for them).
// 5. Edge and translucent pixels are then explained: near a counted color (same ink), on the straight RGB line
//    between two counted colors (anti-aliasing blends two inks), or else evidence of an ink that only occurs in
//    thin lines or small text, which has no interior at analysis resolution. Such leftovers are grouped - translucent
//    pixels by color, blended edge pixels by direction from the ink they blend with, since a hairline of ink C
//    on background B appears as a spread of B->C mixtures - and a group large enough counts as one more color.
// 6. Continuous tone is recognized spatially: in a gradient or photo, neighboring interior pixels belong to
//    different clusters with no edge between them ("soft boundaries"); in flat artwork colors only meet at edges.
// Step 5 is in fine-inks.ts; the tuning and the colour bins are in palette-tuning.ts.
import { rgbToLab, toHex, type Lab } from './color';
import { explainLeftovers } from './fine-inks';
import { BINS, binOf, PALETTE_TUNING } from './palette-tuning';

export interface RgbaInput {
  data: Uint8Array;
  width: number;
  height: number;
}

export interface InkColor {
  rgb: [number, number, number];
  hex: string;
  lab: Lab;
  /** Fraction of the ink (alpha-weighted coverage) this color accounts for. */
  share: number;
  /** 'area': found in flat areas; 'fine': only in thin lines, small text or translucent pixels. */
  kind: 'area' | 'fine';
}

export interface Palette {
  /** Counted colors, most coverage first. */
  colors: InkColor[];
  /** Pixel counts at analysis resolution. */
  pixels: { total: number; solid: number; translucent: number; clear: number };
  /** Some pixel is not fully opaque. */
  hasTransparency: boolean;
  /** Alpha-weighted share of the canvas that carries ink (0-1). */
  inkCoverage: number;
  /** Share of the ink that is translucent (soft shadows, glows, feathering). */
  translucentShare: number;
  /** Soft boundaries per interior pixel: ~0 for flat artwork, clearly positive for gradients and photos. */
  softBoundaryRate: number;
  /** Share of the ink in colors that blend into a neighboring color without an edge: gradient bands, photo tones. */
  tonalShare: number;
  /** Share of interior ink that sits in clusters too small to count: high for photos (a long tail of colors). */
  unclusteredShare: number;
  /** Share of solid pixels that are edge pixels (a detail measure at analysis resolution). */
  edgeShare: number;
  /**
   * Per pixel: index into `colors` for interior pixels of a counted color, -1 for everything else
   * (edge, translucent, clear, or a cluster too small to count).
   */
  labels: Int16Array;
}

interface Cluster {
  L: number;
  a: number;
  b: number;
  weight: number; // interior pixels
  sumR: number;
  sumG: number;
  sumB: number;
}

export function extractPalette(img: RgbaInput, tuning: Partial<typeof PALETTE_TUNING> = {}): Palette {
  const T = { ...PALETTE_TUNING, ...tuning };
  const { data, width: w, height: h } = img;
  const n = w * h;

  // --- 1+2: classify pixels, mark edges --------------------------------------------------------------------
  const edge = new Uint8Array(n);
  let solid = 0;
  let translucent = 0;
  let clear = 0;
  let inkWeight = 0;
  let translucentWeight = 0;
  let minAlpha = 255;
  for (let p = 0, i = 0; p < n; p++, i += 4) {
    const a = data[i + 3]!;
    if (a < minAlpha) minAlpha = a;
    if (a >= T.SOLID_ALPHA) {
      solid++;
      inkWeight += 1;
      // Compare with the right, lower-left, lower and lower-right neighbors: with the pairs marked both ways this
      // covers all 8 neighbors, so no interior pixel's 3x3 window (used for smoothing below) spans a hard edge.
      const x = p % w;
      const y = (p - x) / w;
      if (x + 1 < w) markEdge(data, edge, p, p + 1, T.SOLID_ALPHA, T.EDGE_DIFF);
      if (y + 1 < h) {
        markEdge(data, edge, p, p + w, T.SOLID_ALPHA, T.EDGE_DIFF);
        if (x + 1 < w) markEdge(data, edge, p, p + w + 1, T.SOLID_ALPHA, T.EDGE_DIFF);
        if (x > 0) markEdge(data, edge, p, p + w - 1, T.SOLID_ALPHA, T.EDGE_DIFF);
      }
    } else if (a >= T.MIN_ALPHA) {
      translucent++;
      inkWeight += a / 255;
      translucentWeight += a / 255;
    } else {
      clear++;
      inkWeight += a / 255;
    }
  }

  // Interior colors are taken from a 3x3 mean over solid neighbors: it divides per-pixel noise (sensor grain,
  // JPEG blocks, dithering) by about three without moving flat colors or bending linear gradients. Edges and fine
  // lines keep their original pixels below.
  const smooth = smoothSolid(data, w, h, T.SOLID_ALPHA);

  // Histograms: interior pixels, blended (solid edge) pixels, translucent pixels.
  const hInt = new Uint32Array(BINS);
  const sInt = new Float64Array(BINS * 3);
  const hEdge = new Uint32Array(BINS);
  const sEdge = new Float64Array(BINS * 3);
  const hTr = new Float64Array(BINS);
  const sTr = new Float64Array(BINS * 3);
  const pixBin = new Int32Array(n).fill(-1);
  let interior = 0;
  let edgeCount = 0;
  for (let p = 0, i = 0; p < n; p++, i += 4) {
    const a = data[i + 3]!;
    if (a < T.MIN_ALPHA) continue;
    const r = data[i]!;
    const g = data[i + 1]!;
    const b = data[i + 2]!;
    const k = binOf(r, g, b);
    if (a >= T.SOLID_ALPHA) {
      if (edge[p]) {
        edgeCount++;
        hEdge[k]!++;
        sEdge[k * 3]! += r;
        sEdge[k * 3 + 1]! += g;
        sEdge[k * 3 + 2]! += b;
      } else {
        interior++;
        const sr = smooth[p * 3]!;
        const sg = smooth[p * 3 + 1]!;
        const sb = smooth[p * 3 + 2]!;
        const ks = binOf(sr, sg, sb);
        pixBin[p] = ks;
        hInt[ks]!++;
        sInt[ks * 3]! += sr;
        sInt[ks * 3 + 1]! += sg;
        sInt[ks * 3 + 2]! += sb;
      }
    } else {
      const wgt = a / 255;
      hTr[k]! += wgt;
      sTr[k * 3]! += r * wgt;
      sTr[k * 3 + 1]! += g * wgt;
      sTr[k * 3 + 2]! += b * wgt;
    }
  }

  // --- 3: cluster interior bins, most frequent first --------------------------------------------------------
  const occupied: number[] = [];
  for (let k = 0; k < BINS; k++) if (hInt[k]! > 0) occupied.push(k);
  occupied.sort((x, y) => hInt[y]! - hInt[x]!);
  const clusters: Cluster[] = [];
  const binCluster = new Int16Array(BINS).fill(-1);
  const mergeSq = T.MERGE_DE * T.MERGE_DE;
  const seedMin = Math.max(2, T.SEED_SHARE * interior);
  let unclustered = 0;
  for (const k of occupied) {
    const cnt = hInt[k]!;
    const r = sInt[k * 3]! / cnt;
    const g = sInt[k * 3 + 1]! / cnt;
    const b = sInt[k * 3 + 2]! / cnt;
    const [L, A, B] = rgbToLab(r, g, b);
    let best = -1;
    let bestD = Infinity;
    for (let c = 0; c < clusters.length; c++) {
      const cl = clusters[c]!;
      const d = (cl.L - L) ** 2 + (cl.a - A) ** 2 + (cl.b - B) ** 2;
      if (d < bestD) {
        bestD = d;
        best = c;
      }
    }
    if (best >= 0 && bestD <= mergeSq) {
      const cl = clusters[best]!;
      const tot = cl.weight + cnt;
      cl.L = (cl.L * cl.weight + L * cnt) / tot;
      cl.a = (cl.a * cl.weight + A * cnt) / tot;
      cl.b = (cl.b * cl.weight + B * cnt) / tot;
      cl.weight = tot;
      cl.sumR += sInt[k * 3]!;
      cl.sumG += sInt[k * 3 + 1]!;
      cl.sumB += sInt[k * 3 + 2]!;
      binCluster[k] = best;
    } else if (cnt >= seedMin && clusters.length < T.MAX_CLUSTERS) {
      binCluster[k] = clusters.length;
      clusters.push({ L, a: A, b: B, weight: cnt, sumR: sInt[k * 3]!, sumG: sInt[k * 3 + 1]!, sumB: sInt[k * 3 + 2]! });
    } else {
      unclustered += cnt;
    }
  }

  // --- 4: clusters large enough to be an ink -----------------------------------------------------------------
  const minWeight = Math.max(4, T.MIN_SHARE * inkWeight);
  const counted: number[] = [];
  clusters.forEach((c, i) => {
    if (c.weight >= minWeight) counted.push(i);
    else unclustered += c.weight;
  });
  const inks = counted.map((i) => {
    const c = clusters[i]!;
    const rgb: [number, number, number] = [c.sumR / c.weight, c.sumG / c.weight, c.sumB / c.weight];
    return { rgb, lab: rgbToLab(...rgb) as Lab, weight: c.weight, kind: 'area' as 'area' | 'fine' };
  });

  // --- 5: explain translucent and edge pixels ----------------------------------------------------------------
  if (inks.length <= T.EXPLAIN_UP_TO) {
    const fine = explainLeftovers(inks, { hEdge, sEdge, hTr, sTr }, T, minWeight);
    for (const f of fine) inks.push({ ...f, kind: 'fine' });
  }

  // Order by coverage and relabel pixels with the final indices.
  const order = inks.map((_, i) => i).sort((x, y) => inks[y]!.weight - inks[x]!.weight);
  const finalIndex = new Int16Array(inks.length);
  order.forEach((old, i) => (finalIndex[old] = i));
  const clusterToInk = new Int16Array(clusters.length).fill(-1);
  counted.forEach((ci, inkIdx) => (clusterToInk[ci] = finalIndex[inkIdx]!));
  const labels = new Int16Array(n).fill(-1);
  for (let p = 0; p < n; p++) {
    const k = pixBin[p]!;
    if (k < 0) continue;
    const c = binCluster[k]!;
    if (c >= 0) labels[p] = clusterToInk[c]!;
  }

  // --- 6: soft boundaries between counted colors inside areas -----------------------------------------------
  let soft = 0;
  const softOf = new Float64Array(inks.length);
  for (let p = 0; p < n; p++) {
    const l = labels[p]!;
    if (l < 0) continue;
    if ((p % w) + 1 < w) {
      const r = labels[p + 1]!;
      if (r >= 0 && r !== l) {
        soft++;
        softOf[l]!++;
        softOf[r]!++;
      }
    }
    if (p + w < n) {
      const d = labels[p + w]!;
      if (d >= 0 && d !== l) {
        soft++;
        softOf[l]!++;
        softOf[d]!++;
      }
    }
  }

  const totalInkWeight = inks.reduce((s, c) => s + c.weight, 0) || 1;
  // A color is a band of a gradient when a noticeable part of it borders another color without an edge. Its
  // interior size comes from the labels (final indices), so fine-detail inks (no interior) are never tonal.
  const interiorOf = new Float64Array(inks.length);
  for (let p = 0; p < n; p++) if (labels[p]! >= 0) interiorOf[labels[p]!]!++;
  let tonalWeight = 0;
  order.forEach((old, i) => {
    if (interiorOf[i]! > 0 && softOf[i]! / interiorOf[i]! >= T.TONAL_RATE) tonalWeight += inks[old]!.weight;
  });
  const colors: InkColor[] = order.map((i) => {
    const c = inks[i]!;
    return {
      rgb: c.rgb.map((v) => Math.round(v)) as [number, number, number],
      hex: toHex(...c.rgb),
      lab: c.lab,
      share: c.weight / totalInkWeight,
      kind: c.kind,
    };
  });

  return {
    colors,
    pixels: { total: n, solid, translucent, clear },
    hasTransparency: minAlpha < 255,
    inkCoverage: n ? inkWeight / n : 0,
    translucentShare: inkWeight ? translucentWeight / inkWeight : 0,
    softBoundaryRate: interior ? soft / interior : 0,
    tonalShare: tonalWeight / totalInkWeight,
    unclusteredShare: interior ? unclustered / interior : 0,
    edgeShare: solid ? edgeCount / solid : 0,
    labels,
  };
}

/** Marks pixels p and q as edge pixels when both are solid and differ sharply (L1 distance in RGB). */
function markEdge(data: Uint8Array, edge: Uint8Array, p: number, q: number, solidAlpha: number, diff: number): void {
  const i = p * 4;
  const j = q * 4;
  if (data[j + 3]! < solidAlpha) return;
  const d =
    Math.abs(data[i]! - data[j]!) + Math.abs(data[i + 1]! - data[j + 1]!) + Math.abs(data[i + 2]! - data[j + 2]!);
  if (d > diff) edge[p] = edge[q] = 1;
}

/** 3x3 mean of each solid pixel over its solid neighbors (RGB, rounded), as a packed RGB array. */
function smoothSolid(data: Uint8Array, w: number, h: number, solidAlpha: number): Uint8Array {
  const out = new Uint8Array(w * h * 3);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const p = y * w + x;
      if (data[p * 4 + 3]! < solidAlpha) continue;
      let r = 0;
      let g = 0;
      let b = 0;
      let n = 0;
      for (let dy = -1; dy <= 1; dy++) {
        const yy = y + dy;
        if (yy < 0 || yy >= h) continue;
        for (let dx = -1; dx <= 1; dx++) {
          const xx = x + dx;
          if (xx < 0 || xx >= w) continue;
          const i = (yy * w + xx) * 4;
          if (data[i + 3]! < solidAlpha) continue;
          r += data[i]!;
          g += data[i + 1]!;
          b += data[i + 2]!;
          n++;
        }
      }
      out[p * 3] = Math.round(r / n);
      out[p * 3 + 1] = Math.round(g / n);
      out[p * 3 + 2] = Math.round(b / n);
    }
  }
  return out;
}
