// Unit economics of a published product: what one front-printed item costs to make and ship, and what
// is left of its retail price. The spec's cost components: print 30 USD, blank about 15 USD, fulfillment 5 USD,
// total about 50 USD; suggested retail from 59.99 USD. The blank is the garment's catalogue `basePrice` when the
// mockup is on a catalogue garment, else the spec's 15 USD.
//
// Money is computed in whole cents: every input is rounded to the cent (half away from zero), the sums and the
// difference are exact in cents, and the answer is in USD (cents / 100, so at most two decimals). The margin is
// price − total per unit and may be negative (a price below cost).
//
// The print is costed from the product's print file (issue 36, lib/print/cost.ts: a fixed cost per print plus ink by
// the inked area, calibrated on the spec's 30 USD front print); the caller passes it as `printCents`. Without one (a
// mockup whose print has no physical size), the spec's flat 30 USD.

/** The spec's flat print cost: a mockup with no print file (no physical print size). */
export const PRINT_COST_CENTS = 3000;
export const DEFAULT_BLANK_COST_CENTS = 1500;
export const FULFILLMENT_COST_CENTS = 500;
/** Spec "Suggested retail starting price". */
export const SUGGESTED_PRICE = 59.99;

export interface UnitCosts {
  print: number;
  blank: number;
  fulfillment: number;
  total: number;
}

export interface UnitEconomics {
  /** USD per unit */
  price: number;
  costs: UnitCosts;
  /** price − costs.total, USD per unit */
  margin: number;
}

/** USD → whole cents, half away from zero (1.005 → 101, not 100.49999…). */
export function toCents(usd: number): number {
  if (!Number.isFinite(usd)) throw new RangeError(`not an amount: ${usd}`);
  const cents = Math.round(Number((Math.abs(usd) * 100).toFixed(6)));
  return usd < 0 ? -cents : cents;
}

const toUsd = (cents: number) => cents / 100;

/**
 * The cost rule. `blankPrice`: the garment's basePrice in USD (a number or the catalogue's numeric text), or
 * null/undefined when the mockup is not on a catalogue garment (the spec's default blank, 15 USD). `printCents`: the
 * print cost from the print file (whole cents), or null/undefined for the spec's flat 30 USD.
 */
export function unitEconomics(input: {
  price: number;
  blankPrice?: number | string | null;
  printCents?: number | null;
}): UnitEconomics {
  const priceCents = toCents(input.price);
  const printCents = input.printCents ?? PRINT_COST_CENTS;
  if (!Number.isInteger(printCents) || printCents < 0) throw new RangeError(`not a print cost: ${printCents}`);
  const blank = input.blankPrice === null || input.blankPrice === undefined ? null : Number(input.blankPrice);
  if (blank !== null && (!Number.isFinite(blank) || blank < 0)) throw new RangeError(`not a blank price: ${blank}`);
  const blankCents = blank === null ? DEFAULT_BLANK_COST_CENTS : toCents(blank);
  const totalCents = printCents + blankCents + FULFILLMENT_COST_CENTS;
  return {
    price: toUsd(priceCents),
    costs: {
      print: toUsd(printCents),
      blank: toUsd(blankCents),
      fulfillment: toUsd(FULFILLMENT_COST_CENTS),
      total: toUsd(totalCents),
    },
    margin: toUsd(priceCents - totalCents),
  };
}
