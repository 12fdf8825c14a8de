// A subtle, tileable knit texture (deterministic noise), built once per process and shared by all composites.
import { blurFloat, hash01 } from './pixels';

export const TEXTURE_SIZE = 256; // power of two: index with & (TEXTURE_SIZE - 1)

let tile: Float32Array | undefined;

/**
 * Values around 0 (roughly -1..1, std ~0.35), laid out in blank pixels: fine grain of the yarn, short vertical
 * streaks of the knit's columns (wales) and a soft mottle where the ink soaked in unevenly.
 */
export function knitTexture(): Float32Array {
  if (tile) return tile;
  const N = TEXTURE_SIZE;
  const white = (seed: number) => {
    const f = new Float32Array(N * N);
    for (let i = 0; i < f.length; i++) f[i] = hash01(i * 7919 + seed * 104729) * 2 - 1;
    return f;
  };
  const fine = normalize(blurFloat(white(1), N, N, 0.55, true));
  const yarn = normalize(blurFloat(white(2), N, N, 1.1, true, 2.6)); // short vertical streaks: the knit's wales
  const mottle = normalize(blurFloat(white(3), N, N, 7, true));
  const t = new Float32Array(N * N);
  for (let i = 0; i < t.length; i++) {
    const v = 0.35 * fine[i]! + 0.55 * yarn[i]! + 0.3 * mottle[i]!;
    t[i] = Math.max(-1, Math.min(1, v * 0.5));
  }
  tile = t;
  return t;
}

function normalize(f: Float32Array): Float32Array {
  let s = 0;
  let s2 = 0;
  for (const v of f) {
    s += v;
    s2 += v * v;
  }
  const mean = s / f.length;
  const sd = Math.sqrt(Math.max(1e-12, s2 / f.length - mean * mean));
  for (let i = 0; i < f.length; i++) f[i] = (f[i]! - mean) / sd;
  return f;
}
