// Technique choice, following the spec's print technique guide:
//   dtg         unlimited colors; full color, photos, gradients
//   screen      1-8 colors; simple designs, large runs
//   embroidery  1-15 colors; logos and text
//   vinyl       1-3 colors; names, numbers, simple shapes
// plus the one thing the guide leaves to the shop: the quantity, which decides between screen's setup cost and
// DTG's flat per-piece price.
import { orderTotals, SCREEN_MODEL, type DtgPrice, type ScreenPrice } from './pricing';

export type Technique = 'dtg' | 'screen' | 'embroidery' | 'vinyl';
export type Complexity = 'simple' | 'moderate' | 'complex';

export const LIMITS = { vinyl: 3, screen: 8, embroidery: 15 } as const;
/** Vinyl is cut and weeded piece by piece: sensible only below screen printing's minimum run. */
export const VINYL_MAX_QUANTITY = SCREEN_MODEL.minimumQuantity - 1;
/** Vinyl suits names, numbers and shapes, not solid blocks covering most of the print (heavy and airless). */
export const VINYL_MAX_COVERAGE = 0.6;
/** Embroidery suits logos: not designs that fill their whole canvas. */
export const EMBROIDERY_MAX_COVERAGE = 0.5;

export interface DesignFacts {
  colorCount: number;
  /** Gradients or photographic tones. */
  continuousTone: boolean;
  /** Genuinely semi-transparent areas (soft shadows, glows). */
  translucent: boolean;
  /** Detail too fine for embroidery. */
  fineDetail: boolean;
  /** Alpha-weighted share of the canvas that carries ink. */
  inkCoverage: number;
}

export interface Recommendation {
  technique: Technique;
  reason: string;
  complexity: Complexity;
}

const usd = (v: number) => `$${v.toFixed(2)}`;
const colors = (n: number) => `${n} color${n === 1 ? '' : 's'}`;
const pieces = (n: number) => `${n} piece${n === 1 ? '' : 's'}`;

export function complexityOf(f: DesignFacts): Complexity {
  if (f.continuousTone || f.translucent || f.colorCount > LIMITS.screen) return 'complex';
  if (f.colorCount > LIMITS.vinyl || f.fineDetail) return 'moderate';
  return 'simple';
}

export function recommend(f: DesignFacts, quantity: number, screen: ScreenPrice, dtg: DtgPrice): Recommendation {
  const complexity = complexityOf(f);
  const n = f.colorCount;
  const at = (t: Technique, reason: string): Recommendation => ({ technique: t, reason, complexity });

  if (n === 0)
    return at(
      'dtg',
      'The image has no visible pixels, so there is nothing to separate into colors; DTG needs no setup for a test print.',
    );
  if (f.continuousTone) {
    return at(
      'dtg',
      `The design has gradients or photographic tones (${colors(n)} detected): DTG prints full color directly, while screen printing would need halftone separations and vinyl and embroidery cannot reproduce smooth tones.`,
    );
  }
  if (f.translucent) {
    return at(
      'dtg',
      'The design has semi-transparent areas (soft shadows, glows or feathered edges): DTG prints partial transparency directly; screen printing and vinyl need solid, opaque shapes.',
    );
  }
  if (n > LIMITS.embroidery) {
    return at(
      'dtg',
      `${colors(n)} is more than screen printing (up to ${LIMITS.screen}), embroidery (up to ${LIMITS.embroidery}) or vinyl (up to ${LIMITS.vinyl}) can use; DTG prints unlimited colors.`,
    );
  }
  if (n > LIMITS.screen) {
    if (!f.fineDetail && f.inkCoverage <= EMBROIDERY_MAX_COVERAGE) {
      return at(
        'embroidery',
        `A flat, logo-like design with ${colors(n)}: too many for screen printing (up to ${LIMITS.screen}) but within embroidery's ${LIMITS.embroidery} thread colors, and its details are bold enough to stitch.`,
      );
    }
    return at(
      'dtg',
      `${colors(n)} is more than screen printing's ${LIMITS.screen} spot colors${f.fineDetail ? ', and the detail is too fine to embroider' : ' and the design is too large an area to embroider'}; DTG prints unlimited colors.`,
    );
  }

  // 1-8 flat colors: screen, vinyl or DTG, decided by the run size.
  const totals = orderTotals(screen, dtg, quantity);
  if (quantity >= SCREEN_MODEL.minimumQuantity && totals.screen <= totals.dtg) {
    return at(
      'screen',
      `${colors(n)} of flat spot color at ${pieces(quantity)}: screen printing is the cheapest, about ${usd(totals.screen / quantity)} a piece including the ${usd(screen.setup)} setup for ${screen.screens} screen${screen.screens === 1 ? '' : 's'}, against ${usd(dtg.perUnit)} a piece for DTG.`,
    );
  }
  if (n <= LIMITS.vinyl && !f.fineDetail && quantity <= VINYL_MAX_QUANTITY && f.inkCoverage <= VINYL_MAX_COVERAGE) {
    return at(
      'vinyl',
      `${colors(n)} in bold, simple shapes and a small run of ${pieces(quantity)}: heat-transfer vinyl needs no screens or setup, and the design is within vinyl's ${LIMITS.vinyl}-color limit.`,
    );
  }
  const why =
    quantity < SCREEN_MODEL.minimumQuantity
      ? `${pieces(quantity)} is below the usual screen printing minimum of ${SCREEN_MODEL.minimumQuantity}`
      : `at ${pieces(quantity)} the screen setup (${usd(screen.setup)} for ${screen.screens} screen${screen.screens === 1 ? '' : 's'}) makes screen printing dearer than DTG (${usd(totals.screen / quantity)} against ${usd(dtg.perUnit)} a piece)`;
  const notVinyl =
    n > LIMITS.vinyl
      ? `, and ${colors(n)} is more than vinyl's ${LIMITS.vinyl}`
      : f.fineDetail
        ? ', and the detail is too fine to cut in vinyl'
        : '';
  return at('dtg', `${why[0]!.toUpperCase()}${why.slice(1)}${notVinyl}: DTG has no setup cost.`);
}
