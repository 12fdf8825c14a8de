/** The body panel: its outline, the waistband (fleece) or the stitched hem, and the side seams. */
import type { View } from '../geometry';
import { type Curve, type Pt, curve, join, line, mirrorX, path, reverse, symmetric, translate, wobble } from '../path';
import { type Drawing, type Spec, both } from './spec';

/** Right half of the body outline, from the top center to the bottom center. */
export function bodyRight(sp: Spec, view: View): { outline: Curve; topNeck: Curve; bottomSide: number } {
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

/** The body panel, then the waistband or the hem's stitching; `yb` is the bottom of the body at the side. */
export function bodyParts(sp: Spec, body: ReturnType<typeof bodyRight>, rnd: () => number, d: Drawing): void {
  const { parts, seams, stitches } = d;
  const yb = body.bottomSide;
  const puff = sp.puff;
  const fl = sp.fleece;
  const outline = wobble(symmetric(body.outline), 0.07, 2.5, rnd);
  parts.push({ name: 'body', shapes: [outline], mode: 'paint', height: 6 * puff, sigma: [3.8 + fl, 0.12], base: 0.25 });

  // the waistband (fleece), or the stitched hem
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
}

/** Side seams, just inside the silhouette. */
export function sideSeams(sp: Spec, yb: number, d: Drawing): void {
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
  for (const c of both(side)) d.seams.push({ c, depth: 0.03, w: 0.12 });
}
