/** Sleeves: their panel, cuff or arm band, the opening, and the seams where they meet the body. */
import { type Curve, type Pt, type Seg, curve, endOf, join, line, mirrorX, path, translate, wobble } from '../path';
import { type Drawing, type Spec, add, both, deg } from './spec';

export interface SleeveGeo {
  shape: Curve; // right sleeve (without cuff/band)
  cuff?: Curve; // right cuff/band shape
  cuffRibs?: { a: Curve; b: Curve };
  hemLine?: Curve;
  /** thin crescent of the sleeve's inside seen through the opening */
  opening?: Curve;
  /** sleeve frame: origin at the armpit, u along the sleeve, n across (towards the top edge = -n) */
  armpit: Pt;
  u: Pt;
  n: Pt;
}

export function buildSleeve(sp: Spec): SleeveGeo | undefined {
  const s = sp.sleeve;
  if (!s) return undefined;
  const a = deg(s.angle);
  const u: Pt = [Math.cos(a), Math.sin(a)];
  const n: Pt = [-Math.sin(a), Math.cos(a)]; // points down/inwards (towards the under-arm edge)
  const SP: Pt = [sp.shoulder, sp.shoulderDrop];
  const UA: Pt = [sp.chest - 0.35, sp.underarm + 0.2];
  const EB = add(UA, u, s.under); // under-arm end of the opening
  const ET = add(EB, n, -s.open); // top end of the opening
  const capEnd = add(SP, [1, 0.22], s.cap);
  // top edge: continue the shoulder outward (cap), then bend down along the axis
  const topEdge = path(SP, [capEnd, add(ET, u, -Math.min(4, s.under * 0.45)), ET]);
  const start: Pt = [SP[0] - 1.2, SP[1] + 0.6];
  const endC: Pt = [(ET[0] + EB[0]) / 2, (ET[1] + EB[1]) / 2];
  let shape: Curve;
  let cuff: Curve | undefined;
  let cuffRibs: { a: Curve; b: Curve } | undefined;
  let hemLine: Curve | undefined;
  let opening: Curve | undefined;
  const cuffLen = s.cuff ?? s.band ?? 0;
  const bulge = (p: Pt, q: Pt, k: number): Seg => {
    // slightly convex opening/cuff edge
    const m: Pt = [(p[0] + q[0]) / 2 + u[0] * k, (p[1] + q[1]) / 2 + u[1] * k];
    return [add(p, [m[0] - p[0], m[1] - p[1]], 0.66), add(q, [m[0] - q[0], m[1] - q[1]], 0.66), q];
  };
  if (cuffLen > 0) {
    // sleeve gathers into a narrower rib cuff / arm band
    const narrow = s.cuff ? 0.78 : 0.94;
    const c0 = add(endC, u, -cuffLen); // cuff seam center
    const half = (s.open * narrow) / 2;
    const halfSeam = (s.open * (s.cuff ? 0.86 : 0.97)) / 2;
    const t0 = add(c0, n, -halfSeam);
    const b0 = add(c0, n, halfSeam);
    const t1 = add(endC, n, -half);
    const b1 = add(endC, n, half);
    const sleeveTop = add(c0, n, -s.open / 2 + (s.cuff ? 0.2 : 0));
    const sleeveBot = add(c0, n, s.open / 2 - (s.cuff ? 0.2 : 0));
    const topE = path(SP, [capEnd, add(sleeveTop, u, -Math.min(4, s.under * 0.45)), add(sleeveTop, u, 0.25)]);
    shape = join(
      curve(start, line(start, SP)),
      topE,
      curve(endOf(topE), line(endOf(topE), add(sleeveBot, u, 0.25))),
      path(add(sleeveBot, u, 0.25), [UA], [start]),
    );
    cuff = join(
      path(t0, [add(t0, u, cuffLen * 0.5), add(t1, u, -cuffLen * 0.5), t1]),
      curve(t1, bulge(t1, b1, 0.25)),
      path(b1, [b0]),
      curve(b0, bulge(b0, t0, 0.2)),
    );
    cuffRibs = { a: curve(t0, line(t0, b0)), b: curve(t1, bulge(t1, b1, 0.25)) };
  } else {
    shape = join(curve(start, line(start, SP)), topEdge, curve(ET, bulge(ET, EB, 0.3)), path(EB, [UA], [start]));
    const e0 = add(ET, n, 0.25);
    const e1 = add(EB, n, -0.3);
    opening = join(curve(e0, bulge(e0, e1, 0.3)), curve(e1, bulge(e1, e0, -0.12)));
    if (s.hem) {
      const h0 = add(ET, u, -s.hem);
      const h1 = add(EB, u, -s.hem);
      hemLine = curve(add(h0, n, 0.05), bulge(add(h0, n, 0.05), add(h1, n, -0.05), 0.3));
    }
  }
  return { shape, cuff, cuffRibs, hemLine, opening, armpit: UA, u, n };
}

