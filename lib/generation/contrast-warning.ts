// The low_contrast generation warning (issue 35): a significant share of the design's visible ink is hard to see on
// the garment colour (lib/analysis/contrast.ts: WCAG contrast ratio against the fabric). A warning, never a refusal.
import { contrastOn, CONTRAST } from '../analysis/contrast';
import type { GenerationWarning } from './warnings';

/** What the contrast check needs of a design: its inks with their shares (the analysis' palette). */
export interface DesignInks {
  inks: { hex: string; share: number }[];
  touchesFabric: boolean;
  boxHex: string | null;
}

const pct = (x: number) => `${Math.round(x * 100)} %`;

/** The low_contrast warning of a design on a garment colour, or null when its ink shows well enough. */
export function lowContrastWarning(design: DesignInks, color: { name: string; hex: string }): GenerationWarning | null {
  const report = contrastOn(design.inks, color.hex, { touchesFabric: design.touchesFabric, exclude: design.boxHex });
  if (!report.low) return null;
  const worst = report.inks.filter((i) => i.ratio < CONTRAST.minRatio).sort((a, b) => b.share - a.share)[0]!;
  return {
    code: 'low_contrast',
    message:
      `${pct(report.lowShare)} of the design's ink is hard to see on ${color.name} ${color.hex}: contrast under ` +
      `${CONTRAST.minRatio}:1 (e.g. ${worst.hex} at ${worst.ratio}:1). Use a lighter or darker variant of the design ` +
      `for this colour (darkDesignUrl in a bulk render), or another garment colour.`,
    details: {
      garmentColor: color.name,
      garmentHex: color.hex,
      lowShare: report.lowShare,
      minRatio: CONTRAST.minRatio,
      measure: 'wcag-contrast-ratio',
      inks: report.inks,
    },
  };
}
