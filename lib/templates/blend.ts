// Photoshop's blend modes in 8-bit RGB: the separable ones as 256x256 lookup tables (B(backdrop, source) for one
// channel, rounded to 8 bits as Photoshop's 8-bit documents are), the non-separable ones (hue, saturation, color,
// luminosity, darker/lighter color) per pixel, and the alpha compositing around them (W3C Compositing Level 1:
// the source colour is mixed with B in proportion to the backdrop's alpha, then composited source-over).

export const BLEND_MODES = [
  'normal',
  'dissolve',
  'darken',
  'multiply',
  'color burn',
  'linear burn',
  'darker color',
  'lighten',
  'screen',
  'color dodge',
  'linear dodge',
  'lighter color',
  'overlay',
  'soft light',
  'hard light',
  'vivid light',
  'linear light',
  'pin light',
  'hard mix',
  'difference',
  'exclusion',
  'subtract',
  'divide',
  'hue',
  'saturation',
  'color',
  'luminosity',
] as const;
export type BlendModeName = (typeof BLEND_MODES)[number];

/** Modes whose fill opacity Photoshop applies inside the blend (not as a plain fade of the layer). */
export const FILL_INSIDE_MODES: ReadonlySet<string> = new Set([
  'color burn',
  'linear burn',
  'color dodge',
  'linear dodge',
  'vivid light',
  'linear light',
  'hard mix',
  'difference',
]);

const clamp01 = (v: number) => (v < 0 ? 0 : v > 1 ? 1 : v);

function burn(b: number, s: number): number {
  if (b >= 1) return 1;
  if (s <= 0) return 0;
  return 1 - Math.min(1, (1 - b) / s);
}
function dodge(b: number, s: number): number {
  if (b <= 0) return 0;
  if (s >= 1) return 1;
  return Math.min(1, b / (1 - s));
}

/** One channel of a separable mode, b = backdrop, s = source, both 0..1. Exported for the unit tests. */
export function separable(mode: string, b: number, s: number): number {
  switch (mode) {
    case 'normal':
    case 'dissolve':
      return s;
    case 'darken':
      return Math.min(b, s);
    case 'multiply':
      return b * s;
    case 'color burn':
      return burn(b, s);
    case 'linear burn':
      return clamp01(b + s - 1);
    case 'lighten':
      return Math.max(b, s);
    case 'screen':
      return b + s - b * s;
    case 'color dodge':
      return dodge(b, s);
    case 'linear dodge':
      return clamp01(b + s);
    case 'overlay':
      return b <= 0.5 ? 2 * b * s : 1 - 2 * (1 - b) * (1 - s);
    case 'soft light':
      // Photoshop's soft light (not the W3C variant): a smooth curve through the backdrop
      return s <= 0.5 ? 2 * b * s + b * b * (1 - 2 * s) : 2 * b * (1 - s) + Math.sqrt(b) * (2 * s - 1);
    case 'hard light':
      return s <= 0.5 ? 2 * b * s : 1 - 2 * (1 - b) * (1 - s);
    case 'vivid light':
      // the source's extremes decide before the backdrop's (measured on Photoshop's composites)
      if (s <= 0) return 0;
      if (s >= 1) return 1;
      return s <= 0.5 ? burn(b, 2 * s) : dodge(b, 2 * (s - 0.5));
    case 'linear light':
      return clamp01(b + 2 * s - 1);
    case 'pin light':
      return s <= 0.5 ? Math.min(b, 2 * s) : Math.max(b, 2 * s - 1);
    case 'hard mix': {
      // on the threshold itself Photoshop keeps the backdrop
      const t = b + s - 1;
      return t > 1e-9 ? 1 : t < -1e-9 ? 0 : b;
    }
    case 'difference':
      return Math.abs(b - s);
    case 'exclusion':
      return b + s - 2 * b * s;
    case 'subtract':
      return clamp01(b - s);
    case 'divide':
      return s <= 0 ? (b <= 0 ? 0 : 1) : Math.min(1, b / s);
    default:
      throw new Error(`not a separable blend mode: ${mode}`);
  }
}

const NON_SEPARABLE = new Set(['hue', 'saturation', 'color', 'luminosity', 'darker color', 'lighter color']);
export const isSeparable = (mode: string) => !NON_SEPARABLE.has(mode);

