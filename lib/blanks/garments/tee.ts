/** The short-sleeved crew neck tee. */
import type { Spec } from './spec';

/** Print zones of the tees (the long sleeve has the same). */
export const TEE_ZONES: Spec['zones'] = {
  front: { view: 'front', cx: 0, top: 6.4, w: 12, h: 16 },
  back: { view: 'back', cx: 0, top: 4.2, w: 12, h: 16 },
  // wearer's LEFT chest appears on the RIGHT of a front-view image (+x)
  'left-chest': { view: 'front', cx: 4.7, top: 6.0, w: 4, h: 4 },
  'right-chest': { view: 'front', cx: -4.7, top: 6.0, w: 4, h: 4 },
};

export const tee: Spec = {
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
};
