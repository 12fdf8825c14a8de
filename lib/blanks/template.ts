/**
 * Per silhouette/view/size "white garment" template: luminance (shade),
 * sheen, alpha mask and background (with drop shadow). Rendered once and
 * cached; colorizing a template for one color is cheap (see render.ts).
 */
import type { Geometry, Silhouette, View } from './geometry';
import { hashString, fbm, knitGrain } from './noise';
import { type FloatImage, bbox, blur, blurSparse, rasterize, rasterizeBytes, resize } from './raster';
import { geometry } from './silhouettes';
import { detailSvg, foldSvg, partsSvg, pxPerInch } from './svg';

export interface Template {
  size: number;
  /** garment shading, fixed point: shade = value / SHADE_ONE (1.0 = flat, front-lit fabric) */
  shade: Uint16Array;
  /** specular sheen 0..255 */
  spec: Uint8Array;
  /** garment coverage 0..255 */
  alpha: Uint8Array;
  /** background luminance 0..255 including vignette and drop shadow */
  bg: Uint8Array;
}

export const SHADE_ONE = 16000;

/** Light direction (towards the light): from the upper left, mostly frontal. */
const LIGHT = (() => {
  const v = [-0.4, -0.6, 1];
  const n = Math.hypot(v[0]!, v[1]!, v[2]!);
  return v.map((x) => x / n) as [number, number, number];
})();

const MAX_SLOPE = 0.65;
const FOLD_SCALE = 0.5; // inches of height represented by full opacity in fold layers

/**
 * Small LRU caches (a 2000 px template holds ~20 MB): a seeder that renders
 * all colors of one silhouette/view before moving on never rebuilds a template.
 */
const MAX_TEMPLATES = 4;
const MAX_MASKS = 16;
const cache = new Map<string, Promise<Template>>();
const maskCache = new Map<string, Promise<Buffer>>();

function lru<T>(m: Map<string, Promise<T>>, key: string, max: number, make: () => Promise<T>): Promise<T> {
  let p = m.get(key);
  if (p) {
    m.delete(key);
    m.set(key, p);
    return p;
  }
  p = make();
  m.set(key, p);
  p.catch(() => {
    if (m.get(key) === p) m.delete(key);
  });
  while (m.size > max) m.delete(m.keys().next().value!);
  return p;
}

export function clearTemplateCache(): void {
  cache.clear();
  maskCache.clear();
  textureCache.clear();
}

export function getTemplate(s: Silhouette, view: View, size: number): Promise<Template> {
  return lru(cache, `${s}:${view}:${size}`, MAX_TEMPLATES, () => buildTemplate(geometry(s, view), size));
}

/** Garment coverage at `size` (255 = garment). */
export function getMask(s: Silhouette, view: View, size: number): Promise<Buffer> {
  return lru(maskCache, `${s}:${view}:${size}`, MAX_MASKS, () => {
    const g = geometry(s, view);
    return rasterizeBytes(partsSvg(g.parts, g, size), size, size, 3);
  });
}

function workSize(size: number): number {
  return size >= 1000 ? Math.round(size / 2) : size;
}