const luts = new Map<string, Uint8Array>();
/** lut[b * 256 + s] = round(255 * B(b / 255, s / 255)) */
export function blendLut(mode: string): Uint8Array {
  let lut = luts.get(mode);
  if (!lut) {
    lut = new Uint8Array(65536);
    for (let b = 0; b < 256; b++)
      for (let s = 0; s < 256; s++) lut[b * 256 + s] = Math.round(255 * separable(mode, b / 255, s / 255));
    luts.set(mode, lut);
  }
  return lut;
}

// ---- non-separable modes (W3C SetLum / SetSat, Photoshop's luma weights) ----
const lum = (r: number, g: number, b: number) => 0.3 * r + 0.59 * g + 0.11 * b;

function clipColor(c: number[]): number[] {
  const l = lum(c[0]!, c[1]!, c[2]!);
  const n = Math.min(c[0]!, c[1]!, c[2]!);
  const x = Math.max(c[0]!, c[1]!, c[2]!);
  if (n < 0) for (let i = 0; i < 3; i++) c[i] = l + ((c[i]! - l) * l) / (l - n);
  if (x > 255) for (let i = 0; i < 3; i++) c[i] = l + ((c[i]! - l) * (255 - l)) / (x - l);
  return c;
}
function setLum(r: number, g: number, b: number, l: number): number[] {
  const d = l - lum(r, g, b);
  return clipColor([r + d, g + d, b + d]);
}
function setSat(c: number[], s: number): number[] {
  const mx = Math.max(c[0]!, c[1]!, c[2]!);
  const mn = Math.min(c[0]!, c[1]!, c[2]!);
  const out = [0, 0, 0];
  if (mx > mn) {
    for (let i = 0; i < 3; i++) {
      if (c[i] === mx) out[i] = s;
      else if (c[i] === mn) out[i] = 0;
      else out[i] = ((c[i]! - mn) * s) / (mx - mn);
    }
    // ties at the maximum all take s
  }
  return out;
}
const sat = (r: number, g: number, b: number) => Math.max(r, g, b) - Math.min(r, g, b);

/** A non-separable mode on one pixel (0..255 channels); writes the blended colour into out[0..2]. */
export function nonSeparable(
  mode: string,
  br: number,
  bg: number,
  bb: number,
  sr: number,
  sg: number,
  sb: number,
  out: number[],
): void {
  let c: number[];
  switch (mode) {
    case 'hue':
      c = setLum(...(setSat([sr, sg, sb], sat(br, bg, bb)) as [number, number, number]), lum(br, bg, bb));
      break;
    case 'saturation':
      c = setLum(...(setSat([br, bg, bb], sat(sr, sg, sb)) as [number, number, number]), lum(br, bg, bb));
      break;
    case 'color':
      c = setLum(sr, sg, sb, lum(br, bg, bb));
      break;
    case 'luminosity':
      c = setLum(br, bg, bb, lum(sr, sg, sb));
      break;
    case 'darker color':
      c = lum(sr, sg, sb) < lum(br, bg, bb) ? [sr, sg, sb] : [br, bg, bb];
      break;
    case 'lighter color':
      c = lum(sr, sg, sb) > lum(br, bg, bb) ? [sr, sg, sb] : [br, bg, bb];
      break;
    default:
      throw new Error(`not a non-separable blend mode: ${mode}`);
  }
  out[0] = c[0]!;
  out[1] = c[1]!;
  out[2] = c[2]!;
}

/** Photoshop-like dissolve pattern: a fixed hash of the pixel position, 0..1. */
export function dissolveNoise(x: number, y: number): number {
  let h = (Math.imul(x, 0x27d4eb2d) ^ Math.imul(y, 0x165667b1)) >>> 0;
  h = Math.imul(h ^ (h >>> 15), 0x85ebca6b) >>> 0;
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35) >>> 0;
  return ((h ^ (h >>> 16)) >>> 0) / 4294967296;
}

export interface BlendArgs {
  /** backdrop, RGBA, dw x (dst.length / 4 / dw) */
  dst: Uint8ClampedArray;
  dw: number;
  /** source RGBA, sw x sh, drawn at (sx, sy) of the backdrop */
  src: Uint8Array | Uint8ClampedArray;
  sw: number;
  sh: number;
  sx: number;
  sy: number;
  mode: string;
  /** the layer's opacity (0..1) */
  opacity: number;
  /** fill opacity (0..1), inside the blend for FILL_INSIDE_MODES, else multiplied with opacity */
  fill: number;
  /** per source pixel coverage 0..255 (a mask), optional */
  mask?: Uint8Array | Uint8ClampedArray | null;
}

