/**
 * Tiny 2-D geometry helpers for describing garments in INCHES.
 *
 * Coordinate system used by every silhouette: x = inches from the garment's
 * vertical center line (positive = right side of the IMAGE), y = inches down
 * from the high point of the shoulder (HPS). Curves are chains of cubic Béziers.
 */
export type Pt = readonly [number, number];

/** A cubic segment: two control points and an end point. */
export type Seg = readonly [Pt, Pt, Pt];

export interface Curve {
  start: Pt;
  segs: Seg[];
}

export const pt = (x: number, y: number): Pt => [x, y];

/** Straight segment expressed as a cubic (controls at 1/3 and 2/3). */
export function line(a: Pt, b: Pt): Seg {
  return [lerp(a, b, 1 / 3), lerp(a, b, 2 / 3), b];
}

export function lerp(a: Pt, b: Pt, t: number): Pt {
  return [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t];
}

export function curve(start: Pt, ...segs: Seg[]): Curve {
  return { start, segs };
}

/** Build a curve from a start point and a list of [c1, c2, end] or [end] (straight line). */
export function path(start: Pt, ...items: (readonly [Pt, Pt, Pt] | readonly [Pt])[]): Curve {
  const segs: Seg[] = [];
  let prev = start;
  for (const it of items) {
    const s: Seg = it.length === 3 ? it : line(prev, it[0]);
    segs.push(s);
    prev = s[2];
  }
  return { start, segs };
}

export function endOf(c: Curve): Pt {
  return c.segs.length ? c.segs[c.segs.length - 1]![2] : c.start;
}

export function reverse(c: Curve): Curve {
  const pts: Pt[] = [c.start, ...c.segs.map((s) => s[2])];
  const segs: Seg[] = [];
  for (let i = c.segs.length - 1; i >= 0; i--) {
    const s = c.segs[i]!;
    segs.push([s[1], s[0], pts[i]!]);
  }
  return { start: endOf(c), segs };
}

export function mapCurve(c: Curve, f: (p: Pt) => Pt): Curve {
  return { start: f(c.start), segs: c.segs.map((s) => [f(s[0]), f(s[1]), f(s[2])] as Seg) };
}

export const mirrorX = (c: Curve): Curve => mapCurve(c, (p) => [-p[0], p[1]]);

export function translate(c: Curve, dx: number, dy: number): Curve {
  return mapCurve(c, (p) => [p[0] + dx, p[1] + dy]);
}

/** Concatenate curves end-to-start (a straight join is inserted when they don't touch). */
export function join(...cs: Curve[]): Curve {
  const first = cs[0]!;
  const segs: Seg[] = [...first.segs];
  let prev = endOf(first);
  for (const c of cs.slice(1)) {
    if (Math.hypot(c.start[0] - prev[0], c.start[1] - prev[1]) > 1e-6) segs.push(line(prev, c.start));
    segs.push(...c.segs);
    prev = endOf(c);
  }
  return { start: first.start, segs };
}

/**
 * Closed symmetric outline from its right half, which must start AND end on
 * the center line (x = 0): the right half is followed by its mirror image.
 */
export function symmetric(rightHalf: Curve): Curve {
  return join(rightHalf, reverse(mirrorX(rightHalf)));
}

const f = (n: number): string => (Math.round(n * 1000) / 1000).toString();

export function toD(c: Curve, close = true): string {
  let d = `M${f(c.start[0])} ${f(c.start[1])}`;
  for (const [a, b, e] of c.segs) d += `C${f(a[0])} ${f(a[1])} ${f(b[0])} ${f(b[1])} ${f(e[0])} ${f(e[1])}`;
  return close ? d + 'Z' : d;
}

export function cubicAt(p0: Pt, s: Seg, t: number): Pt {
  const u = 1 - t;
  const a = u * u * u;
  const b = 3 * u * u * t;
  const c = 3 * u * t * t;
  const d = t * t * t;
  return [a * p0[0] + b * s[0][0] + c * s[1][0] + d * s[2][0], a * p0[1] + b * s[0][1] + c * s[1][1] + d * s[2][1]];
}

/** Dense polyline approximation. */
export function flatten(c: Curve, perSeg = 32): Pt[] {
  const out: Pt[] = [c.start];
  let p0 = c.start;
  for (const s of c.segs) {
    for (let i = 1; i <= perSeg; i++) out.push(cubicAt(p0, s, i / perSeg));
    p0 = s[2];
  }
  return out;
}

export function polyLength(poly: readonly Pt[]): number {
  let l = 0;
  for (let i = 1; i < poly.length; i++) l += Math.hypot(poly[i]![0] - poly[i - 1]![0], poly[i]![1] - poly[i - 1]![1]);
  return l;
}