/** The sleeve panels (behind the body), cuffs or arm bands, the inside seen through a short sleeve, its hem. */
export function sleeveParts(sp: Spec, sleeve: SleeveGeo, rnd: () => number, d: Drawing): void {
  const { parts, stitches } = d;
  const fl = sp.fleece;
  const puff = sp.puff;
  parts.push({
    name: 'sleeves',
    shapes: both(sleeve.shape).map((c) => wobble(c, 0.06, 2, rnd)),
    mode: 'paint',
    height: 2.6 * puff,
    sigma: [1.5 + fl * 0.4, 1.5 + fl * 0.4],
    base: 1.8,
    tone: 0.97,
  });
  if (sleeve.cuff && sleeve.cuffRibs) {
    const pitch = sp.sleeve!.cuff ? 0.11 : 0.07;
    const ribs = [sleeve.cuffRibs, { a: mirrorX(sleeve.cuffRibs.a), b: mirrorX(sleeve.cuffRibs.b) }].map((r) => ({
      ...r,
      pitch,
    }));
    parts.push({
      name: 'cuffs',
      shapes: both(sleeve.cuff),
      mode: 'paint',
      height: 0.9 * puff,
      sigma: [0.7, 0.7],
      base: 1.5,
      tone: 0.96,
      ribs,
    });
  }
  if (sleeve.opening)
    parts.push({
      name: 'sleeve-inside',
      shapes: both(sleeve.opening),
      mode: 'paint',
      height: 0.2,
      sigma: [0.3, 0.3],
      base: 0.3,
      tone: 0.6,
    });
  if (sleeve.hemLine) for (const c of both(sleeve.hemLine)) stitches.push({ c, twin: 0, dash: 0.1 });
}

/** Armhole and shoulder seams of a sleeved top. */
export function sleeveSeams(sp: Spec, d: Drawing): void {
  const { seams, stitches } = d;
  const no = sp.neckOut;
  const SP: Pt = [sp.shoulder, sp.shoulderDrop];
  const UA: Pt = [sp.chest, sp.underarm];
  const armhole = path(SP, [[SP[0] + 0.45, SP[1] + 2.6], [UA[0] - 0.12, UA[1] - 3.2], UA]);
  for (const c of both(armhole)) {
    seams.push({ c, depth: 0.1, w: 0.16 });
    stitches.push({ c: translate(c, c.start[0] > 0 ? 0.18 : -0.18, 0), dash: 0.1, k: 0.8 });
  }
  // shoulder seam, just behind the top edge
  const shoulder = path(
    [no + 0.1, 0.3],
    [
      [no + 2, 0.5],
      [SP[0] - 2, SP[1] * 0.8 + 0.3],
      [SP[0] - 0.1, SP[1] + 0.28],
    ],
  );
  for (const c of both(shoulder)) seams.push({ c, depth: 0.06, w: 0.12 });
}