/** Whether the n RGBA pixels from byte `i` on are all opaque. */
function opaqueRun(src: Uint8Array | Uint8ClampedArray, i: number, n: number): boolean {
  for (let k = i + 3, end = i + n * 4; k < end; k += 4) if (src[k] !== 255) return false;
  return true;
}

/** Blend a source onto the backdrop in place. */
export function blendInto(a: BlendArgs): void {
  const { dst, dw, src, sw, sh, sx, sy, mode, mask } = a;
  const inside = FILL_INSIDE_MODES.has(a.mode);
  const op = inside ? a.opacity : a.opacity * a.fill;
  const fillIn = inside ? a.fill : 1;
  const sepMode = isSeparable(mode);
  const lut = sepMode ? blendLut(mode === 'dissolve' ? 'normal' : mode) : null;
  const dissolve = mode === 'dissolve';
  const tmp = [0, 0, 0];
  const dh = dst.length / 4 / dw;
  const x0 = Math.max(0, -sx);
  const y0 = Math.max(0, -sy);
  const x1 = Math.min(sw, dw - sx);
  const y1 = Math.min(sh, dh - sy);
  if (op <= 0) return;
  // a plain opaque layer (a photo's background) replaces the backdrop: its rows copied where they are opaque
  const copyOpaque = mode === 'normal' && op >= 1 && !mask;
  for (let y = y0; y < y1; y++) {
    let si = (y * sw + x0) * 4;
    let di = ((y + sy) * dw + x0 + sx) * 4;
    if (copyOpaque && x1 > x0 && opaqueRun(src, si, x1 - x0)) {
      dst.set(src.subarray(si, si + (x1 - x0) * 4), di);
      continue;
    }
    for (let x = x0; x < x1; x++, si += 4, di += 4) {
      let as = (src[si + 3]! / 255) * op;
      if (mask) as *= mask[si >> 2]! / 255;
      if (as <= 0) continue;
      if (dissolve) {
        if (dissolveNoise(x + sx, y + sy) >= as) continue;
        as = 1;
      }
      if (as >= 1 && mode === 'normal') {
        dst[di] = src[si]!;
        dst[di + 1] = src[si + 1]!;
        dst[di + 2] = src[si + 2]!;
        dst[di + 3] = 255;
        continue;
      }
      const ab = dst[di + 3]! / 255;
      const cbR = dst[di]!;
      const cbG = dst[di + 1]!;
      const cbB = dst[di + 2]!;
      const csR = src[si]!;
      const csG = src[si + 1]!;
      const csB = src[si + 2]!;
      let bR: number, bG: number, bB: number;
      if (lut) {
        bR = lut[(cbR << 8) | csR]!;
        bG = lut[(cbG << 8) | csG]!;
        bB = lut[(cbB << 8) | csB]!;
      } else {
        nonSeparable(mode, cbR, cbG, cbB, csR, csG, csB, tmp);
        bR = tmp[0]!;
        bG = tmp[1]!;
        bB = tmp[2]!;
      }
      if (fillIn < 1) {
        // fill opacity inside the blend: the blend result is faded towards the backdrop by the fill
        bR = cbR + (bR - cbR) * fillIn;
        bG = cbG + (bG - cbG) * fillIn;
        bB = cbB + (bB - cbB) * fillIn;
      }
      if (ab >= 1) {
        dst[di] = cbR + (bR - cbR) * as;
        dst[di + 1] = cbG + (bG - cbG) * as;
        dst[di + 2] = cbB + (bB - cbB) * as;
        continue;
      }
      // source colour seen through the backdrop's coverage, then source-over
      const mR = csR + (bR - csR) * ab;
      const mG = csG + (bG - csG) * ab;
      const mB = csB + (bB - csB) * ab;
      const ao = as + ab * (1 - as);
      const kb = (ab * (1 - as)) / ao;
      const ks = as / ao;
      dst[di] = mR * ks + cbR * kb;
      dst[di + 1] = mG * ks + cbG * kb;
      dst[di + 2] = mB * ks + cbB * kb;
      dst[di + 3] = ao * 255;
    }
  }
}
