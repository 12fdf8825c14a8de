// Warnings: plain sentences about real problems a print shop would raise, in a stable order.
import type { BackgroundBox, LowContrast, PrintSize } from './features';
import { FULL_FRONT_IN, MIN_DPI } from './features';
import { LIMITS } from './recommend';

export interface WarningFacts {
  width: number;
  height: number;
  print: PrintSize;
  colorCount: number;
  continuousTone: boolean;
  translucentShare: number;
  translucent: boolean;
  fineDetail: boolean;
  fineShare: number;
  box: BackgroundBox | null;
  lowContrast: LowContrast[];
  visiblePixels: boolean;
}

const pct = (v: number) => `${Math.max(1, Math.round(v * 100))}%`;
const inches = (v: number) => v.toFixed(1);

export function warningsFor(f: WarningFacts): string[] {
  const out: string[] = [];
  if (!f.visiblePixels) {
    out.push('The image is fully transparent: nothing would be printed.');
    return out;
  }
  if (f.print.dpi < MIN_DPI) {
    out.push(
      `Low resolution: at ${f.width}x${f.height} px the design prints at only ${Math.round(f.print.dpi)} dpi at full front size ` +
        `(${inches(f.print.widthIn)} x ${inches(f.print.heightIn)} in); ${MIN_DPI} dpi needs 2400x3000 px or more for ${FULL_FRONT_IN.width} x ${FULL_FRONT_IN.height} in. ` +
        `Print it no larger than ${inches(f.print.maxWidthIn)} x ${inches(f.print.maxHeightIn)} in, or supply a larger file.`,
    );
  }
  if (f.box) {
    out.push(
      `The design sits on an opaque ${f.box.color.hex} background box (${pct(f.box.color.share)} of the image): it will print as a visible rectangle on any garment that is not exactly that color. Remove the background and upload a PNG with transparency.`,
    );
  }
  const exceeded: string[] = [];
  if (f.colorCount > LIMITS.vinyl) exceeded.push(`vinyl (up to ${LIMITS.vinyl})`);
  if (f.colorCount > LIMITS.screen) exceeded.push(`screen printing (up to ${LIMITS.screen})`);
  if (f.colorCount > LIMITS.embroidery) exceeded.push(`embroidery (up to ${LIMITS.embroidery})`);
  if (exceeded.length) {
    const list =
      exceeded.length === 1 ? exceeded[0] : `${exceeded.slice(0, -1).join(', ')} and ${exceeded[exceeded.length - 1]}`;
    out.push(`The design has ${f.colorCount} colors, more than ${list} can print as separate colors.`);
  }
  if (f.continuousTone) {
    out.push(
      'Gradients or photographic tones cannot be printed with flat spot colors: screen printing needs halftone separations for them, and vinyl and embroidery cannot reproduce them.',
    );
  }
  if (f.translucent) {
    out.push(
      `About ${pct(f.translucentShare)} of the design is semi-transparent (soft shadows, glows or feathered edges): screen printing and vinyl print solid ink only, so these areas need halftones or DTG.`,
    );
  }
  if (f.fineDetail) {
    out.push(
      `About ${pct(f.fineShare)} of the design is detail finer than 1.5 mm at a 4 in left-chest size: too fine for embroidery, which needs bolder lines and text.`,
    );
  }
  for (const lc of f.lowContrast) {
    const garments =
      lc.garments.length === 1
        ? lc.garments[0]
        : `${lc.garments.slice(0, -1).join(', ')} and ${lc.garments[lc.garments.length - 1]}`;
    out.push(`${lc.color.hex} (${pct(lc.color.share)} of the design) is nearly invisible on ${garments} garments.`);
  }
  return out;
}