async function buildTemplate(g: Geometry, size: number): Promise<Template> {
  const W = workSize(size);
  const ppiW = pxPerInch(g, W);
  const N = W * W;

  // ---- rasterise everything we need (in parallel; librsvg runs off-thread) ----
  const partMasks = Promise.all(g.parts.map((p) => rasterize(partsSvg([p], g, W), W, W, 3)));
  const unionW = rasterize(partsSvg(g.parts, g, W), W, W, 3);
  const softFolds = rasterize(
    foldSvg(
      g.folds.filter((f) => !f.crisp),
      [],
      g,
      W,
      FOLD_SCALE,
    ),
    W,
    W,
    0,
  );
  const crispFolds = rasterize(
    foldSvg(
      g.folds.filter((f) => f.crisp),
      g.seams,
      g,
      W,
      FOLD_SCALE,
    ),
    W,
    W,
    0,
  );
  const alphaP = getMask(g.silhouette, g.view, size);
  const detailP = rasterizeBytes(detailSvg(g, size), size, size, 0);
  const [masks, union, soft, crisp] = await Promise.all([partMasks, unionW, softFolds, crispFolds]);

  // ---- height field from the panels ----
  const H = new Float32Array(N);
  const T = new Float32Array(N).fill(1);
  g.parts.forEach((part, idx) => {
    const M = masks[idx]!;
    const box = bbox(M);
    const big = blurSparse(M, part.sigma[0] * ppiW, part.sigma[1] * ppiW, box);
    const edge = blurSparse(M, Math.min(0.55, part.sigma[0]) * ppiW, Math.min(0.55, part.sigma[1]) * ppiW, box);
    const h = part.height;
    const base = part.base ?? 0;
    const tone = part.tone ?? 1;
    const m = M.data;
    if (part.mode === 'paint') {
      for (let i = 0; i < N; i++) {
        const a = m[i]!;
        if (a === 0) continue;
        const hp = h * Math.pow(0.72 * big.data[i]! + 0.28 * edge.data[i]!, 0.55) + base;
        H[i] = H[i]! * (1 - a) + hp * a;
        T[i] = T[i]! * (1 - a) + tone * a;
      }
    } else {
      for (let i = 0; i < N; i++) {
        const a = m[i]!;
        const b = big.data[i]!;
        if (a === 0 && b < 1e-4) continue;
        H[i]! += h * (0.45 * a + 0.55 * b);
        if (a > 0 && tone !== 1) T[i] = T[i]! * (1 - a) + tone * a;
      }
    }
  });

  // ---- folds (calmer inside print zones) ----
  const calm = zoneCalm(g, W, ppiW);
  const softB = blur(soft, 0.22 * ppiW);
  const crispB = blur(crisp, 0.07 * ppiW);
  for (let i = 0; i < N; i++) {
    const f = (softB.data[i]! - 0.5) * 2 * FOLD_SCALE * calm[i]!;
    const c = (crispB.data[i]! - 0.5) * 2 * FOLD_SCALE * (0.5 + 0.5 * calm[i]!);
    H[i]! += f + c;
  }
  // gentle large-scale unevenness of the fabric
  const lumpy = fbm(W, W, 5 * ppiW, 2, hashString(`${g.silhouette}:${g.view}:lumps`));
  for (let i = 0; i < N; i++) H[i]! += 0.22 * lumpy[i]! * calm[i]!;

  const Hs = blur({ data: H, width: W, height: W }, 0.06 * ppiW);
  const Ts = blur({ data: T, width: W, height: W }, 0.05 * ppiW);

  // ---- lighting ----
  const ao1 = blur(Hs, 1.0 * ppiW);
  const ao2 = blur(Hs, 3.0 * ppiW);
  const shadeW = new Float32Array(N);
  const specW = new Float32Array(N);
  const hd = Hs.data;
  const inv2dx = ppiW / 2; // 1 / (2 * pixel size in inches)
  const [lx, ly, lz] = LIGHT;
  // garment vertical extent for the global top-to-bottom light falloff
  let yTop = W;
  let yBot = 0;
  for (let y = 0; y < W; y++) {
    const o = y * W;
    for (let x = 0; x < W; x += 4) {
      if (union.data[o + x]! > 0.5) {
        if (y < yTop) yTop = y;
        yBot = y;
        break;
      }
    }
  }
  const yspan = Math.max(1, yBot - yTop);
  // Normals are only evaluated a few pixels inside the silhouette (the height
  // field has a cliff at the garment edge); the rim is filled from the inside.
  const erodePx = Math.max(1.5, 0.09 * ppiW);
  const inner = new Uint8Array(N);
  {
    const cov = new Float32Array(N);
    for (let i = 0; i < N; i++) cov[i] = union.data[i]! > 0.98 ? 1 : 0;
    const e = blur({ data: cov, width: W, height: W }, erodePx);
    for (let i = 0; i < N; i++) inner[i] = e.data[i]! > 0.985 && cov[i] === 1 ? 1 : 0;
  }
  for (let y = 1; y < W - 1; y++) {
    const o = y * W;
    const yn = Math.min(1, Math.max(0, (y - yTop) / yspan));
    const vert = 1.05 - 0.1 * yn;
    for (let x = 1; x < W - 1; x++) {
      const i = o + x;
      if (inner[i] === 0) continue;
      let dx = (hd[i + 1]! - hd[i - 1]!) * inv2dx;
      let dy = (hd[i + W]! - hd[i - W]!) * inv2dx;
      // limit the tilt: fabric edges roll away but never go pitch dark
      const gm = Math.sqrt(dx * dx + dy * dy);
      if (gm > MAX_SLOPE) {
        dx *= MAX_SLOPE / gm;
        dy *= MAX_SLOPE / gm;
      }
      const inv = 1 / Math.sqrt(dx * dx + dy * dy + 1);
      const nx = -dx * inv;
      const ny = -dy * inv;
      const nz = inv;
      const ndl = Math.max(0, nx * lx + ny * ly + nz * lz) / lz;
      // surfaces turning away from the camera darken on both sides (cylinder look)
      const facing = 0.55 + 0.45 * nz * nz;
      const diffuse = (0.22 + 0.78 * ndl) * facing;
      const c1 = Math.max(0, ao1.data[i]! - hd[i]!);
      const c2 = Math.max(0, ao2.data[i]! - hd[i]!);
      const ao = Math.max(0.25, 1 - 0.55 * c1 - 0.22 * c2);
      const xn = x / W - 0.5;
      const side = 1 - 0.05 * xn;
      shadeW[i] = diffuse * ao * vert * side * Ts.data[i]!;
      const sp = Math.max(0, Math.min(1, (ndl - 0.97) * 1.6));
      specW[i] = sp * sp * ao;
    }
  }

  fillRim(shadeW, inner, union.data, W, erodePx * 1.5);
  fillRim(specW, inner, union.data, W, erodePx * 1.5);
  // ---- upsample to the output size and add full-resolution detail ----
  const shadeS = resize({ data: shadeW, width: W, height: W }, size, size).data;
  const specS = resize({ data: specW, width: W, height: W }, size, size).data;
  const [alpha, detail] = await Promise.all([alphaP, detailP]);
  const ppiS = pxPerInch(g, size);
  const tex = fabricTexture(size, ppiS, g.fleece > 0);
  const NS = size * size;
  const shade = new Uint16Array(NS);
  const spec = new Uint8Array(NS);
  for (let i = 0; i < NS; i++) {
    if (alpha[i] === 0) continue;
    const det = 1 + ((detail[i]! - 128) / 128) * 0.55;
    const gr = tex[i]!;
    const s = shadeS[i]! * det * gr;
    shade[i] = Math.min(65535, Math.max(0, Math.round(s * SHADE_ONE)));
    spec[i] = Math.min(255, Math.max(0, Math.round(specS[i]! * 255 * det)));
  }

  // ---- background: studio gray with vignette and a soft drop shadow ----
  const shadowW = dropShadow(union, ppiW);
  const shadowS = resize(shadowW, size, size).data;
  const bg = new Uint8Array(NS);
  const c = (size - 1) / 2;
  for (let y = 0; y < size; y++) {
    const o = y * size;
    const dy = (y - c) / c;
    for (let x = 0; x < size; x++) {
      const dx = (x - c) / c;
      const r2 = (dx * dx + dy * dy) / 2; // 1 at the corners
      const v = 242 * (1 - 0.035 * r2 * r2 - 0.015 * r2) * (1 - shadowS[o + x]!);
      bg[o + x] = Math.round(v);
    }
  }
  return { size, shade, spec, alpha: new Uint8Array(alpha.buffer, alpha.byteOffset, alpha.length), bg };
}

