/** The tank top: no sleeves, a deep scoop neck, bound armholes (drawn by collar.ts). */
import type { Spec } from './spec';

export const tank: Spec = {
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
};
