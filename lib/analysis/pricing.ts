// The price model: decoration cost per piece, blank garment not included, USD, one print location (front), light
// garments. Grounded in published shop price lists (see README "Price model"):
//  - Screen printing: each color needs its own screen, charged once per color per location (film + screen:
//    US Colorworks $13 + $12-14, Got2GetMyTees $20, Grand Palace $15), and a per-piece run charge that falls
//    steeply with quantity and rises with each extra color (Grand Palace contract chart: 1 color $3.60 at 24+,
//    $1.90 at 72+, $1.20 at 288+, $1.00 at 576+; about +$0.15-0.35 per extra color). Minimum run 24.
//  - DTG: no setup; price driven by printed area (ink) with modest quantity breaks. Shops quote roughly $5 for a
//    small print to $10-12 for a full 12x15 in front on a light garment.

export const CURRENCY = 'USD';

export const SCREEN_MODEL = {
  setupPerScreen: 25,
  minimumQuantity: 24,
  maxColors: 8,
  /** Run charge per piece: first color, and each additional color, by minimum quantity of the tier. */
  tiers: [
    { from: 24, first: 3.6, extra: 0.45 },
    { from: 48, first: 2.45, extra: 0.35 },
    { from: 72, first: 1.9, extra: 0.3 },
    { from: 144, first: 1.5, extra: 0.25 },
    { from: 288, first: 1.2, extra: 0.2 },
    { from: 576, first: 1.0, extra: 0.15 },
    { from: 1200, first: 0.75, extra: 0.13 },
    { from: 2500, first: 0.6, extra: 0.12 },
    { from: 5000, first: 0.48, extra: 0.11 },
  ],
} as const;

export const DTG_MODEL = {
  /** Handling, pretreatment and machine time per piece. */
  base: 4.0,
  /** Ink per printed square inch. */
  perSquareInch: 0.032,
  /** Quantity breaks (multiplier on the per-piece price). */
  discounts: [
    { from: 1, factor: 1.0 },
    { from: 12, factor: 0.95 },
    { from: 24, factor: 0.9 },
    { from: 50, factor: 0.85 },
    { from: 100, factor: 0.8 },
    { from: 250, factor: 0.75 },
    { from: 500, factor: 0.7 },
  ],
} as const;

const cents = (v: number) => Math.round(v * 100) / 100;

export interface ScreenPrice {
  perUnit: number;
  setup: number;
  minimumQuantity: number;
  currency: string;
  /** Screens priced: one per color, 1 to 8 (more colors would be separated into at most 8). */
  screens: number;
}

/** Screen price for `colors` spot colors at `quantity` pieces (quantities under the minimum are priced at it). */
export function screenPrice(colors: number, quantity: number): ScreenPrice {
  const screens = Math.min(SCREEN_MODEL.maxColors, Math.max(1, colors));
  const q = Math.max(quantity, SCREEN_MODEL.minimumQuantity);
  let tier: (typeof SCREEN_MODEL.tiers)[number] = SCREEN_MODEL.tiers[0];
  for (const t of SCREEN_MODEL.tiers) if (q >= t.from) tier = t;
  return {
    perUnit: cents(tier.first + tier.extra * (screens - 1)),
    setup: cents(SCREEN_MODEL.setupPerScreen * screens),
    minimumQuantity: SCREEN_MODEL.minimumQuantity,
    currency: CURRENCY,
    screens,
  };
}

export interface DtgPrice {
  perUnit: number;
  currency: string;
  /** Printed (inked) area in square inches the price is based on. */
  printedSquareInches: number;
}

/** DTG price by printed area: `printedSquareInches` is the design's ink coverage times its size on the garment. */
export function dtgPrice(printedSquareInches: number, quantity: number): DtgPrice {
  let factor = 1;
  for (const d of DTG_MODEL.discounts) if (quantity >= d.from) factor = d.factor;
  return {
    perUnit: cents((DTG_MODEL.base + DTG_MODEL.perSquareInch * printedSquareInches) * factor),
    currency: CURRENCY,
    printedSquareInches: Math.round(printedSquareInches * 10) / 10,
  };
}

/** What the whole order costs with each technique (setup included), for comparing them. */
export function orderTotals(screen: ScreenPrice, dtg: DtgPrice, quantity: number) {
  const q = Math.max(quantity, 1);
  return {
    screen: cents(screen.setup + screen.perUnit * Math.max(q, screen.minimumQuantity)),
    dtg: cents(dtg.perUnit * q),
  };
}
