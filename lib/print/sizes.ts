// Print sizes by garment size. The catalogue's print zones (maxWidth x maxHeight inches) are those of the reference
// sizes, M and up; a smaller garment has a narrower chest, so its print is scaled down to fit a smaller zone, the
// design keeping its place in it (same x, y, scale and rotation: the whole print shrinks). Labels we do not know
// (youth sizes, one-size, a seller's own) print at the zone's size.

/** Scale of the zone (and the print in it) by garment size label; anything not listed is 1. */
export const SIZE_PRINT_SCALE: Readonly<Record<string, number>> = { XXS: 0.75, '2XS': 0.75, XS: 0.83, S: 0.92 };

/** The reference sizes, printed at the zone's full size. */
export const REFERENCE_SIZE = 'M';

export function printScaleForSize(size: string): number {
  return SIZE_PRINT_SCALE[size.trim().toUpperCase()] ?? 1;
}

/**
 * The size a print file is made for when none is asked: M when the garment comes in M, else the first of its sizes
 * printed at full scale, else its first size (REFERENCE_SIZE without a size list).
 */
export function defaultPrintSize(sizes: readonly string[]): string {
  if (sizes.includes(REFERENCE_SIZE)) return REFERENCE_SIZE;
  return sizes.find((s) => printScaleForSize(s) === 1) ?? sizes[0] ?? REFERENCE_SIZE;
}

/** The zone's physical size for a garment size, inches. */
export function zoneForSize(zone: { widthIn: number; heightIn: number }, size: string) {
  const k = printScaleForSize(size);
  return { widthIn: zone.widthIn * k, heightIn: zone.heightIn * k, scale: k };
}

/** A render on a customer's template prints at its smart object's own size: one size, whatever the garment's. */
export const TEMPLATE_PRINT_SIZE = 'One size';

/** The largest side of a template's print, inches (above it no press prints it: a 72 ppi screen mockup's smart object
 * of 2000 px reads as 27.8 in). */
export const TEMPLATE_PRINT_MAX_IN = 24;
