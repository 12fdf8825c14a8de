/**
 * Garment drawings for every silhouette and view, in inches (see path.ts).
 *
 * Each garment is described by a handful of measurements (`Spec`, garments/<silhouette>.ts) that the generic
 * builders in garments/ turn into panels (body, sleeves, collar, cuffs...), folds, seams and stitching; what only
 * one garment has (the hoodie's hood and pocket, the polo's collar and placket) is drawn by its own module.
 * Measurements are those of an adult size L.
 */
import type { Geometry, Part, Silhouette, View, ZoneSpec } from './geometry';
import { hashString, prng } from './noise';
import { flatten } from './path';
import { bodyParts, bodyRight, sideSeams } from './garments/body';
import { collarParts } from './garments/collar';
import { crewneck } from './garments/crewneck';
import { neckFolds, sleeveFolds, torsoFolds } from './garments/folds';
import { hoodie } from './garments/hoodie';
import { longsleeve } from './garments/longsleeve';
import { polo } from './garments/polo';
import { buildSleeve, sleeveParts, sleeveSeams } from './garments/sleeve';
import type { Drawing, Garment, Spec } from './garments/spec';
import { tank } from './garments/tank';
import { tee } from './garments/tee';

export { POCKET_TOP } from './garments/hoodie';

const GARMENTS: Record<Silhouette, Garment> = {
  tee: { spec: tee },
  longsleeve: { spec: longsleeve },
  tank: { spec: tank },
  crewneck: { spec: crewneck },
  hoodie,
  polo,
};

export const SPECS: Record<Silhouette, Spec> = {
  tee: GARMENTS.tee.spec,
  longsleeve: GARMENTS.longsleeve.spec,
  tank: GARMENTS.tank.spec,
  crewneck: GARMENTS.crewneck.spec,
  hoodie: GARMENTS.hoodie.spec,
  polo: GARMENTS.polo.spec,
};

/**
 * Build the full drawing of a silhouette in a view (without image placement). The drawing's random generator is
 * seeded by silhouette and view and drawn from in this order: sleeve outlines, body outline, torso folds, sleeve
 * folds.
 */
function buildParts(s: Silhouette, view: View): Omit<Geometry, 'ppi' | 'originY'> {
  const { spec: sp, extras } = GARMENTS[s];
  const rnd = prng(hashString(`${s}:${view}`));
  const jit = (k: number) => (rnd() * 2 - 1) * k;
  const d: Drawing = { parts: [], folds: [], seams: [], stitches: [], dots: [] };

  const sleeve = buildSleeve(sp);
  const body = bodyRight(sp, view);
  const yb = body.bottomSide;

  if (sleeve) sleeveParts(sp, sleeve, rnd, d); // behind the body
  bodyParts(sp, body, rnd, d);
  collarParts(sp, view, body.topNeck, d);
  if (sleeve) sleeveSeams(sp, d);
  sideSeams(sp, yb, d);

  d.folds.push(...torsoFolds(sp, view, yb, rnd, jit));
  if (sleeve) d.folds.push(...sleeveFolds(sp, sleeve, rnd, jit));
  d.folds.push(...neckFolds(sp, view));

  extras?.(sp, view, d);

  const calm = Object.values(sp.zones).filter((z): z is ZoneSpec => !!z && z.view === view);
  const { parts, folds, seams, stitches, dots } = d;
  return { silhouette: s, view, parts, folds, seams, stitches, dots, calm, fleece: sp.fleece };
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