/** `count` points evenly spaced by arc length (count >= 2). */
export function resample(c: Curve, count: number): Pt[] {
  const poly = flatten(c);
  const cum: number[] = [0];
  for (let i = 1; i < poly.length; i++) {
    cum.push(cum[i - 1]! + Math.hypot(poly[i]![0] - poly[i - 1]![0], poly[i]![1] - poly[i - 1]![1]));
  }
  const total = cum[cum.length - 1]!;
  const out: Pt[] = [];
  let j = 1;
  for (let k = 0; k < count; k++) {
    const target = (total * k) / (count - 1);
    while (j < cum.length - 1 && cum[j]! < target) j++;
    const a = cum[j - 1]!;
    const b = cum[j]!;
    const t = b > a ? (target - a) / (b - a) : 0;
    out.push(lerp(poly[j - 1]!, poly[j]!, Math.min(1, Math.max(0, t))));
  }
  return out;
}

export function curveLength(c: Curve): number {
  return polyLength(flatten(c));
}

/** Polyline as an SVG path `d` (open unless close). */
export function polyD(poly: readonly Pt[], close = false): string {
  let d = '';
  poly.forEach((p, i) => (d += `${i ? 'L' : 'M'}${f(p[0])} ${f(p[1])}`));
  return close ? d + 'Z' : d;
}

/** Unit normal of a sampled polyline at point i (from its neighbors; clamped at the ends). */
function unitNormal(pts: Pt[], i: number): Pt {
  const a = pts[Math.max(0, i - 1)]!;
  const b = pts[Math.min(pts.length - 1, i + 1)]!;
  const nx = -(b[1] - a[1]);
  const ny = b[0] - a[0];
  const n = Math.hypot(nx, ny) || 1;
  return [nx / n, ny / n];
}

/**
 * A tapered "leaf" polygon along a curve: width `w` in the middle, zero at the
 * ends. Used for folds so they fade in and out like real fabric wrinkles.
 */
export function leaf(c: Curve, w: number, samples = 24, skew = 0): Pt[] {
  const pts = resample(c, samples);
  const left: Pt[] = [];
  const right: Pt[] = [];
  for (let i = 0; i < pts.length; i++) {
    const [nx, ny] = unitNormal(pts, i);
    const t = i / (pts.length - 1);
    // sin profile, optionally skewed so one end is fuller than the other
    const tt = Math.pow(t, Math.exp(skew));
    const half = (w / 2) * Math.pow(Math.sin(Math.PI * tt), 0.75);
    const p = pts[i]!;
    left.push([p[0] + nx * half, p[1] + ny * half]);
    right.push([p[0] - nx * half, p[1] - ny * half]);
  }
  return [...left, ...right.reverse()];
}

/** Offset a curve by `d` along its normal (approximation via the sampled polyline). */
export function offsetPoly(c: Curve, d: number, samples = 64): Pt[] {
  const pts = resample(c, samples);
  return pts.map((p, i) => {
    const [nx, ny] = unitNormal(pts, i);
    return [p[0] + nx * d, p[1] + ny * d] as Pt;
  });
}

/**
 * Make a closed outline slightly irregular, like real fabric edges: points are
 * displaced along the normal by smooth 1-D noise of amplitude `amp` (inches)
 * and typical wavelength `wave` (inches). Returns a polyline curve.
 */
export function wobble(c: Curve, amp: number, wave: number, rnd: () => number, spacing = 0.2): Curve {
  const len = curveLength(c);
  const n = Math.max(8, Math.round(len / spacing));
  const pts = resample(c, n + 1);
  // 1-D value noise with smoothstep interpolation, periodic over the outline
  const knots = Math.max(3, Math.round(len / wave));
  const kv = Array.from({ length: knots }, () => rnd() * 2 - 1);
  const noiseAt = (s: number) => {
    const x = (s / len) * knots;
    const i = Math.floor(x);
    const t = x - i;
    const a = kv[((i % knots) + knots) % knots]!;
    const b = kv[(((i + 1) % knots) + knots) % knots]!;
    return a + (b - a) * t * t * (3 - 2 * t);
  };
  const out: Pt[] = pts.map((p, i) => {
    const a = pts[Math.max(0, i - 1)]!;
    const b = pts[Math.min(pts.length - 1, i + 1)]!;
    let nx = -(b[1] - a[1]);
    let ny = b[0] - a[0];
    const nn = Math.hypot(nx, ny) || 1;
    nx /= nn;
    ny /= nn;
    const d = amp * noiseAt((i / n) * len);
    return [p[0] + nx * d, p[1] + ny * d];
  });
  out[out.length - 1] = out[0]!;
  return { start: out[0]!, segs: out.slice(1).map((p, i) => line(out[i]!, p)) };
}
