// Shapes of the print-file and production answers (issue 36; docs/production.md): the print file resource, its
// preflight report, and the query of GET /generations/<id>/print-file.
import { z } from 'zod';
import { generateBody, timestamp } from './schemas';

const url = z.url();

export const preflightCheck = z
  .object({
    code: z.enum(['low_dpi', 'semi_transparent', 'underbase_needed', 'thin_lines', 'outside_zone']),
    level: z.enum(['warning', 'error']),
    message: z.string(),
    details: z.record(z.string(), z.union([z.number(), z.string(), z.boolean()])).optional(),
  })
  .meta({ id: 'PreflightCheck' });

export const preflightReport = z
  .object({
    status: z.enum(['pass', 'warning', 'error']).meta({ description: 'the worst level of the checks; pass: none' }),
    effectiveDpi: z.number().int().meta({ description: "the design's pixels per inch at its printed size" }),
    inkedAreaIn2: z.number().meta({ description: 'alpha-weighted inked area inside the zone, square inches' }),
    underbase: z.boolean().meta({ description: 'a dark garment: a white underbase file comes with the print' }),
    checks: z.array(preflightCheck),
  })
  .meta({ id: 'Preflight', description: 'what a print shop checks before printing (docs/production.md#preflight)' });

export const printFileResource = z
  .object({
    id: z.string().meta({ description: 'prf_<n>_<suffix>' }),
    generationId: z.string().nullable(),
    chatJobId: z.string().nullable(),
    mockupIndex: z.number().int().nullable(),
    url: url.meta({ description: 'the PNG: sRGB ICC profile, transparency, 300 DPI (pHYs)' }),
    underbaseUrl: url
      .nullable()
      .meta({ description: 'white underbase PNG (same canvas) on a dark garment, else null' }),
    fileName: z.string().meta({ description: 'names the zone and the garment size' }),
    size: z.string().meta({ description: 'the garment size it was made for' }),
    color: z.string(),
    zone: z.string(),
    widthPx: z.number().int(),
    heightPx: z.number().int(),
    dpi: z.number().int(),
    widthIn: z.number().meta({ description: "the zone's width for this size, inches (the size rule)" }),
    heightIn: z.number(),
    designBox: z.object({ left: z.number(), top: z.number(), width: z.number(), height: z.number() }).meta({
      description: 'the unrotated design on the canvas, pixels (as designBox of the generation on the mockup)',
    }),
    preflight: preflightReport,
    createdAt: timestamp,
  })
  .meta({ id: 'PrintFile' });

export const printFileQuery = z.strictObject({
  size: z
    .string()
    .min(1)
    .max(20)
    .optional()
    .meta({ description: "one of the garment's sizes; default M (or the first full-size size)" }),
});

export const chatPrintFileQuery = printFileQuery.extend({
  mockupIndex: z.coerce.number().int().min(0).max(99).meta({ description: "the mockup's index in the job's mockups" }),
});

export const productionFileResource = z
  .object({
    lineItemId: z.string().meta({ description: "Shopify's line item id (line-<n> for orders recorded without one)" }),
    printFileUrl: url,
    underbaseUrl: url.nullable().meta({ description: 'white underbase PNG on a dark garment, else null' }),
    widthPx: z.number().int(),
    heightPx: z.number().int(),
    dpi: z.number().int(),
    size: z.string(),
    color: z.string(),
    zone: z.string(),
    quantity: z.number().int(),
    preflight: preflightReport,
  })
  .meta({ id: 'ProductionFile' });

export const productionResource = z
  .object({
    status: z.enum(['queued', 'ready', 'failed']),
    jobSheetUrl: url.nullable().meta({ description: 'the job sheet PDF, once ready' }),
    archiveUrl: url.nullable().meta({ description: 'ZIP of the job sheet and the print files, once ready' }),
    error: z.string().nullable().meta({ description: 'why it failed' }),
    files: z.array(productionFileResource).meta({ description: 'one per printed line item, in line order' }),
  })
  .meta({
    id: 'Production',
    description: 'print-ready files and job sheet of a paid order (docs/production.md); null before payment',
  });

/** POST /print-preflight: a placement's print checked before Generate (the studio's warnings and print view). */
export const printPreflightBody = generateBody
  .pick({ designUrl: true, garmentId: true, color: true, zone: true, placement: true })
  .extend({
    size: z
      .string()
      .min(1)
      .max(20)
      .optional()
      .meta({ description: "one of the garment's sizes; default M (or the first full-size size)" }),
  })
  .meta({ id: 'PrintPreflightRequest' });

export const printPreflightResource = z
  .object({
    garmentId: z.string(),
    color: z.string(),
    zone: z.string(),
    size: z.string().meta({ description: 'the garment size the print is laid out for' }),
    widthPx: z.number().int(),
    heightPx: z.number().int(),
    dpi: z.number().int(),
    widthIn: z.number().meta({ description: "the zone's width for this size, inches (the print's physical width)" }),
    heightIn: z.number(),
    designBox: z.object({ left: z.number(), top: z.number(), width: z.number(), height: z.number() }).meta({
      description: 'the unrotated design on the print canvas, pixels at dpi (rotation: the placement’s)',
    }),
    preflight: preflightReport,
  })
  .meta({ id: 'PrintPreflight' });
