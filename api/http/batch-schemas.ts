// POST /generate/batch: one design on up to 25 garment colours and zones, or smart objects of the account's templates
// (the request body, its items and the check that each item is of one kind).
import { z } from 'zod';
import { httpUrl, placementInput, printAreaSchema, zone } from './schemas';
import { smartObjectId, templateFields } from './template-generate-schemas';

/** Most generations in one POST /generate/batch. */
export const MAX_BATCH_ITEMS = 25;

const batchGarmentId = z.string({ message: 'must be a string' }).trim().min(1, 'is required').max(100);
const applyTexture = z.boolean({ message: 'must be true or false' });

/** One mockup: which blank (garment + color or blank URL) and, optionally, its own zone, placement and texture; or
 * which template (and smart object) the design is rendered in. */
const batchItem = z
  .strictObject({
    garmentId: batchGarmentId.optional(),
    garmentImageUrl: httpUrl('garmentImageUrl').optional(),
    color: z.string().trim().min(1).max(60).optional(),
    zone: zone.optional(),
    placement: placementInput.optional().meta({
      description:
        "replaces the shared placement as a whole; a member left out takes the item's default (a garment's print " +
        "zone: x 50, y 35, scale 0.8, rotation 0; a template's smart object: x 50, y 50, scale 1, rotation 0)",
    }),
    printArea: printAreaSchema.optional(),
    applyTexture: applyTexture.optional(),
    templateId: templateFields.templateId.optional(),
    smartObjectId: smartObjectId
      .optional()
      .meta({ description: "with templateId: the smart object the design fills; default: the template's largest" }),
    displace: z
      .enum(['auto', 'off'], { message: 'must be auto or off' })
      .optional()
      .meta({ description: "with templateId: as POST /generate's displace (default 'auto')" }),
  })
  .meta({
    id: 'BatchItem',
    description:
      "one mockup: on a garment (garmentImageUrl or color, or both), or with templateId in one of the account's " +
      'ready templates (smartObjectId, placement and displace as POST /generate on a template)',
  });

const GARMENT_ONLY = ['garmentId', 'garmentImageUrl', 'color', 'zone', 'printArea', 'applyTexture'] as const;
const TEMPLATE_ONLY = ['smartObjectId', 'displace'] as const;

export const batchBody = z
  .strictObject({
    designUrl: httpUrl('designUrl'),
    // Shared defaults for the items; an item's own value wins.
    garmentId: batchGarmentId.optional(),
    zone: zone.default('front'),
    placement: placementInput.optional().meta({
      id: 'BatchPlacement',
      description:
        "shared by the items without their own; a member left out takes the item's default (a garment's print " +
        "zone: x 50, y 35, scale 0.8, rotation 0; a template's smart object: x 50, y 50, scale 1, rotation 0)",
    }),
    applyTexture: applyTexture.default(true),
    webhookUrl: httpUrl('webhookUrl').optional(),
    items: z
      .array(batchItem, { message: `must be an array of 1 to ${MAX_BATCH_ITEMS} items` })
      .min(1, `must hold 1 to ${MAX_BATCH_ITEMS} items`)
      .max(
        MAX_BATCH_ITEMS,
        `must hold at most ${MAX_BATCH_ITEMS} items (one design on up to ${MAX_BATCH_ITEMS} colors or zones)`,
      ),
  })
  .superRefine((b, ctx) => {
    b.items.forEach((item, i) => {
      if (item.templateId !== undefined) {
        for (const f of GARMENT_ONLY)
          if (item[f] !== undefined)
            ctx.addIssue({
              code: 'custom',
              path: ['items', i, f],
              message: 'is for garment items, not with templateId',
            });
        return;
      }
      for (const f of TEMPLATE_ONLY)
        if (item[f] !== undefined)
          ctx.addIssue({ code: 'custom', path: ['items', i, f], message: 'goes with templateId' });
      if (item.garmentId === undefined && b.garmentId === undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['items', i, 'garmentId'],
          message: 'is required (here or as the shared garmentId), or templateId',
        });
      }
      if (item.garmentImageUrl === undefined && item.color === undefined) {
        ctx.addIssue({ code: 'custom', path: ['items', i], message: 'needs garmentImageUrl or color (or both)' });
      }
    });
  })
  .meta({
    id: 'BatchRequest',
    description: "one design on up to 25 garment colors and/or zones, or smart objects of the account's templates",
  });
