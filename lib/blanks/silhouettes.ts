/**
 * Garment drawings for every silhouette and view, in inches (see path.ts).
 *
 * Each garment is described by a handful of measurements (`Spec`) that a
 * generic builder turns into panels (body, sleeves, collar, cuffs, hood...),
 * folds, seams and stitching. Measurements are those of an adult size L.
 */
import type { Dot, Fold, Geometry, Part, Seam, Silhouette, Stitch, View, ZoneId, ZoneSpec } from './geometry';
import { hashString, prng } from './noise';
import {
  type Curve,
  type Pt,
  type Seg,
  curve,
  endOf,
  flatten,
  join,
  line,
  mirrorX,
  path,
  reverse,
  symmetric,
  translate,
  wobble,
} from './path';

interface SleeveSpec {
  kind: 'short' | 'long';
  /** axis angle below horizontal, degrees */
  angle: number;
  /** length of the under-arm edge from the armpit to the opening, inches */
  under: number;
  /** width of the opening (flat), inches */
  open: number;
  /** outward length of the rounded shoulder cap before the top edge bends down */
  cap: number;
  /** rib cuff length (long sleeves) */
  cuff?: number;
  /** rib arm band (polo) */
  band?: number;
  /** hem stitch distance from the opening */
  hem?: number;
}

interface Spec {
  chest: number; // half chest width
  hem: number; // half hem width
  length: number; // HPS to bottom edge at the side
  hemCurve: number; // extra drop of the hem at center (perspective of a round hem)
  neckIn: number; // half width of the neck opening
  neckOut: number; // half width of the collar seam
  frontDrop: number; // collar seam depth at front center
  backDrop: number; // collar top edge depth at back center (back view)
  backVisible: number; // back collar top edge seen through the front neck (front view)
  rib: number; // collar rib width
  shoulder: number; // half shoulder width (shoulder point x)
  shoulderDrop: number;
  underarm: number; // y of the armpit
  sleeve?: SleeveSpec;
  waistband?: number;
  hemStitch?: number;
  collar: 'crew' | 'polo' | 'hood' | 'tank';
  fleece: number;
  puff: number; // overall inflation scale
  zones: Partial<Record<ZoneId, ZoneSpec>>;
}

const TEE_ZONES: Spec['zones'] = {
  front: { view: 'front', cx: 0, top: 6.4, w: 12, h: 16 },
  back: { view: 'back', cx: 0, top: 4.2, w: 12, h: 16 },
  // wearer's LEFT chest appears on the RIGHT of a front-view image (+x)
  'left-chest': { view: 'front', cx: 4.7, top: 6.0, w: 4, h: 4 },
  'right-chest': { view: 'front', cx: -4.7, top: 6.0, w: 4, h: 4 },
};

export const SPECS: Record<Silhouette, Spec> = {
  tee: {
    chest: 11,
    hem: 11.1,
    length: 29.5,
    hemCurve: 0.55,
    neckIn: 3.35,
    neckOut: 4.15,
    frontDrop: 3.9,
    backDrop: 0.45,
    backVisible: 0.7,
    rib: 0.8,
    shoulder: 9.6,
    shoulderDrop: 1.55,
    underarm: 9.0,
    sleeve: { kind: 'short', angle: 36, under: 4.6, open: 7.0, cap: 3.2, hem: 0.9 },
    hemStitch: 0.85,
    collar: 'crew',
    fleece: 0,
    puff: 1,
    zones: TEE_ZONES,
  },
  longsleeve: {
    chest: 11,
    hem: 11.1,
    length: 29.5,
    hemCurve: 0.55,
    neckIn: 3.35,
    neckOut: 4.15,
    frontDrop: 3.9,
    backDrop: 0.45,
    backVisible: 0.7,
    rib: 0.8,
    shoulder: 9.6,
    shoulderDrop: 1.55,
    underarm: 9.0,
    sleeve: { kind: 'long', angle: 71, under: 18, open: 4.6, cap: 3.6, cuff: 2.2 },
    hemStitch: 0.85,
    collar: 'crew',
    fleece: 0,
    puff: 1,
    zones: TEE_ZONES,
  },
  tank: {
    chest: 10.5,
    hem: 10.7,
    length: 28.5,
    hemCurve: 0.5,
    neckIn: 4.3,
    neckOut: 4.75,
    frontDrop: 6.0,
    backDrop: 2.4,
    backVisible: 2.6,
    rib: 0.45,
    shoulder: 7.2, // strap outer edge
    shoulderDrop: 0.25,
    underarm: 10.8,
    hemStitch: 0.8,
    collar: 'tank',
    fleece: 0,
    puff: 1,
    zones: {
      front: { view: 'front', cx: 0, top: 8.3, w: 10, h: 14 },
      back: { view: 'back', cx: 0, top: 5.0, w: 10, h: 14 },
    },
  },
  crewneck: {
    chest: 11.8,
    hem: 11.6,
    length: 28,
    hemCurve: 0.55,
    neckIn: 3.5,
    neckOut: 4.5,
    frontDrop: 3.6,
    backDrop: 0.4,
    backVisible: 0.6,
    rib: 1.0,
    shoulder: 10.2,
    shoulderDrop: 1.6,
    underarm: 9.6,
    sleeve: { kind: 'long', angle: 71, under: 17, open: 5.6, cap: 3.8, cuff: 2.7 },
    waistband: 2.6,
    collar: 'crew',
    fleece: 1,
    puff: 1.15,
    zones: {
      front: { view: 'front', cx: 0, top: 5.8, w: 12, h: 14 },
      back: { view: 'back', cx: 0, top: 4.2, w: 12, h: 16 },
      'left-chest': { view: 'front', cx: 4.9, top: 5.8, w: 4, h: 4 },
      'right-chest': { view: 'front', cx: -4.9, top: 5.8, w: 4, h: 4 },
    },
  },
  hoodie: {
    chest: 12,
    hem: 11.8,
    length: 27.5,
    hemCurve: 0.55,
    neckIn: 3.6,
    neckOut: 4.6,
    frontDrop: 3.6,
    backDrop: 0.6,
    backVisible: 0.6,
    rib: 0.9,
    shoulder: 10.4,
    shoulderDrop: 1.7,
    underarm: 9.8,
    sleeve: { kind: 'long', angle: 71, under: 17, open: 5.6, cap: 3.8, cuff: 2.7 },
    waistband: 2.6,
    collar: 'hood',
    fleece: 1,
    puff: 1.15,
    zones: {
      // below the hood crossover (y = 6.3) and above the kangaroo pocket (top seam at y = 17)
      front: { view: 'front', cx: 0, top: 6.7, w: 12, h: 10 },
      // below the flat-lying hood's neck seam
      back: { view: 'back', cx: 0, top: 4.0, w: 12, h: 16 },
      'left-chest': { view: 'front', cx: 5.0, top: 6.6, w: 4, h: 4 },
      'right-chest': { view: 'front', cx: -5.0, top: 6.6, w: 4, h: 4 },
    },
  },
  polo: {
    chest: 11,
    hem: 11.1,
    length: 29.5,
    hemCurve: 0.55,
    neckIn: 3.2,
    neckOut: 3.9,
    frontDrop: 2.8,
    backDrop: 0.2,
    backVisible: 0.5,
    rib: 0.6,
    shoulder: 9.6,
    shoulderDrop: 1.55,
    underarm: 9.0,
    sleeve: { kind: 'short', angle: 36, under: 4.4, open: 6.6, cap: 3.2, band: 1.0 },
    hemStitch: 0.85,
    collar: 'polo',
    fleece: 0,
    puff: 1,
    zones: {
      // below the placket (placket ends at y = 8.2)
      front: { view: 'front', cx: 0, top: 9.2, w: 10, h: 10 },
      back: { view: 'back', cx: 0, top: 4.6, w: 12, h: 16 },
      'left-chest': { view: 'front', cx: 4.7, top: 5.8, w: 4, h: 4 },
      'right-chest': { view: 'front', cx: -4.7, top: 5.8, w: 4, h: 4 },
    },
  },
};

