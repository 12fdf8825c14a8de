// Where a smart object's content lands: its warp (a bicubic bezier mesh, the quilt form with more patches, or one
// of Photoshop's named styles) in "mesh space", whose bounding box the transform maps to the document quad
// (an affine parallelogram, or the perspective quad of nonAffineTransform).
import type { Point, Quad } from './types';

/** A projective map, row-major 3x3. */
export type Mat3 = [number, number, number, number, number, number, number, number, number];

/** The homography taking the unit square's corners (0,0), (1,0), (1,1), (0,1) to the quad's. */
export function squareToQuad(q: Quad): Mat3 {
  const [[x0, y0], [x1, y1], [x2, y2], [x3, y3]] = q;
  const dx1 = x1 - x2;
  const dx2 = x3 - x2;
  const dx3 = x0 - x1 + x2 - x3;
  const dy1 = y1 - y2;
  const dy2 = y3 - y2;
  const dy3 = y0 - y1 + y2 - y3;
  let g = 0;
  let h = 0;
  if (Math.abs(dx3) > 1e-9 || Math.abs(dy3) > 1e-9) {
    const den = dx1 * dy2 - dx2 * dy1;
    g = (dx3 * dy2 - dx2 * dy3) / den;
    h = (dx1 * dy3 - dx3 * dy1) / den;
  }
  return [x1 - x0 + g * x1, x3 - x0 + h * x3, x0, y1 - y0 + g * y1, y3 - y0 + h * y3, y0, g, h, 1];
}

export function invert3(m: Mat3): Mat3 {
  const [a, b, c, d, e, f, g, h, i] = m;
  const A = e * i - f * h;
  const B = -(d * i - f * g);
  const C = d * h - e * g;
  const det = a * A + b * B + c * C;
  if (Math.abs(det) < 1e-12) throw new RangeError('degenerate transform');
  const k = 1 / det;
  return [
    A * k,
    -(b * i - c * h) * k,
    (b * f - c * e) * k,
    B * k,
    (a * i - c * g) * k,
    -(a * f - c * d) * k,
    C * k,
    -(a * h - b * g) * k,
    (a * e - b * d) * k,
  ];
}

export function apply3(m: Mat3, x: number, y: number): Point {
  const w = m[6] * x + m[7] * y + m[8];
  return [(m[0] * x + m[1] * y + m[2]) / w, (m[3] * x + m[4] * y + m[5]) / w];
}

/** The warp of one smart object in plain data (serializable). */
export type Warp =
  | { kind: 'none' }
  /** bicubic bezier patches: (3 * sx.length - 2) columns x (3 * sy.length - 2) rows of control points, row-major;
   * sx / sy = the content positions of the patch boundaries (first = left/top, last = right/bottom) */
  | { kind: 'mesh'; points: number[]; sx: number[]; sy: number[] }
  /** a named style over the bounds rectangle: bend / distortions in -1..1 */
  | {
      kind: 'named';
      style: string;
      bend: number;
      hDist: number;
      vDist: number;
      vertical: boolean;
      bounds: [number, number, number, number];
      values?: number[];
    };

export interface Geometry {
  /** content size */
  width: number;
  height: number;
  warp: Warp;
  /** mesh-space bounding box [x0, y0, x1, y1] mapped onto `quad` */
  box: [number, number, number, number];
  quad: Quad;
}

function bern(t: number, out: number[]): void {
  const s = 1 - t;
  out[0] = s * s * s;
  out[1] = 3 * s * s * t;
  out[2] = 3 * s * t * t;
  out[3] = t * t * t;
}

function segment(pos: number[], x: number): [number, number] {
  const n = pos.length - 1;
  let i = 0;
  while (i < n - 1 && x > pos[i + 1]!) i++;
  const span = pos[i + 1]! - pos[i]!;
  return [i, span !== 0 ? (x - pos[i]!) / span : 0];
}

const bu = [0, 0, 0, 0];
const bv = [0, 0, 0, 0];

