// Schemas of the bulk render routes (issue 35, docs/generation.md#bulk-renders): the body of POST /generate/bulk,
// the query of GET /generate/bulk/{id}, and the bulk resource. The routes parse with these and the OpenAPI document
// is generated from them.
import { z } from 'zod';
import { cursorParam, pageLimitParam, pagination } from '../pagination';
import { generationResource } from './resources';
import { httpUrl, placementInput, timestamp, zone } from './schemas';

/** Most designs, and most targets, in one bulk (the product of all is held to BULK_MAX_ITEMS, default 500). */
export const MAX_BULK_DESIGNS = 100;
export const MAX_BULK_TARGETS = 100;

const bulkDesign = z
  .strictObject({
    designUrl: httpUrl('designUrl').meta({ description: 'public URL of the design (an upload url works)' }),
    darkDesignUrl: httpUrl('darkDesignUrl')
      .optional()
      .meta({ description: 'the light-ink variant, used on colours darker than CIELAB L* 50 (docs/generation.md)' }),
  })
  .meta({ id: 'BulkDesign' });

const garmentTarget = z
  .strictObject({
    garmentId: z.string({ message: 'must be a string' }).trim().min(1, 'is required').max(100),
    colors: z
      .array(z.string().trim().min(1).max(60), { message: 'must be an array of colour names' })
      .min(1, 'must name at least one colour (leave it out for every available colour)')
      .max(100)
      .optional()
      .meta({ description: 'colour names of the garment; default: every available colour' }),
    zones: z
      .array(zone, { message: 'must be an array of zones' })
      .min(1, 'must name at least one zone (leave it out for front)')
      .max(4)
      .optional()
      .meta({ description: 'print zones; default ["front"]' }),
  })
  .meta({ id: 'BulkGarmentTarget' });

const templateTarget = z
  .strictObject({
    templateId: z.string().trim().min(1).max(100),
    smartObjectId: z.string().trim().min(1).max(200).optional(),
  })
  .meta({
    id: 'BulkTemplateTarget',
    description:
      "a ready template of the account: one item per design, in the smart object named (default: the largest), at the bulk's placement within the smart object (default: centered, as large as fits)",
  });

export const bulkBody = z
  .strictObject({
    designs: z
      .array(bulkDesign, { message: 'must be an array of designs' })
      .min(1, 'must hold at least one design')
      .max(MAX_BULK_DESIGNS, `must hold at most ${MAX_BULK_DESIGNS} designs`),
    targets: z
      .array(z.union([garmentTarget, templateTarget]), { message: 'must be an array of targets' })
      .min(1, 'must hold at least one target')
      .max(MAX_BULK_TARGETS, `must hold at most ${MAX_BULK_TARGETS} targets`),
    placement: placementInput.optional().meta({
      id: 'BulkPlacement',
      description:
        "shared by every item; a member left out takes the target's default: on a garment's print zone x 50, y 35, " +
        "scale 0.8, rotation 0 (as POST /generate); in a template's smart object x 50, y 50, scale 1, rotation 0 " +
        '(centered, as large as fits)',
    }),
    applyTexture: z.boolean({ message: 'must be true or false' }).default(true),
    webhookUrl: httpUrl('webhookUrl')
      .optional()
      .meta({ description: 'receives one signed bulk.completed when the bulk ends (docs/webhooks.md)' }),
    itemWebhooks: z
      .boolean({ message: 'must be true or false' })
      .default(false)
      .meta({ description: "also send each item's generation.completed/failed to webhookUrl" }),
  })
  .superRefine((b, ctx) => {
    if (b.itemWebhooks && !b.webhookUrl)
      ctx.addIssue({ code: 'custom', path: ['itemWebhooks'], message: 'needs webhookUrl' });
  })
  .meta({
    id: 'BulkRequest',
    description: 'every design on every colour and zone of every target, one generation each (BULK_MAX_ITEMS, 500)',
  });

export const bulkQuery = z.strictObject({ limit: pageLimitParam, cursor: cursorParam });

export const BULK_ID = /^blk_\d+_[a-z0-9]+$/;
export const bulkIdParam = z.string().meta({ description: 'a bulk id, blk_<n>_<suffix>' });

export const bulkResource = z
  .object({
    id: z.string().meta({ description: 'blk_<number>_<suffix>; its workflow is bulk-<id>' }),
    status: z.enum(['running', 'completed', 'canceled']),
    total: z.number().int().meta({ description: 'items (generations) in the bulk' }),
    completed: z.number().int(),
    failed: z.number().int().meta({ description: 'failed items, canceled ones included (each refunded)' }),
    tokensCharged: z.number().int().meta({ description: 'tokens charged when the bulk was accepted (0 in test mode)' }),
    tokensRefunded: z.number().int().meta({ description: 'tokens given back for failed and canceled items' }),
    archiveUrl: z.string().nullable().meta({
      description: 'ZIP of every completed mockup, <design>-<garment>-<colour>-<zone>.jpg; null until it ends',
    }),
    createdAt: timestamp,
    finishedAt: timestamp.nullable(),
    livemode: z.boolean(),
  })
  .meta({ id: 'Bulk' });

export const bulkPageResource = bulkResource
  .extend({
    generations: z.array(generationResource).meta({ description: "a page of the bulk's generations, in order" }),
    pagination,
  })
  .meta({ id: 'BulkWithGenerations' });