/**
 * Multiplicative fabric texture (knit grain + fine mottling) around 1.0. It
 * doesn't depend on the garment shape, so it is shared by all templates of
 * the same size and fabric (cached; ~16 MB at 2000 px).
 */
const textureCache = new Map<string, Float32Array>();

function fabricTexture(size: number, ppiS: number, fleece: boolean): Float32Array {
  // ppi differs slightly between silhouettes; quantise so they share a texture
  const pitch = Math.round((ppiS / (fleece ? 40 : 28)) * 4) / 4;
  const key = `${size}:${fleece}:${pitch}`;
  const hit = textureCache.get(key);
  if (hit) return hit;
  const grain = knitGrain(size, size, pitch, hashString(`grain:${fleece}`));
  const mottle = fbm(size, size, Math.max(2, Math.round(0.2 * ppiS)), 3, hashString(`mottle:${fleece}`));
  const amp = fleece ? 0.05 : 0.07;
  const out = new Float32Array(size * size);
  for (let i = 0; i < out.length; i++) out[i] = 1 + amp * grain[i]! + 0.035 * mottle[i]!;
  while (textureCache.size >= 4) textureCache.delete(textureCache.keys().next().value!);
  textureCache.set(key, out);
  return out;
}

/** Fill garment pixels outside `inner` from nearby inner pixels (normalized convolution). */
function fillRim(v: Float32Array, inner: Uint8Array, union: Float32Array, W: number, sigma: number): void {
  const N = W * W;
  const num = new Float32Array(N);
  const den = new Float32Array(N);
  for (let i = 0; i < N; i++) {
    if (inner[i]) {
      num[i] = v[i]!;
      den[i] = 1;
    }
  }
  const bn = blur({ data: num, width: W, height: W }, sigma);
  const bd = blur({ data: den, width: W, height: W }, sigma);
  for (let i = 0; i < N; i++) {
    if (inner[i] || union[i]! === 0) continue;
    const d = bd.data[i]!;
    v[i] = d > 1e-4 ? bn.data[i]! / d : 0;
  }
}