/** Mesh space of a content point (content pixels); points outside the content are extrapolated along the mesh. */
export function warpPoint(g: Geometry, x: number, y: number): Point {
  const w = g.warp;
  if (w.kind === 'none') return [x, y];
  if (w.kind === 'mesh') {
    const [i, u] = segment(w.sx, x);
    const [j, v] = segment(w.sy, y);
    bern(u, bu);
    bern(v, bv);
    const cols = 3 * w.sx.length - 2;
    let px = 0;
    let py = 0;
    for (let r = 0; r < 4; r++) {
      const row = (3 * j + r) * cols + 3 * i;
      for (let c = 0; c < 4; c++) {
        const k = bv[r]! * bu[c]!;
        px += k * w.points[(row + c) * 2]!;
        py += k * w.points[(row + c) * 2 + 1]!;
      }
    }
    return [px, py];
  }
  return namedWarp(w, g.width, g.height, x, y);
}

/** Photoshop's named warp styles. The cylinder is fitted to Photoshop's own output; the others follow the shapes
 * Photoshop draws but are not fitted to its meshes (see docs/templates.md, fidelity limits). */
function namedWarp(w: Extract<Warp, { kind: 'named' }>, cw: number, ch: number, x: number, y: number): Point {
  const [bx, by, bw, bh] = w.bounds;
  // normalized position inside the bounds, in the style's own orientation
  let u = bw ? x / cw : 0;
  let v = bh ? y / ch : 0;
  let W = bw;
  let H = bh;
  if (w.vertical) {
    [u, v] = [v, u];
    [W, H] = [H, W];
  }
  const b = w.bend;
  const c = 2 * u - 1; // -1..1 across
  const m = 2 * v - 1; // -1..1 down
  const arch = 1 - c * c; // 0 at the sides, 1 in the middle
  let X = u * W;
  let Y = v * H;
  switch (w.style) {
    case 'arc':
    case 'arch': {
      // the rectangle bent along a circle: rows become concentric arcs
      const ang = b * Math.PI * 0.5 * c;
      const R = Math.abs(b) > 1e-6 ? W / (b * Math.PI) : 0;
      if (R !== 0 && w.style === 'arc') {
        const r = R - (Y - H / 2);
        X = W / 2 + r * Math.sin(ang);
        Y = H / 2 + R - r * Math.cos(ang);
      } else Y -= b * 0.5 * H * arch;
      break;
    }
    case 'arcLower':
      Y += b * 0.5 * H * arch * v;
      break;
    case 'arcUpper':
      Y -= b * 0.5 * H * arch * (1 - v);
      break;
    case 'bulge':
      Y += b * 0.5 * H * arch * m * 0.5;
      break;
    case 'shellLower':
      Y -= b * 0.5 * H * arch * v;
      break;
    case 'shellUpper':
      Y += b * 0.5 * H * arch * (1 - v);
      break;
    case 'flag':
      Y -= b * 0.25 * H * Math.sin(Math.PI * 2 * u);
      break;
    case 'wave':
      Y -= b * 0.25 * H * Math.sin(Math.PI * 2 * u) * (1 - 0.5 * Math.abs(m));
      break;
    case 'fish':
      Y += b * 0.25 * H * arch * m;
      break;
    case 'rise':
      Y -= b * 0.5 * H * c;
      break;
    case 'fisheye':
    case 'inflate': {
      const r2 = Math.min(1, c * c + m * m);
      const k = w.style === 'fisheye' ? 1 + b * 0.5 * (1 - r2) : 1 + b * 0.3 * (1 - r2);
      X = W / 2 + c * (W / 2) * (w.style === 'inflate' ? k : 1);
      Y = H / 2 + m * (H / 2) * k;
      break;
    }
    case 'squeeze':
      X = W / 2 + c * (W / 2) * (1 - b * 0.5 * (1 - m * m));
      break;
    case 'twist': {
      const r = Math.min(1, Math.hypot(c, m));
      const a = b * Math.PI * 0.5 * (1 - r);
      const cs = Math.cos(a);
      const sn = Math.sin(a);
      X = W / 2 + (c * cs - m * sn) * (W / 2);
      Y = H / 2 + (c * sn + m * cs) * (H / 2);
      break;
    }
    case 'cylinder': {
      // the content wrapped half around a cylinder seen from the front, its ends ellipses
      const e = (w.values?.[4] ?? 0.5) * (W / 2);
      const th = (u - 0.5) * Math.PI;
      X = W / 2 + (W / 2) * Math.sin(th);
      Y += e * (Math.cos(th) - 0.5);
      break;
    }
    default:
      break;
  }
  if (w.vertical) [X, Y] = [Y, X];
  return [bx + X, by + Y];
}

