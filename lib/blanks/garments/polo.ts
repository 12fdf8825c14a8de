/** The polo: a knit collar over a buttoned placket, short sleeves with arm bands, vents at the hem. */
import type { View } from '../geometry';
import { join, mirrorX, path, reverse, symmetric, translate } from '../path';
import { type Drawing, type FoldRow, type Garment, type Spec, both, mirroredFolds } from './spec';

const spec: Spec = {
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
};

/** The placket: half its width, and the y of its bottom (inches below HPS). */
const PLACKET = { halfWidth: 0.68, bottom: 8.2 };

/** A fold from each side of the placket's bottom, from its bottom at the center. */
const PLACKET_FOLDS: readonly FoldRow[] = [
  {
    c: [PLACKET.halfWidth + 0.3, 0.3, 1.6, 1.6, 2.6, 2.2, 3.6, 2.5],
    w: 0.8,
    amp: -0.08,
  },
];

function extras(sp: Spec, view: View, d: Drawing): void {
  const { parts, folds, seams, stitches, dots } = d;
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
    const { halfWidth: pw, bottom: pb } = PLACKET;
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
    folds.push(...mirroredFolds(PLACKET_FOLDS, [0, pb]));
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

export const polo: Garment = { spec, extras };
