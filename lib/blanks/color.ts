/** Color maths: sRGB <-> linear, tone curve, and how a fabric color responds to light. */

export function parseHex(hex: string): [number, number, number] {
  const m = /^#?([0-9a-f]{6})$/i.exec(hex.trim());
  if (!m) throw new Error(`invalid color ${JSON.stringify(hex)} (expected #RRGGBB)`);
  const n = parseInt(m[1]!, 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

export function srgbToLinear(v: number): number {
  const c = v / 255;
  return c <= 0.04045 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4);
}

export function linearToSrgb(l: number): number {
  const c = l <= 0.0031308 ? 12.92 * l : 1.055 * Math.pow(l, 1 / 2.4) - 0.055;
  return Math.max(0, Math.min(255, c * 255));
}

/** Soft shoulder so white fabric keeps its highlights instead of clipping. */
export function tone(x: number): number {
  const knee = 0.72;
  if (x <= knee) return x;
  const r = 1 - knee;
  return knee + r * (1 - Math.exp(-(x - knee) / r));
}

/** Linear-light values up to LUT_MAX are looked up in LUT_SIZE steps. */
export const LUT_MAX = 2;
export const LUT_SIZE = 16384;
let lut: Uint8Array | undefined;

/** linear light -> tone -> sRGB byte */
export function outputLut(): Uint8Array {
  if (!lut) {
    lut = new Uint8Array(LUT_SIZE + 1);
    for (let i = 0; i <= LUT_SIZE; i++) lut[i] = Math.round(linearToSrgb(tone((i / LUT_SIZE) * LUT_MAX)));
  }
  return lut;
}

const smoothstep = (a: number, b: number, x: number) => {
  const t = Math.max(0, Math.min(1, (x - a) / (b - a)));
  return t * t * (3 - 2 * t);
};

export interface FabricColor {
  /** effective linear albedo per channel (dark colors are lifted a little: real black cotton is not black) */
  albedo: [number, number, number];
  /** strength of the neutral sheen added on highlights (linear light) */
  sheen: number;
  /** exponent applied to the shading (1 = physical; >1 adds contrast for dark fabrics) */
  gamma: number;
}

export function fabricColor(hex: string): FabricColor {
  const lin = parseHex(hex).map(srgbToLinear) as [number, number, number];
  const Y = 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2];
  // Dark fabrics photograph lighter than their swatch and show folds through
  // soft highlights: lift dark colors by up to ~1.6x and add a floor.
  const dark = 1 - smoothstep(0, 0.06, Y);
  const lift = 1 + 0.6 * dark;
  const floor = 0.0035 * dark;
  const albedo = lin.map((c) => c * lift + floor) as [number, number, number];
  const sheen = 0.01 + 0.03 * (1 - smoothstep(0, 0.25, Y));
  const gamma = 1 + 1.4 * (1 - smoothstep(0.005, 0.2, Y));
  return { albedo, sheen, gamma };
}
