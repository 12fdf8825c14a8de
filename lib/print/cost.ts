// The print cost of one item, from its print file: a fixed cost per print (loading, pretreatment, curing) plus ink
// by the inked area, with a white underbase on a dark garment doubling the ink. Calibrated on the spec's front-printed
// item (print 30 USD): a design filling the default placement's box (scale 0.8) of the 12 x 16 in front zone,
// 9.6 x 12.8 in = 122.88 sq in of full ink on a light garment, costs exactly 30.00 USD.
//
//   print = PRINT_BASE + PRINT_RATE x inked area (sq in) x (2 with an underbase, else 1), in cents, rounded

/** Fixed cost of any print, USD cents. */
export const PRINT_BASE_CENTS = 600;
/** The calibration print: 9.6 x 12.8 in of full ink. */
export const CALIBRATION_AREA_IN2 = 9.6 * 12.8;
/** USD cents per square inch of ink: (30 - 6) USD over the calibration area. */
export const PRINT_RATE_CENTS_PER_IN2 = (3000 - PRINT_BASE_CENTS) / CALIBRATION_AREA_IN2;

/** Print cost in whole cents from the inked area (square inches, alpha-weighted) and whether an underbase is laid. */
export function printCostCents(inkedAreaIn2: number, underbase = false): number {
  if (!Number.isFinite(inkedAreaIn2) || inkedAreaIn2 < 0) throw new RangeError(`not an area: ${inkedAreaIn2}`);
  return Math.round(PRINT_BASE_CENTS + PRINT_RATE_CENTS_PER_IN2 * inkedAreaIn2 * (underbase ? 2 : 1));
}
