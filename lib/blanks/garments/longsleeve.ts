/** The long-sleeved tee: the tee's body with long sleeves and rib cuffs. */
import type { Spec } from './spec';
import { TEE_ZONES } from './tee';

export const longsleeve: Spec = {
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
};
