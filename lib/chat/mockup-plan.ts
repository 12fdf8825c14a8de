// Which mockups a chat job makes: with two or more blanks, the first two with the design on the front;
// with one blank, a full-front and a left-chest placement on it; with none, no mockups. Zones: a catalogue blank
// uses its garment's zones; a foreign blank (a client's own photo) a centred default zone, since nothing is known
// of where its garment sits.
import type { ZoneRect } from '../compositing/composite';
import type { Placement } from '../compositing/placement';
import type { MockupPlacement } from './types';

export type { ZoneRect };

export interface PlannedMockup {
  garmentUrl: string;
  placement: MockupPlacement;
}

export function planMockups(garmentUrls: readonly string[]): PlannedMockup[] {
  if (garmentUrls.length === 0) return [];
  if (garmentUrls.length === 1)
    return [
      { garmentUrl: garmentUrls[0]!, placement: 'front' },
      { garmentUrl: garmentUrls[0]!, placement: 'left-chest' },
    ];
  return garmentUrls.slice(0, 2).map((garmentUrl) => ({ garmentUrl, placement: 'front' as const }));
}

/**
 * Zones for a blank we know nothing about, in fractions of the image: a centred chest-to-waist area for the front
 * (a photo of a garment laid flat or on a model is centred on it), and a small square on the wearer's left chest,
 * which appears on the right of a front view.
 */
export const DEFAULT_ZONES: Record<MockupPlacement, ZoneRect> = {
  front: { x: 0.3, y: 0.25, width: 0.4, height: 0.45 },
  'left-chest': { x: 0.56, y: 0.27, width: 0.13, height: 0.13 },
};

/** Where the design sits in its zone (spec placement: centre in % of the zone, scale of the zone). */
export const MOCKUP_PLACEMENTS: Record<MockupPlacement, Placement> = {
  front: { x: 50, y: 40, scale: 0.85, rotation: 0 },
  'left-chest': { x: 50, y: 50, scale: 1, rotation: 0 },
};

/** A left-chest zone for a garment that has none (a tank): a square at the top right of its main zone. */
export function leftChestFrom(main: ZoneRect, imageAspect = 1): ZoneRect {
  const width = main.width * 0.33;
  const height = Math.min(main.height, width * imageAspect);
  return { x: main.x + main.width - width, y: main.y, width, height };
}

/**
 * The zone of a planned mockup: a catalogue blank's own zones (its front zone, or its back zone for a back view; its
 * left-chest zone, or one derived from the main zone), a foreign blank's (`known` null) the default zone.
 */
export function mockupZone(known: { zones: Record<string, ZoneRect> } | null, placement: MockupPlacement): ZoneRect {
  if (!known) return DEFAULT_ZONES[placement];
  const main = known.zones.front ?? known.zones.back!;
  if (placement === 'front') return main;
  return known.zones['left-chest'] ?? leftChestFrom(main);
}