/** 1 outside print zones, ~0.55 inside (soft edged), so folds stay gentle where designs go. */
function zoneCalm(g: Geometry, W: number, ppiW: number): Float32Array {
  const img = new Float32Array(W * W);
  const k = W / 2000;
  for (const z of g.calm) {
    const x0 = Math.round((1000 + (z.cx - z.w / 2) * g.ppi) * k);
    const x1 = Math.round((1000 + (z.cx + z.w / 2) * g.ppi) * k);
    const y0 = Math.round((g.originY + z.top * g.ppi) * k);
    const y1 = Math.round((g.originY + (z.top + z.h) * g.ppi) * k);
    for (let y = Math.max(0, y0); y < Math.min(W, y1); y++) {
      for (let x = Math.max(0, x0); x < Math.min(W, x1); x++) img[y * W + x] = 1;
    }
  }
  const b = blur({ data: img, width: W, height: W }, 0.8 * ppiW);
  for (let i = 0; i < b.data.length; i++) b.data[i] = 1 - 0.45 * Math.min(1, b.data[i]!);
  return b.data;
}

/** Drop shadow strength 0..1 (fraction of light removed) from the garment coverage. */
function dropShadow(union: FloatImage, ppiW: number): FloatImage {
  const W = union.width;
  const shifted = new Float32Array(W * W);
  const sx = Math.round(0.35 * ppiW);
  const sy = Math.round(0.7 * ppiW);
  for (let y = 0; y < W; y++) {
    const ys = y - sy;
    if (ys < 0 || ys >= W) continue;
    for (let x = 0; x < W; x++) {
      const xs = x - sx;
      if (xs < 0 || xs >= W) continue;
      shifted[y * W + x] = union.data[ys * W + xs]!;
    }
  }
  const far = blur({ data: shifted, width: W, height: W }, 1.3 * ppiW);
  const near = blur(union, 0.2 * ppiW);
  const out = new Float32Array(W * W);
  for (let i = 0; i < out.length; i++) out[i] = Math.min(0.6, 0.3 * far.data[i]! + 0.22 * near.data[i]!);
  return { data: out, width: W, height: W };
}
