// Vector masks: Photoshop's bezier paths (document pixels; each knot = control in, anchor, control out) combined
// by their operations (combine, subtract, intersect, exclude) and filled with their fill rule, rasterized with
// 4x4 samples per pixel into a coverage mask over a rectangle.
import type { MaskBlock } from './model';

export interface VectorPath {
  open: boolean;
  operation?: string;
  fillRule: string;
  knots: { points: number[] }[];
}

const SS = 4;

/** Flatten a closed path into polygon edges [x0, y0, x1, y1, ...]. */
function flatten(p: VectorPath): number[] {
  const pts: number[] = [];
  const k = p.knots;
  for (let i = 0; i < k.length; i++) {
    const a = k[i]!.points;
    const b = k[(i + 1) % k.length]!.points;
    const [x0, y0, c1x, c1y] = [a[2]!, a[3]!, a[4]!, a[5]!];
    const [c2x, c2y, x1, y1] = [b[0]!, b[1]!, b[2]!, b[3]!];
    const straight = c1x === x0 && c1y === y0 && c2x === x1 && c2y === y1;
    const n = straight ? 1 : Math.max(4, Math.min(64, Math.ceil(Math.hypot(x1 - x0, y1 - y0) / 3)));
    for (let s = 0; s < n; s++) {
      const t = s / n;
      const u = 1 - t;
      pts.push(
        u * u * u * x0 + 3 * u * u * t * c1x + 3 * u * t * t * c2x + t * t * t * x1,
        u * u * u * y0 + 3 * u * u * t * c1y + 3 * u * t * t * c2y + t * t * t * y1,
      );
    }
  }
  return pts;
}

/** Inside test of one flattened path at a sample row: the sorted crossings with their winding directions. */
function crossings(poly: number[], y: number): { x: number; d: number }[] {
  const out: { x: number; d: number }[] = [];
  const n = poly.length / 2;
  for (let i = 0; i < n; i++) {
    const ax = poly[i * 2]!;
    const ay = poly[i * 2 + 1]!;
    const bx = poly[((i + 1) % n) * 2]!;
    const by = poly[((i + 1) % n) * 2 + 1]!;
    if (ay <= y === by <= y) continue;
    out.push({ x: ax + ((y - ay) / (by - ay)) * (bx - ax), d: by > ay ? 1 : -1 });
  }
  return out.sort((p, q) => p.x - q.x);
}

/** Coverage 0..255 of the vector mask over the rectangle (x, y, w, h). */
export function rasterizeVectorMask(
  paths: VectorPath[],
  invert: boolean,
  startsWithAll: boolean,
  r: { x: number; y: number; w: number; h: number },
): MaskBlock {
  const polys = paths.filter((p) => p.knots.length >= 2).map((p) => ({ p, poly: flatten(p) }));
  const acc = new Uint16Array(r.w * r.h);
  const inside = new Uint8Array(polys.length);
  for (let sy = 0; sy < r.h * SS; sy++) {
    const y = r.y + (sy + 0.5) / SS;
    const rows = polys.map(({ poly }) => crossings(poly, y));
    const ptr = new Int32Array(polys.length);
    const wind = new Int32Array(polys.length);
    const row = Math.floor(sy / SS) * r.w;
    for (let sx = 0; sx < r.w * SS; sx++) {
      const x = r.x + (sx + 0.5) / SS;
      let cov = startsWithAll;
      for (let j = 0; j < polys.length; j++) {
        const c = rows[j]!;
        while (ptr[j]! < c.length && c[ptr[j]!]!.x < x) {
          wind[j] = wind[j]! + c[ptr[j]!]!.d;
          inside[j] = inside[j]! ^ 1;
          ptr[j] = ptr[j]! + 1;
        }
        const inJ = polys[j]!.p.fillRule === 'non-zero' ? wind[j] !== 0 : inside[j] === 1;
        const op = polys[j]!.p.operation ?? 'combine';
        if (j === 0 && !startsWithAll && op !== 'subtract') cov = inJ;
        else if (op === 'combine') cov = cov || inJ;
        else if (op === 'subtract') cov = cov && !inJ;
        else if (op === 'intersect') cov = cov && inJ;
        else if (op === 'exclude') cov = cov !== inJ;
      }
      if (cov !== invert) {
        const k = row + Math.floor(sx / SS);
        acc[k] = acc[k]! + 1;
      }
    }
    inside.fill(0);
  }
  const data = new Uint8Array(r.w * r.h);
  for (let i = 0; i < data.length; i++) data[i] = Math.round((acc[i]! * 255) / (SS * SS));
  return { ...r, data, def: invert ? 255 : 0 };
}
