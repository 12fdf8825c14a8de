/**
 * The folds every top has: drag lines from the armpits, waist wrinkles, a broad drape, hem ripples, sleeve folds and
 * small folds at the neck. Fixed folds are tables (a cubic per row, in inches from an origin, mirrored for the left
 * side); the others are placed at random from the drawing's own seeded generator, so each silhouette and view always
 * gets the same ones. The order of the random draws is part of the drawing: a change moves every later fold.
 */
import type { Fold, View } from '../geometry';
import { type Pt, path } from '../path';
import type { SleeveGeo } from './sleeve';
import { type FoldRow, type Spec, both, mirroredFolds } from './spec';

/** A random offset in [-k, k]. */
type Jitter = (k: number) => number;

/** Drag lines from the armpit towards the chest (not on a tank): x from the chest side, y from the armpit. */
const ARMPIT_DRAGS: readonly (FoldRow & { endJitter?: number })[] = [
  {
    c: [-0.5, 0.6, -2, 1.4, -3.6, 2.6, -5, 4.2],
    w: 1.4,
    amp: -0.28,
    endJitter: 0.5,
  },
  {
    c: [-0.4, 2.0, -2, 3.0, -3.2, 4.2, -4.4, 6.4],
    w: 1.6,
    amp: 0.22,
  },
];

/** Small radial folds under a crew or tank collar (front view): from the neck's center front. */
const NECK_FRONT: readonly FoldRow[] = [
  {
    c: [1.2, 0.2, 1.5, 0.8, 1.8, 1.4, 2.3, 2.1],
    w: 0.8,
    amp: -0.08,
  },
];

/** Folds across the back yoke (back view): from the shoulder point. */
const BACK_YOKE: readonly FoldRow[] = [
  {
    c: [-0.8, 1.2, -2.2, 2.3, -3.6, 3.0, -5.2, 3.3],
    w: 1.6,
    amp: -0.16,
  },
];

/** Hem ripples: where they start across the hem (inches from the center, before jitter). */
const HEM_RIPPLE_X = [-7.8, -3.6, 1.2, 5.2, 8.6];

/**
 * A length along a sleeve or across it: inches, or `{ k, d }` = k × the reference (the under-arm length along, the
 * opening across) + d.
 */
type SleeveLen = number | { k: number; d: number };
const ofRef = (k: number, d = 0): SleeveLen => ({ k, d });
const resolve = (v: SleeveLen, ref: number) => (typeof v === 'number' ? v : ref * v.k + v.d);

/** A sleeve fold: an arc from (along, across) to (along, across), bulging towards the sleeve's end. */
interface SleeveFoldRow {
  from: readonly [SleeveLen, SleeveLen];
  to: readonly [SleeveLen, SleeveLen];
  w: number;
  amp: number;
}

const SHORT_SLEEVE: readonly SleeveFoldRow[] = [
  { from: [0.2, 0.3], to: [2.6, ofRef(0.75)], w: 1.2, amp: -0.24 },
  { from: [1.6, 0.2], to: [3.8, ofRef(0.6)], w: 1.3, amp: 0.2 },
  { from: [0.5, ofRef(0.9)], to: [2.0, ofRef(0.4)], w: 1.0, amp: -0.12 },
];

/** Long sleeves, after the bunching at the elbow and cuff (amplitudes scaled by the garment's puff). */
const LONG_SLEEVE: readonly SleeveFoldRow[] = [
  { from: [ofRef(1, -1.0), 0.2], to: [ofRef(1, -1.8), ofRef(0.9)], w: 0.9, amp: -0.2 },
  { from: [2, 0.5], to: [ofRef(0.45), ofRef(0.7)], w: 1.3, amp: 0.2 },
];

/** Folds of the torso, both sides: armpit drags, waist wrinkles, the drape, hem ripples. `yb`: the body's bottom. */
export function torsoFolds(sp: Spec, view: View, yb: number, rnd: () => number, jit: Jitter): Fold[] {
  const folds: Fold[] = [];
  const puff = sp.puff;
  const H = sp.chest;
  const ua = sp.underarm;
  for (const side of [1, -1]) {
    const j1 = jit(0.6);
    if (sp.collar !== 'tank') {
      for (const { c, w, amp, endJitter } of ARMPIT_DRAGS) {
        // x from the chest side (the end point's jittered), y from the armpit moved by this side's jitter
        const at = (i: number, jx?: number): Pt => [
          side * (jx === undefined ? H + c[2 * i]! : H + c[2 * i]! + jit(jx)),
          ua + c[2 * i + 1]! + j1,
        ];
        folds.push({ c: path(at(0), [at(1), at(2), at(3, endJitter)]), w, amp: amp * puff });
      }
    }
    // side waist compression wrinkles: two or three (the bound is drawn again before each)
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
  HEM_RIPPLE_X.forEach((x0, i) => {
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
  return folds;
}

/** Folds of both sleeves: a short sleeve's table, or a long sleeve's bunching at the elbow and cuff and its table. */
export function sleeveFolds(sp: Spec, sleeve: SleeveGeo, rnd: () => number, jit: Jitter): Fold[] {
  const folds: Fold[] = [];
  const spec = sp.sleeve!;
  const { armpit, u, n } = sleeve;
  const at = (along: number, across: number): Pt => [
    armpit[0] + u[0] * along - n[0] * across,
    armpit[1] + u[1] * along - n[1] * across,
  ];
  const width = spec.open;
  const L = spec.under;
  const mk = (a0: number, c0: number, a1: number, c1: number, w: number, amp: number, crisp = false) => {
    // arc bulging towards the sleeve end
    const c = path(at(a0, c0), [
      at(a0 + (a1 - a0) * 0.33 + 0.5, c0 + (c1 - c0) * 0.33),
      at(a0 + (a1 - a0) * 0.66 + 0.5, c0 + (c1 - c0) * 0.66),
      at(a1, c1),
    ]);
    for (const cc of both(c)) folds.push({ c: cc, w, amp: amp * (0.8 + rnd() * 0.4), crisp });
  };
  const table = (rows: readonly SleeveFoldRow[], ampScale?: number) => {
    for (const r of rows) {
      const [a0, c0, a1, c1] = [
        resolve(r.from[0], L),
        resolve(r.from[1], width),
        resolve(r.to[0], L),
        resolve(r.to[1], width),
      ];
      mk(a0, c0, a1, c1, r.w, ampScale === undefined ? r.amp : r.amp * ampScale);
    }
  };
  if (spec.kind === 'short') {
    table(SHORT_SLEEVE);
  } else {
    const fl = sp.fleece;
    const puff = sp.puff;
    // elbow and cuff bunching: soft arcs across the sleeve
    for (let k = 0; k < 5; k++) {
      const a = L * (0.3 + k * 0.13) + jit(0.5);
      mk(a, 0.1, a - 1.4 - rnd(), width * (1.0 + rnd() * 0.2), 1.0 + fl * 0.5, (k % 2 ? 0.2 : -0.24) * puff);
    }
    table(LONG_SLEEVE, puff);
  }
  return folds;
}

/** Small radial folds under a crew or tank collar (front view), or across the back yoke (back view). */
export function neckFolds(sp: Spec, view: View): Fold[] {
  if (view === 'front' && sp.collar !== 'hood') return mirroredFolds(NECK_FRONT, [0, sp.frontDrop]);
  if (view === 'back') return mirroredFolds(BACK_YOKE, [sp.shoulder, sp.shoulderDrop]);
  return [];
}