/** y of the hoodie's kangaroo pocket top seam (inches below HPS). */
export const POCKET_TOP = 17;

const deg = (a: number) => (a * Math.PI) / 180;
const add = (a: Pt, b: Pt, k = 1): Pt => [a[0] + b[0] * k, a[1] + b[1] * k];

/** Both halves of something drawn on the right: the right one and its mirror. */
const both = (c: Curve): Curve[] => [c, mirrorX(c)];

interface SleeveGeo {
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

function buildSleeve(sp: Spec): SleeveGeo | undefined {
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

/** Right half of the body outline, from the top center to the bottom center. */
function bodyRight(sp: Spec, view: View): { outline: Curve; topNeck: Curve; bottomSide: number } {
  const topC = view === 'front' ? sp.backVisible : sp.backDrop;
  const ni = sp.neckIn;
  const no = sp.neckOut;
  const topNeck = path(
    [0, topC],
    [
      [ni * 0.55, topC],
      [ni * 0.9, topC * 0.35],
      [ni, -0.08],
    ],
  );
  const bottomSide = sp.length - (sp.waistband ?? 0) + (sp.waistband ? 0.15 : 0);
  const UA: Pt = [sp.chest, sp.underarm];
  const hemX = sp.waistband ? sp.hem - 0.15 : sp.hem;
  let shoulderAndArm: Curve;
  if (sp.collar === 'tank') {
    shoulderAndArm = path(
      [ni, -0.08],
      [
        [ni + 0.3, -0.22],
        [sp.shoulder - 0.4, -0.05],
        [sp.shoulder, sp.shoulderDrop],
      ],
      [[sp.shoulder + 0.1, 4.5], [sp.chest - 2.6, sp.underarm - 0.6], UA],
    );
  } else {
    const SP: Pt = [sp.shoulder, sp.shoulderDrop];
    shoulderAndArm = path(
      [ni, -0.08],
      [
        [ni + 0.35, -0.2],
        [no - 0.1, -0.1],
        [no, 0.05],
      ],
      [[no + (SP[0] - no) * 0.4, 0.12 + SP[1] * 0.15], [SP[0] - 1.8, SP[1] * 0.78], SP],
      [[SP[0] + 0.45, SP[1] + 2.6], [UA[0] - 0.12, UA[1] - 3.2], UA],
    );
  }
  const yb = bottomSide;
  const taper = sp.waistband ? 0.1 : 0.45;
  const side = path(UA, [
    [sp.chest - taper, UA[1] + (yb - UA[1]) * 0.4],
    [hemX - taper * 0.8, yb - (yb - UA[1]) * 0.25],
    [hemX, yb],
  ]);
  const hc = sp.waistband ? sp.hemCurve * 0.8 : sp.hemCurve;
  const hem = path(
    [hemX, yb],
    [
      [hemX * 0.62, yb + hc * 0.85],
      [hemX * 0.27, yb + hc],
      [0, yb + hc],
    ],
  );
  return { outline: join(topNeck, shoulderAndArm, side, hem), topNeck, bottomSide };
}

/** Build the full drawing of a silhouette in a view (without image placement). */
function buildParts(s: Silhouette, view: View): Omit<Geometry, 'ppi' | 'originY'> {
  const sp = SPECS[s];
  const rnd = prng(hashString(`${s}:${view}`));
  const jit = (k: number) => (rnd() * 2 - 1) * k;
  const parts: Part[] = [];
  const folds: Fold[] = [];
  const seams: Seam[] = [];
  const stitches: Stitch[] = [];
  const dots: Dot[] = [];
  const puff = sp.puff;
  const fl = sp.fleece;

  const sleeve = buildSleeve(sp);
  const body = bodyRight(sp, view);
  const yb = body.bottomSide;

  // ---- sleeves (behind the body) ----------------------------------------
  if (sleeve) {
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

  // ---- body ---------------------------------------------------------------
  const outline = wobble(symmetric(body.outline), 0.07, 2.5, rnd);
  parts.push({ name: 'body', shapes: [outline], mode: 'paint', height: 6 * puff, sigma: [3.8 + fl, 0.12], base: 0.25 });

  // ---- waistband ----------------------------------------------------------
  if (sp.waistband) {
    const top = yb - 0.2;
    const hc = sp.hemCurve * 0.8;
    const tw = sp.hem - 0.3;
    const bw = sp.hem - 0.5;
    const topEdge = path(
      [0, top + hc],
      [
        [tw * 0.3, top + hc],
        [tw * 0.65, top + hc * 0.85],
        [tw, top],
      ],
    );
    const botEdge = path(
      [0, sp.length + hc],
      [
        [bw * 0.3, sp.length + hc],
        [bw * 0.65, sp.length + hc * 0.85],
        [bw, sp.length],
      ],
    );
    const right = join(topEdge, curve([tw, top], line([tw, top], [bw, sp.length])), reverse(botEdge));
    const a = join(reverse(mirrorX(topEdge)), topEdge);
    const b = join(reverse(mirrorX(botEdge)), botEdge);
    parts.push({
      name: 'waistband',
      shapes: [symmetric(right)],
      mode: 'paint',
      height: 1.4 * puff,
      sigma: [2.5, 0.5],
      base: 3.8,
      tone: 0.97,
      ribs: [{ a, b, pitch: 0.11 }],
    });
  } else if (sp.hemStitch) {
    const hx = sp.hem - 0.02;
    const hc = sp.hemCurve;
    const y = yb - sp.hemStitch;
    const c = path(
      [-hx, y],
      [
        [-hx * 0.5, y + hc * 0.9],
        [hx * 0.5, y + hc * 0.9],
        [hx, y],
      ],
    );
    stitches.push({ c, twin: 0.25, dash: 0.1 });
    seams.push({ c: translate(c, 0, 0.12), depth: 0.05, w: 0.12 });
  }

  // ---- collar / neck ------------------------------------------------------
  const ni = sp.neckIn;
  const no = sp.neckOut;
  const fd = sp.frontDrop;
  if (sp.collar === 'crew' || sp.collar === 'tank') {
    const rib = sp.rib;
    if (view === 'front') {
      const innerR = path(
        [ni + 0.02, -0.06],
        [
          [ni - 0.12, fd * 0.42],
          [ni * 0.55, fd - rib],
          [0, fd - rib],
        ],
      );
      const outerR = path(
        [no, 0.05],
        [
          [no - 0.05, fd * 0.5],
          [no * 0.55, fd],
          [0, fd],
        ],
      );
      const interiorR = join(body.topNeck, innerR);
      parts.push({
        name: 'interior',
        shapes: [symmetric(interiorR)],
        mode: 'paint',
        height: 0.5,
        sigma: [1, 1],
        base: 0.6,
        tone: 0.55,
      });
      const backRibInner = path(
        [0, body.topNeck.start[1] + rib],
        [
          [ni * 0.3, body.topNeck.start[1] + rib],
          [ni * 0.6, body.topNeck.start[1] + rib],
          [ni - 0.1, rib * 0.75],
        ],
      );
      parts.push({
        name: 'backrib',
        shapes: [symmetric(join(body.topNeck, reverse(backRibInner)))],
        mode: 'paint',
        height: 0.3,
        sigma: [0.5, 0.3],
        base: 1.2,
        tone: 0.72,
        ribs: [
          {
            a: join(reverse(mirrorX(body.topNeck)), body.topNeck),
            b: join(mirrorX(reverse(backRibInner)), backRibInner),
            pitch: 0.08,
          },
        ],
      });
      const bandR = join(reverse(innerR), curve([ni + 0.02, -0.06], line([ni + 0.02, -0.06], [no, 0.05])), outerR);
      parts.push({
        name: 'collar',
        shapes: [symmetric(bandR)],
        mode: 'add',
        height: 0.35,
        sigma: [0.25, 0.25],
        ribs: [{ a: join(mirrorX(innerR), reverse(innerR)), b: join(mirrorX(outerR), reverse(outerR)), pitch: 0.08 }],
      });
      const seamC = join(mirrorX(outerR), reverse(outerR));
      seams.push({ c: seamC, depth: 0.12, w: 0.12 });
      stitches.push({
        c: join(mirrorX(translate(outerR, 0, 0.22)), reverse(translate(outerR, 0, 0.22))),
        twin: 0,
        dash: 0.09,
      });
    } else {
      const bd = sp.backDrop;
      const seamR = path(
        [no, 0.05],
        [
          [no - 0.35, 0.45 + bd * 0.3],
          [ni * 0.55, bd + rib],
          [0, bd + rib],
        ],
      );
      const bandR = join(body.topNeck, curve([ni, -0.08], line([ni, -0.08], [no, 0.05])), seamR);
      parts.push({
        name: 'collar',
        shapes: [symmetric(bandR)],
        mode: 'add',
        height: 0.3,
        sigma: [0.25, 0.25],
        ribs: [
          {
            a: join(reverse(mirrorX(body.topNeck)), body.topNeck),
            b: join(mirrorX(seamR), reverse(seamR)),
            pitch: 0.08,
          },
        ],
      });
      seams.push({ c: join(mirrorX(seamR), reverse(seamR)), depth: 0.12, w: 0.12 });
      stitches.push({
        c: join(mirrorX(translate(seamR, 0, 0.2)), reverse(translate(seamR, 0, 0.2))),
        twin: 0,
        dash: 0.09,
      });
      // back neck tape / shoulder-to-shoulder stitching
      if (sp.collar === 'crew')
        stitches.push({
          c: path(
            [-no - 0.1, 0.4],
            [
              [-ni * 0.5, bd + rib + 0.5],
              [ni * 0.5, bd + rib + 0.5],
              [no + 0.1, 0.4],
            ],
          ),
          dash: 0.09,
          k: 0.6,
        });
    }
  }

  // tank: armhole binding
  if (sp.collar === 'tank') {
    const arm = path(
      [sp.shoulder, sp.shoulderDrop],
      [
        [sp.shoulder + 0.1, 4.5],
        [sp.chest - 2.6, sp.underarm - 0.6],
        [sp.chest, sp.underarm],
      ],
    );
    for (const c of both(arm)) {
      stitches.push({ c: translate(c, c.start[0] > 0 ? -0.42 : 0.42, 0.05), dash: 0.09 });
      seams.push({ c: translate(c, c.start[0] > 0 ? -0.32 : 0.32, 0.03), depth: 0.06, w: 0.1 });
    }
  }

  // ---- seams common to sleeved tops ---------------------------------------
  if (sleeve) {
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

  // side seams, just inside the silhouette
  {
    const ua = sp.underarm;
    const hx = sp.waistband ? sp.hem - 0.15 : sp.hem;
    const taper = sp.waistband ? 0.1 : 0.45;
    const side = path(
      [sp.chest - 0.28, ua + 0.6],
      [
        [sp.chest - taper - 0.28, ua + (yb - ua) * 0.4],
        [hx - taper * 0.8 - 0.28, yb - (yb - ua) * 0.25],
        [hx - 0.28, yb - 0.15],
      ],
    );
    for (const c of both(side)) seams.push({ c, depth: 0.03, w: 0.12 });
  }

  // ---- folds --------------------------------------------------------------
  const H = sp.chest;
  for (const side of [1, -1]) {
    const j1 = jit(0.6);
    const ua = sp.underarm;
    if (sp.collar !== 'tank') {
      // drag lines from the armpit towards the chest
      folds.push({
        c: path(
          [side * (H - 0.5), ua + 0.6 + j1],
          [
            [side * (H - 2), ua + 1.4 + j1],
            [side * (H - 3.6), ua + 2.6 + j1],
            [side * (H - 5 + jit(0.5)), ua + 4.2 + j1],
          ],
        ),
        w: 1.4,
        amp: -0.28 * puff,
      });
      folds.push({
        c: path(
          [side * (H - 0.4), ua + 2.0 + j1],
          [
            [side * (H - 2), ua + 3.0 + j1],
            [side * (H - 3.2), ua + 4.2 + j1],
            [side * (H - 4.4), ua + 6.4 + j1],
          ],
        ),
        w: 1.6,
        amp: 0.22 * puff,
      });
    }
    // side waist compression wrinkles
    for (let k = 0; k < 2 + Math.round(rnd()); k++) {
      const y = ua + 6 + k * 2.2 + jit(0.6);
      folds.push({
        c: path(
          [side * (H - 0.1), y],
          [
            [side * (H - 1.2), y + 0.3],
            [side * (H - 2.4), y + 0.9],
            [side * (H - 3.6 - rnd()), y + 1.6],
          ],
        ),
        w: 0.8,
        amp: -0.12 * puff,
      });
    }
  }
  // broad, shallow drape across the torso (soft light/shadow variation)
  if (view === 'front' || view === 'back') {
    const ua = sp.underarm;
    const yb2 = yb - 2;
    for (const side of [1, -1]) {
      const x0 = side * (H - 1.5 + jit(0.5));
      folds.push({
        c: path(
          [x0, ua + 1],
          [
            [side * (H - 4), ua + 4 + jit(1)],
            [side * (2.5 + jit(1)), yb2 - 8],
            [side * (1.5 + jit(1.5)), yb2],
          ],
        ),
        w: 3.2,
        amp: -0.3,
      });
    }
    const xr = jit(2.5);
    folds.push({
      c: path(
        [xr, ua + 2.5],
        [
          [xr + jit(1.5), ua + 7],
          [xr + jit(1.5), yb2 - 5],
          [xr + jit(2), yb2],
        ],
      ),
      w: 3.5,
      amp: 0.22,
    });
  }
  // hem ripples / blousing above the waistband
  {
    const xs = [-7.8, -3.6, 1.2, 5.2, 8.6];
    xs.forEach((x0, i) => {
      const x = x0 + jit(0.8);
      const bottom = yb + sp.hemCurve * (1 - (x / sp.hem) ** 2) - 0.1;
      const len = sp.waistband ? 3.2 + rnd() * 1.5 : 4.5 + rnd() * 2.5;
      const amp = (i % 2 ? -0.22 : 0.24) * puff * (sp.waistband ? 1.3 : 1);
      folds.push({
        c: path(
          [x, bottom],
          [
            [x + jit(0.4), bottom - len * 0.35],
            [x + jit(0.8), bottom - len * 0.7],
            [x + jit(1), bottom - len],
          ],
        ),
        w: sp.waistband ? 1.6 : 2.1,
        amp,
        skew: -0.6,
      });
    });
  }
  // sleeve folds
  if (sleeve) {
    const { armpit, u, n } = sleeve;
    const at = (along: number, across: number): Pt => [
      armpit[0] + u[0] * along - n[0] * across,
      armpit[1] + u[1] * along - n[1] * across,
    ];
    const width = sp.sleeve!.open;
    const mk = (a0: number, c0: number, a1: number, c1: number, w: number, amp: number, crisp = false) => {
      // arc bulging towards the sleeve end
      const c = path(at(a0, c0), [
        at(a0 + (a1 - a0) * 0.33 + 0.5, c0 + (c1 - c0) * 0.33),
        at(a0 + (a1 - a0) * 0.66 + 0.5, c0 + (c1 - c0) * 0.66),
        at(a1, c1),
      ]);
      for (const cc of both(c)) folds.push({ c: cc, w, amp: amp * (0.8 + rnd() * 0.4), crisp });
    };
    if (sp.sleeve!.kind === 'short') {
      mk(0.2, 0.3, 2.6, width * 0.75, 1.2, -0.24);
      mk(1.6, 0.2, 3.8, width * 0.6, 1.3, 0.2);
      mk(0.5, width * 0.9, 2.0, width * 0.4, 1.0, -0.12);
    } else {
      const L = sp.sleeve!.under;
      // elbow and cuff bunching: soft arcs across the sleeve
      for (let k = 0; k < 5; k++) {
        const a = L * (0.3 + k * 0.13) + jit(0.5);
        mk(a, 0.1, a - 1.4 - rnd(), width * (1.0 + rnd() * 0.2), 1.0 + fl * 0.5, (k % 2 ? 0.2 : -0.24) * puff);
      }
      mk(L - 1.0, 0.2, L - 1.8, width * 0.9, 0.9, -0.2 * puff);
      mk(2, 0.5, L * 0.45, width * 0.7, 1.3, 0.2 * puff);
    }
  }
  // neck: small radial folds under the collar (front) / across the back yoke (back)
  if (view === 'front' && sp.collar !== 'hood') {
    for (const side of [1, -1]) {
      folds.push({
        c: path(
          [side * 1.2, fd + 0.2],
          [
            [side * 1.5, fd + 0.8],
            [side * 1.8, fd + 1.4],
            [side * 2.3, fd + 2.1],
          ],
        ),
        w: 0.8,
        amp: -0.08,
      });
    }
  } else if (view === 'back') {
    for (const side of [1, -1]) {
      folds.push({
        c: path(
          [side * (sp.shoulder - 0.8), sp.shoulderDrop + 1.2],
          [
            [side * (sp.shoulder - 2.2), sp.shoulderDrop + 2.3],
            [side * (sp.shoulder - 3.6), sp.shoulderDrop + 3.0],
            [side * (sp.shoulder - 5.2), sp.shoulderDrop + 3.3],
          ],
        ),
        w: 1.6,
        amp: -0.16,
      });
    }
  }

  // ---- garment specific extras ---------------------------------------------
  if (s === 'hoodie') hoodieExtras(sp, view, parts, folds, seams, stitches, dots);
  if (s === 'polo') poloExtras(sp, view, parts, folds, seams, stitches, dots);

  const calm = Object.values(sp.zones).filter((z): z is ZoneSpec => !!z && z.view === view);
  return { silhouette: s, view, parts, folds, seams, stitches, dots, calm, fleece: fl };
}

function hoodieExtras(
  sp: Spec,
  view: View,
  parts: Part[],
  folds: Fold[],
  seams: Seam[],
  stitches: Stitch[],
  dots: Dot[],
): void {
  if (view === 'front') {
    // hood standing up behind the head opening (ghost mannequin)
    const outerR = path(
      [0, -11.0],
      [
        [3.8, -11.1],
        [6.3, -9.0],
        [6.8, -5.8],
      ],
      [
        [7.2, -3.0],
        [7.1, -0.6],
        [6.5, 0.9],
      ],
      [
        [5.0, 2.6],
        [2.6, 5.0],
        [0, 6.3],
      ],
    );
    parts.push({
      name: 'hood',
      shapes: [wobble(symmetric(outerR), 0.05, 2, prng(7))],
      mode: 'paint',
      height: 2.0,
      sigma: [1.8, 1.8],
      base: 1.6,
    });
    const openR = path(
      [0, -9.3],
      [
        [2.7, -9.4],
        [4.3, -7.4],
        [4.5, -4.2],
      ],
      [
        [4.6, -1.4],
        [3.6, 1.2],
        [1.9, 3.1],
      ],
      [
        [1.1, 4.0],
        [0.4, 4.6],
        [0, 4.9],
      ],
    );
    parts.push({
      name: 'hood-inside',
      shapes: [symmetric(openR)],
      mode: 'paint',
      height: -1.4,
      sigma: [1.6, 1.6],
      base: 2.2,
      tone: 0.5,
    });
    // rim: band between the opening and an offset outline
    const rimR = path(
      [0, -10.2],
      [
        [3.2, -10.3],
        [5.2, -8.0],
        [5.4, -4.3],
      ],
      [
        [5.6, -1.1],
        [4.5, 1.8],
        [2.6, 3.9],
      ],
      [
        [1.7, 4.9],
        [0.8, 5.5],
        [0, 5.8],
      ],
    );
    parts.push({
      name: 'hood-rim',
      shapes: [symmetric(join(reverse(openR), curve([0, -9.3], line([0, -9.3], [0, -10.2])), rimR))],
      mode: 'add',
      height: 0.35,
      sigma: [0.3, 0.3],
    });
    for (const c of both(rimR)) stitches.push({ c: translate(c, 0, 0), dash: 0.1, k: 0.8 });
    // crossover of the two hood fronts at the neck
    seams.push({
      c: path(
        [-2.4, 3.2],
        [
          [-1.2, 4.4],
          [0.4, 5.6],
          [1.4, 6.0],
        ],
      ),
      depth: 0.22,
      w: 0.2,
    });
    // hood seam line into the shoulders
    for (const c of both(
      path(
        [5.6, 1.6],
        [
          [5.2, 2.6],
          [4.4, 3.6],
          [3.4, 4.4],
        ],
      ),
    ))
      seams.push({ c, depth: 0.1, w: 0.18 });
    // hood folds
    for (const side of [1, -1]) {
      folds.push({
        c: path(
          [side * 5.4, -7.8],
          [
            [side * 6.0, -6.0],
            [side * 6.3, -4],
            [side * 6.2, -2],
          ],
        ),
        w: 1.1,
        amp: -0.15,
      });
      folds.push({
        c: path(
          [side * 5.0, 2.2],
          [
            [side * 5.8, 1.2],
            [side * 6.4, 0.0],
            [side * 6.7, -1.6],
          ],
        ),
        w: 1.0,
        amp: -0.18,
      });
    }
    // drawcords hanging from eyelets
    for (const side of [1, -1]) {
      const x0 = side * 1.35;
      const cord = path(
        [x0, 4.3],
        [
          [x0 + side * 0.15, 6.5],
          [x0 + side * 0.05, 8.6],
          [x0 + side * 0.3, 10.6],
        ],
      );
      const pts = flatten(cord, 16);
      const w = 0.17;
      const left: Pt[] = pts.map((p) => [p[0] - w, p[1]]);
      const right: Pt[] = pts.map((p): Pt => [p[0] + w, p[1]]).reverse();
      const poly = [...left, ...right];
      const shape = path(poly[0]!, ...poly.slice(1).map((p) => [p] as const));
      parts.push({ name: 'cord', shapes: [shape], mode: 'add', height: 0.4, sigma: [0.09, 0.5], base: 0 });
      const e = endOf(cord);
      const aglet = path(
        [e[0] - 0.13, e[1] - 0.05],
        [[e[0] + 0.13, e[1] - 0.05]],
        [[e[0] + 0.11, e[1] + 0.9]],
        [[e[0] - 0.11, e[1] + 0.9]],
      );
      parts.push({ name: 'aglet', shapes: [aglet], mode: 'add', height: 0.45, sigma: [0.08, 0.2], tone: 0.9 });
      dots.push({ x: x0, y: 4.1, r: 0.24, kind: 'eyelet' });
    }
    // kangaroo pocket (above the waistband)
    const top = POCKET_TOP;
    const yw = sp.length - sp.waistband! - 0.1;
    const pocketR = path(
      [0, top],
      [[6.3, top]],
      [
        [7.0, top + 1.5],
        [8.1, top + 4.0],
        [8.6, yw - 2.2],
      ],
      [
        [8.7, yw - 1.2],
        [8.7, yw - 0.5],
        [8.7, yw],
      ],
      [[0, yw + 0.45]],
    );
    parts.push({ name: 'pocket', shapes: [symmetric(pocketR)], mode: 'add', height: 0.25, sigma: [1.2, 0.6] });
    stitches.push({ c: path([-6.3, top + 0.22], [[6.3, top + 0.22]]), twin: 0.25, dash: 0.1 });
    for (const side of [1, -1]) {
      const opening = path(
        [side * 6.3, top],
        [
          [side * 7.0, top + 1.5],
          [side * 8.1, top + 4.0],
          [side * 8.6, yw - 2.2],
        ],
      );
      seams.push({ c: opening, depth: 0.3, w: 0.35 });
      stitches.push({ c: translate(opening, -side * 0.35, 0.1), dash: 0.1 });
      stitches.push({ c: path([side * 8.45, yw - 2.2], [[side * 8.5, yw - 0.2]]), dash: 0.1 });
      folds.push({
        c: path(
          [side * 7.0, top + 0.6],
          [
            [side * 5.5, top + 2],
            [side * 4.2, top + 3.2],
            [side * 3.0, top + 4.5],
          ],
        ),
        w: 1.2,
        amp: -0.12,
      });
    }
    seams.push({ c: path([-6.3, top], [[6.3, top]]), depth: 0.12, w: 0.14 });
  } else {
    // hood lying flat above the shoulders, center seam
    const hoodR = path(
      [0, -12.4],
      [
        [2.6, -12.5],
        [5.0, -12.1],
        [6.4, -10.4],
      ],
      [
        [7.6, -8.4],
        [7.9, -4.0],
        [7.7, -1.2],
      ],
      [
        [7.5, 0.2],
        [6.2, 0.6],
        [4.8, 0.8],
      ],
      [
        [3.0, 1.2],
        [1.5, 1.4],
        [0, 1.4],
      ],
    );
    parts.push({
      name: 'hood',
      shapes: [wobble(symmetric(hoodR), 0.05, 2, prng(8))],
      mode: 'paint',
      height: 0.9,
      sigma: [2.6, 2.6],
      base: 1.8,
    });
    seams.push({ c: path([0, -12.5], [[0, 1.3]]), depth: 0.14, w: 0.16 });
    stitches.push({ c: path([0.2, -12.4], [[0.2, 1.2]]), dash: 0.1, k: 0.8 });
    for (const side of [1, -1]) {
      folds.push({
        c: path(
          [side * 1.5, -1.0],
          [
            [side * 2.5, -3],
            [side * 3.5, -5],
            [side * 4.0, -8],
          ],
        ),
        w: 1.6,
        amp: -0.16,
      });
      folds.push({
        c: path(
          [side * 5.6, -2.0],
          [
            [side * 6.0, -4],
            [side * 6.1, -6],
            [side * 5.8, -8.5],
          ],
        ),
        w: 1.2,
        amp: 0.14,
      });
    }
  }
}

function poloExtras(
  sp: Spec,
  view: View,
  parts: Part[],
  folds: Fold[],
  seams: Seam[],
  stitches: Stitch[],
  dots: Dot[],
): void {
  const ni = sp.neckIn;
  if (view === 'front') {
    // inside of the back collar stand visible between the collar wings
    const interiorR = path(
      [0, 0.1],
      [
        [ni * 0.6, 0.1],
        [ni * 0.95, -0.2],
        [ni + 0.2, -0.45],
      ],
      [
        [ni * 0.7, 1.2],
        [0.9, 2.2],
        [0, 2.6],
      ],
    );
    parts.push({
      name: 'interior',
      shapes: [symmetric(interiorR)],
      mode: 'paint',
      height: 0.4,
      sigma: [1, 1],
      base: 0.6,
      tone: 0.55,
    });
    const standR = path(
      [0, -0.5],
      [
        [ni * 0.6, -0.5],
        [ni * 0.95, -0.75],
        [ni + 0.35, -0.95],
      ],
      [
        [ni + 0.3, -0.2],
        [ni * 0.6, 0.5],
        [0, 0.55],
      ],
    );
    parts.push({
      name: 'stand',
      shapes: [symmetric(standR)],
      mode: 'paint',
      height: 0.3,
      sigma: [0.4, 0.3],
      base: 1.2,
      tone: 0.78,
    });
    // placket with buttons
    const pw = 0.68;
    const pb = 8.2;
    const placket = path(
      [-pw, 2.2],
      [[pw, 2.2]],
      [[pw, pb - 0.25]],
      [
        [pw, pb],
        [pw * 0.5, pb + 0.05],
        [0, pb + 0.05],
      ],
      [
        [-pw * 0.5, pb + 0.05],
        [-pw, pb],
        [-pw, pb - 0.25],
      ],
    );
    parts.push({ name: 'placket', shapes: [placket], mode: 'add', height: 0.12, sigma: [0.2, 0.2] });
    seams.push({
      c: path(
        [-pw, 2.4],
        [[-pw, pb - 0.2]],
        [
          [-pw, pb],
          [pw, pb],
          [pw, pb - 0.2],
        ],
        [[pw, 2.4]],
      ),
      depth: 0.1,
      w: 0.1,
    });
    stitches.push({
      c: path([-pw + 0.12, 2.6], [[-pw + 0.12, pb - 0.12]], [[pw - 0.12, pb - 0.12]], [[pw - 0.12, 2.6]]),
      dash: 0.08,
    });
    stitches.push({
      c: path([-pw - 0.14, 2.8], [[-pw - 0.14, pb + 0.12]], [[pw + 0.14, pb + 0.12]], [[pw + 0.14, 2.8]]),
      dash: 0.08,
      k: 0.7,
    });
    seams.push({ c: path([0.02, 2.4], [[0.02, pb - 0.1]]), depth: 0.05, w: 0.06 });
    for (const y of [4.2, 6.4]) dots.push({ x: 0, y, r: 0.24, kind: 'button' });
    // collar wings lying over the shoulders, points over the placket
    const wingR = path(
      [ni + 0.35, -0.95],
      [
        [ni + 1.3, -0.6],
        [ni + 1.7, 0.4],
        [ni + 1.5, 1.6],
      ],
      [
        [ni + 1.2, 2.8],
        [ni - 0.4, 4.0],
        [2.4, 5.0],
      ],
      [
        [1.6, 4.1],
        [0.9, 3.0],
        [0.25, 2.35],
      ],
      [
        [0.9, 1.6],
        [ni * 0.55, 0.5],
        [ni + 0.35, -0.95],
      ],
    );
    for (const c of both(wingR)) {
      parts.push({ name: 'collar', shapes: [c], mode: 'add', height: 0.45, sigma: [0.35, 0.35], base: 0.1 });
    }
    // soft shadow cast by the collar wing onto the body along its outer edge
    const castR = path(
      [ni + 1.6, -0.2],
      [
        [ni + 1.75, 0.6],
        [ni + 1.65, 1.8],
        [ni + 1.3, 2.7],
      ],
      [
        [ni + 0.8, 3.6],
        [ni - 0.4, 4.3],
        [2.45, 5.1],
      ],
      [
        [2.1, 4.8],
        [1.8, 4.5],
        [1.5, 4.1],
      ],
    );
    for (const c of both(castR))
      seams.push({ c: translate(c, c.start[0] > 0 ? 0.08 : -0.08, 0.1), depth: 0.2, w: 0.3 });
    const edge = path(
      [ni + 1.45, 0.6],
      [
        [ni + 1.35, 2.2],
        [ni - 0.2, 3.8],
        [2.4, 4.8],
      ],
    );
    for (const c of both(edge))
      stitches.push({ c: translate(c, c.start[0] > 0 ? -0.25 : 0.25, -0.05), dash: 0.08, k: 0.6 });
    for (const side of [1, -1])
      folds.push({
        c: path(
          [side * (pw + 0.3), pb + 0.3],
          [
            [side * 1.6, pb + 1.6],
            [side * 2.6, pb + 2.2],
            [side * 3.6, pb + 2.5],
          ],
        ),
        w: 0.8,
        amp: -0.08,
      });
  } else {
    // collar seen from the back: a band lying around the neck
    const topR = path(
      [0, -0.55],
      [
        [2.0, -0.56],
        [3.8, -0.42],
        [ni + 1.5, 0.12],
      ],
    );
    const botR = path(
      [0, 1.4],
      [
        [2.0, 1.4],
        [ni + 0.9, 1.15],
        [ni + 1.65, 0.72],
      ],
    );
    const right = join(
      topR,
      path(
        [ni + 1.5, 0.12],
        [
          [ni + 1.75, 0.3],
          [ni + 1.75, 0.5],
          [ni + 1.65, 0.72],
        ],
      ),
      reverse(botR),
    );
    parts.push({
      name: 'collar',
      shapes: [symmetric(right)],
      mode: 'paint',
      height: 0.9,
      sigma: [0.5, 0.3],
      base: 3.9,
      ribs: [{ a: join(reverse(mirrorX(topR)), topR), b: join(reverse(mirrorX(botR)), botR), pitch: 0.06 }],
    });
    // fold line of the collar (top edge roll) and the collar stand seam below
    seams.push({ c: join(reverse(mirrorX(translate(topR, 0, 0.25))), translate(topR, 0, 0.25)), depth: 0.06, w: 0.2 });
    stitches.push({
      c: join(reverse(mirrorX(translate(botR, 0, -0.2))), translate(botR, 0, -0.2)),
      dash: 0.08,
      k: 0.5,
    });
    seams.push({ c: join(reverse(mirrorX(botR)), botR), depth: 0.12, w: 0.14 });
  }
  // side vents at the hem
  for (const side of [1, -1]) {
    const x = side * (sp.hem - 0.1);
    const y = sp.length;
    seams.push({ c: path([x, y - 1.6], [[x, y + 0.05]]), depth: 0.15, w: 0.1 });
    stitches.push({ c: path([x - side * 0.35, y - 0.1], [[x - side * 0.35, y - 1.7]], [[x, y - 1.7]]), dash: 0.08 });
  }
}

export interface Bounds {
  minX: number;
  maxX: number;
  minY: number;
  maxY: number;
}

function boundsOf(parts: Part[]): Bounds {
  const b = { minX: Infinity, maxX: -Infinity, minY: Infinity, maxY: -Infinity };
  for (const p of parts) {
    for (const sh of p.shapes) {
      for (const [x, y] of flatten(sh, 8)) {
        b.minX = Math.min(b.minX, x);
        b.maxX = Math.max(b.maxX, x);
        b.minY = Math.min(b.minY, y);
        b.maxY = Math.max(b.maxY, y);
      }
    }
  }
  return b;
}

/** Framing of a silhouette, shared by both views so front and back line up. */
export interface Framing {
  ppi: number;
  originY: number;
}

const framingCache = new Map<Silhouette, Framing>();

/** Fraction of the image the garment may occupy. */
const FILL_W = 0.88;
const FILL_H = 0.82;

export function framing(s: Silhouette): Framing {
  const hit = framingCache.get(s);
  if (hit) return hit;
  const bf = boundsOf(buildParts(s, 'front').parts);
  const bb = boundsOf(buildParts(s, 'back').parts);
  const b = {
    minX: Math.min(bf.minX, bb.minX),
    maxX: Math.max(bf.maxX, bb.maxX),
    minY: Math.min(bf.minY, bb.minY),
    maxY: Math.max(bf.maxY, bb.maxY),
  };
  const halfW = Math.max(-b.minX, b.maxX);
  const ppi = Math.floor(2 * Math.min((FILL_W * 2000) / (2 * halfW), (FILL_H * 2000) / (b.maxY - b.minY))) / 2;
  // center vertically, nudged up a little to leave room for the drop shadow
  const originY = Math.round(985 - ((b.minY + b.maxY) / 2) * ppi);
  const f = { ppi, originY };
  framingCache.set(s, f);
  return f;
}

const geoCache = new Map<string, Geometry>();

export function geometry(s: Silhouette, view: View): Geometry {
  const key = `${s}:${view}`;
  const hit = geoCache.get(key);
  if (hit) return hit;
  const g = { ...buildParts(s, view), ...framing(s) };
  geoCache.set(key, g);
  return g;
}
