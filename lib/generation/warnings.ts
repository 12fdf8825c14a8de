// Generation warnings: what the service noticed about a generation without refusing it. One shape for every code
// (the generation resource's `warnings`, stored in generations.warnings, docs/generation.md#warnings). Plain data:
// the API, the activities and the workflows may all use it.

/** The codes a generation warning may carry: low_contrast (issue 35), garment_not_found and zone_clipped (issue 38). */
export const GENERATION_WARNING_CODES = ['low_contrast', 'garment_not_found', 'zone_clipped'] as const;
export type GenerationWarningCode = (typeof GENERATION_WARNING_CODES)[number];

export interface GenerationWarning {
  code: GenerationWarningCode;
  /** a sentence a person can act on */
  message: string;
  /** the measurements behind it (per code) */
  details?: Record<string, unknown>;
}

/** The codes the render step writes (the print zone on a client's photo, lib/compositing/garment-zone.ts). */
export const RENDER_WARNING_CODES = [
  'garment_not_found',
  'zone_clipped',
] as const satisfies readonly GenerationWarningCode[];
