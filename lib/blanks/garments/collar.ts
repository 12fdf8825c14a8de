/** The neck of a crew neck or tank (rib band, the inside seen through the neck, back neck tape) and a tank's armhole
 * binding. The hood and the polo collar are drawn by their garments (hoodie.ts, polo.ts). */
import type { View } from '../geometry';
import { type Curve, curve, join, line, mirrorX, path, reverse, symmetric, translate } from '../path';
import { type Drawing, type Spec, both } from './spec';

/** `topNeck`: the right half of the body outline's neck edge (bodyRight). */
export function collarParts(sp: Spec, view: View, topNeck: Curve, d: Drawing): void {
  const { parts, seams, stitches } = d;
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
      const interiorR = join(topNeck, innerR);
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
        [0, topNeck.start[1] + rib],
        [
          [ni * 0.3, topNeck.start[1] + rib],
          [ni * 0.6, topNeck.start[1] + rib],
          [ni - 0.1, rib * 0.75],
        ],
      );
      parts.push({
        name: 'backrib',
        shapes: [symmetric(join(topNeck, reverse(backRibInner)))],
        mode: 'paint',
        height: 0.3,
        sigma: [0.5, 0.3],
        base: 1.2,
        tone: 0.72,
        ribs: [
          {
            a: join(reverse(mirrorX(topNeck)), topNeck),
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
      const bandR = join(topNeck, curve([ni, -0.08], line([ni, -0.08], [no, 0.05])), seamR);
      parts.push({
        name: 'collar',
        shapes: [symmetric(bandR)],
        mode: 'add',
        height: 0.3,
        sigma: [0.25, 0.25],
        ribs: [
          {
            a: join(reverse(mirrorX(topNeck)), topNeck),
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
}