/** The mesh-space box of a warp: the bezier control points' bounds (as Photoshop's transform refers to them), or a
 * sampled bound for named styles. */
export function meshBox(g: Omit<Geometry, 'box' | 'quad'>): [number, number, number, number] {
  const w = g.warp;
  if (w.kind === 'none') return [0, 0, g.width, g.height];
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  const add = (x: number, y: number) => {
    if (x < x0) x0 = x;
    if (x > x1) x1 = x;
    if (y < y0) y0 = y;
    if (y > y1) y1 = y;
  };
  if (w.kind === 'mesh') for (let i = 0; i < w.points.length; i += 2) add(w.points[i]!, w.points[i + 1]!);
  else {
    const N = 32;
    const geo = {
      ...g,
      box: [0, 0, 1, 1],
      quad: [
        [0, 0],
        [1, 0],
        [1, 1],
        [0, 1],
      ],
    } as Geometry;
    for (let j = 0; j <= N; j++)
      for (let i = 0; i <= N; i++) {
        const [x, y] = warpPoint(geo, (i / N) * g.width, (j / N) * g.height);
        add(x, y);
      }
  }
  return [x0, y0, x1, y1];
}

/** A bezier mesh's control points taken to the document by the transform (as Photoshop does: the patches are
 * evaluated through the transformed points, which differs from transforming the evaluated surface under perspective). */
const docMeshes = new WeakMap<Geometry, Geometry>();
function docMesh(g: Geometry, H: Mat3): Geometry {
  let d = docMeshes.get(g);
  if (d) return d;
  const w = g.warp as Extract<Warp, { kind: 'mesh' }>;
  const [bx0, by0, bx1, by1] = g.box;
  const points: number[] = [];
  for (let i = 0; i < w.points.length; i += 2) {
    const [X, Y] = apply3(H, (w.points[i]! - bx0) / (bx1 - bx0 || 1), (w.points[i + 1]! - by0) / (by1 - by0 || 1));
    points.push(X, Y);
  }
  d = { ...g, warp: { ...w, points } };
  docMeshes.set(g, d);
  return d;
}

/** Document position of a content point. */
export function contentToDoc(g: Geometry, H: Mat3, x: number, y: number): Point {
  if (g.warp.kind === 'mesh') return warpPoint(docMesh(g, H), x, y);
  const [mx, my] = warpPoint(g, x, y);
  const [bx0, by0, bx1, by1] = g.box;
  return apply3(H, (mx - bx0) / (bx1 - bx0 || 1), (my - by0) / (by1 - by0 || 1));
}

/** True when a bezier mesh is the identity (Photoshop stores one on every untouched smart object). */
export function isIdentityMesh(points: number[], sx: number[], sy: number[]): boolean {
  const cols = 3 * sx.length - 2;
  const rows = 3 * sy.length - 2;
  const tol = 1e-3 * Math.max(sx[sx.length - 1]! - sx[0]!, sy[sy.length - 1]! - sy[0]!, 1);
  for (let r = 0; r < rows; r++)
    for (let c = 0; c < cols; c++) {
      const pi = Math.floor(c / 3);
      const pj = Math.floor(r / 3);
      const ex =
        sx[Math.min(pi, sx.length - 2)]! +
        ((c - 3 * Math.min(pi, sx.length - 2)) / 3) *
          (sx[Math.min(pi, sx.length - 2) + 1]! - sx[Math.min(pi, sx.length - 2)]!);
      const ey =
        sy[Math.min(pj, sy.length - 2)]! +
        ((r - 3 * Math.min(pj, sy.length - 2)) / 3) *
          (sy[Math.min(pj, sy.length - 2) + 1]! - sy[Math.min(pj, sy.length - 2)]!);
      if (Math.abs(points[(r * cols + c) * 2]! - ex) > tol || Math.abs(points[(r * cols + c) * 2 + 1]! - ey) > tol)
        return false;
    }
  return true;
}
