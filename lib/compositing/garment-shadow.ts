// A soft drop shadow around a garment on a plain backdrop (garment-segment.ts): a smooth, low-frequency darkening of
// the backdrop, of its chromaticity, that deepens towards the garment and ends at the garment's edge with a step
// (a lighter garment, or one of another colour). The flood stops where the shadow's ramp gets steep next to the
// garment; this peels the rest of the band off the garment's side, pixel ring by pixel ring.
// Pure code on raw arrays.

/** Rings peeled at most (pixels of the detection copy): a shadow's steep part is a few pixels wide there. */
export const PEEL_ROUNDS = 8;
/** A shadow pixel is darker than the backdrop model by at least this share (a light garment is not, at its edge). */
const PEEL_MIN_DARKENING = 0.05;
/** ...and darker than the backdrop (or shadow) next to it by at least this share, at most PEEL_MAX_STEP. */
const PEEL_MIN_STEP = 0.004;
const PEEL_MAX_STEP = 0.09;

/**
 * Peels the drop shadow's band off the garment side of `reached` (1 = backdrop) in place: an unreached pixel next to
 * the backdrop joins it when it keeps the backdrop's chromaticity (channels darkened alike, within `chroma` plus 4
 * levels), is at least PEEL_MIN_DARKENING darker than the model, and continues the ramp of its backdrop neighbours:
 * a little darker than their mean, never by a step. Returns the number of pixels peeled.
 */
export function peelShadow(
  reached: Uint8Array,
  ch: Float32Array[],
  model: Float32Array[],
  w: number,
  h: number,
  chroma: number,
): number {
  const n = w * h;
  const ratio = new Float32Array(n);
  const shade = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const m0 = Math.max(1, model[0]![i]!);
    const m1 = Math.max(1, model[1]![i]!);
    const m2 = Math.max(1, model[2]![i]!);
    const k0 = ch[0]![i]! / m0;
    const k1 = ch[1]![i]! / m1;
    const k2 = ch[2]![i]! / m2;
    const kmax = Math.max(k0, k1, k2);
    const kmin = Math.min(k0, k1, k2);
    ratio[i] = (ch[0]![i]! + ch[1]![i]! + ch[2]![i]!) / (m0 + m1 + m2);
    shade[i] = ratio[i]! < 1 - PEEL_MIN_DARKENING && kmax - kmin < chroma + 4 / Math.min(m0, m1, m2) ? 1 : 0;
  }
  let peeled = 0;
  let front: number[] = [];
  for (let i = 0; i < n; i++) if (!reached[i] && shade[i] && touches(reached, i, w, h)) front.push(i);
  for (let round = 0; round < PEEL_ROUNDS && front.length; round++) {
    const take: number[] = [];
    for (const i of front) {
      if (reached[i]) continue;
      const x = i % w;
      const y = (i - x) / w;
      let s = 0;
      let c = 0;
      for (let dy = -1; dy <= 1; dy++) {
        const yy = y + dy;
        if (yy < 0 || yy >= h) continue;
        for (let dx = -1; dx <= 1; dx++) {
          const xx = x + dx;
          if (xx < 0 || xx >= w || (!dx && !dy)) continue;
          const j = yy * w + xx;
          if (!reached[j]) continue;
          s += ratio[j]!;
          c++;
        }
      }
      if (!c) continue;
      const step = s / c - ratio[i]!;
      if (step >= PEEL_MIN_STEP && step <= PEEL_MAX_STEP) take.push(i);
    }
    for (const i of take) reached[i] = 1;
    peeled += take.length;
    const next: number[] = [];
    for (const i of take) {
      const x = i % w;
      if (x > 0 && !reached[i - 1] && shade[i - 1]) next.push(i - 1);
      if (x < w - 1 && !reached[i + 1] && shade[i + 1]) next.push(i + 1);
      if (i >= w && !reached[i - w] && shade[i - w]) next.push(i - w);
      if (i < n - w && !reached[i + w] && shade[i + w]) next.push(i + w);
    }
    front = next;
  }
  return peeled;
}

function touches(reached: Uint8Array, i: number, w: number, h: number): boolean {
  const x = i % w;
  return (
    (x > 0 && reached[i - 1] === 1) ||
    (x < w - 1 && reached[i + 1] === 1) ||
    (i >= w && reached[i - w] === 1) ||
    (i < (h - 1) * w && reached[i + w] === 1)
  );
}
