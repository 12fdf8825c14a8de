/** The crew neck sweatshirt: heavy fleece, long sleeves with rib cuffs, a rib waistband. */
import type { Spec } from './spec';

export const crewneck: Spec = {
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
};
