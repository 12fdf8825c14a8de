/** The hoodie: heavy fleece, a hood (standing up in front, lying flat behind), drawcords, a kangaroo pocket. */
import type { View } from '../geometry';
import { prng } from '../noise';
import { type Pt, curve, endOf, flatten, join, line, path, reverse, symmetric, translate, wobble } from '../path';
import { type Drawing, type FoldRow, type Garment, type Spec, both, mirroredFolds } from './spec';

/** y of the kangaroo pocket's top seam (inches below HPS). */
export const POCKET_TOP = 17;

const spec: Spec = {
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
};

/** Folds of the hood standing up (front view). */
const HOOD_FRONT_FOLDS: readonly FoldRow[] = [
  {
    c: [5.4, -7.8, 6.0, -6.0, 6.3, -4, 6.2, -2],
    w: 1.1,
    amp: -0.15,
  },
  {
    c: [5.0, 2.2, 5.8, 1.2, 6.4, 0.0, 6.7, -1.6],
    w: 1.0,
    amp: -0.18,
  },
];

/** A fold from each pocket opening towards the center, from the pocket's top seam at the center. */
const POCKET_FOLDS: readonly FoldRow[] = [
  {
    c: [7.0, 0.6, 5.5, 2, 4.2, 3.2, 3.0, 4.5],
    w: 1.2,
    amp: -0.12,
  },
];

/** Folds of the hood lying flat (back view). */
const HOOD_BACK_FOLDS: readonly FoldRow[] = [
  {
    c: [1.5, -1.0, 2.5, -3, 3.5, -5, 4.0, -8],
    w: 1.6,
    amp: -0.16,
  },
  {
    c: [5.6, -2.0, 6.0, -4, 6.1, -6, 5.8, -8.5],
    w: 1.2,
    amp: 0.14,
  },
];

function extras(sp: Spec, view: View, d: Drawing): void {
  const { parts, folds, seams, stitches, dots } = d;
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
    folds.push(...mirroredFolds(HOOD_FRONT_FOLDS));
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
    }
    folds.push(...mirroredFolds(POCKET_FOLDS, [0, top]));
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
    folds.push(...mirroredFolds(HOOD_BACK_FOLDS));
  }
}

export const hoodie: Garment = { spec, extras };
