// Generate and preview on a customer's template (issue 32, docs/templates.md): the request bodies naming templateId,
// one design in a smart object or designs[] for several, and the check of what they ask.
import { z } from 'zod';
import { httpUrl, range } from './schemas';

/** Most designs one generation on a template fills (designs[]). */
export const MAX_TEMPLATE_DESIGNS = 16;

/** Where a design goes in a smart object: the spec's placement, relative to the smart object's content. */
export const templatePlacementSchema = z
  .strictObject({
    x: range(0, 100, 50, "the design's center, in percent of the smart object's width (50 is centered)"),
    y: range(0, 100, 50, "the design's center, in percent of the smart object's height (50 is centered)"),
    scale: range(0.1, 1, 1, 'size: 1.0 is the largest size that fits inside the smart object keeping the aspect ratio'),
    rotation: range(-180, 180, 0, 'degrees, clockwise, about the design center'),
  })
  .meta({
    id: 'TemplatePlacement',
    description:
      "Where the design goes in the smart object's content, before its transform and warp (docs/templates.md).",
  });

export const smartObjectId = z
  .string({ message: 'must be a string' })
  .trim()
  .min(1, 'is required')
  .max(64, 'must be at most 64 characters')
  .meta({ description: 'a smart object\'s id from the template\'s smartObjects[] ("1", "2", ...)' });

const templateDesign = z
  .strictObject({
    smartObjectId,
    designUrl: httpUrl('designUrl').meta({ description: 'public URL of the design (an upload url works)' }),
    placement: templatePlacementSchema.optional(),
  })
  .meta({ id: 'TemplateDesign', description: 'one smart object filled with a design' });

export const templateFields = {
  templateId: z
    .string({ message: 'must be a string' })
    .trim()
    .min(1, 'is required')
    .max(100)
    .meta({ description: 'a ready template of the account (GET /api/v1/templates), instead of garmentId' }),
  designUrl: httpUrl('designUrl')
    .optional()
    .meta({ description: 'the design of one smart object (smartObjectId); or designs[] for several' }),
  smartObjectId: smartObjectId
    .optional()
    .meta({ description: "the smart object designUrl fills; default: the template's largest (by its area)" }),
  placement: templatePlacementSchema.optional(),
  designs: z
    .array(templateDesign, { message: `must be an array of 1 to ${MAX_TEMPLATE_DESIGNS} designs` })
    .min(1, `must hold 1 to ${MAX_TEMPLATE_DESIGNS} designs`)
    .max(MAX_TEMPLATE_DESIGNS, `must hold at most ${MAX_TEMPLATE_DESIGNS} designs`)
    .optional()
    .meta({ description: 'several smart objects filled at once (instead of designUrl); one generation, one token' }),
  displace: z
    .enum(['auto', 'off'], { message: 'must be auto or off' })
    .default('auto')
    .meta({
      description:
        "'auto': the template's Displace filter with its map, else a map derived from the layers under the smart " +
        "object; 'off': the design follows the transform and warp only",
    }),
};

type TemplateAskShape = {
  designUrl?: string | undefined;
  smartObjectId?: string | undefined;
  placement?: unknown;
  designs?: { smartObjectId: string }[] | undefined;
};

/** designUrl (one smart object) or designs[] (several), never both; each smart object filled once. */
function checkTemplateAsk(b: TemplateAskShape, ctx: z.RefinementCtx) {
  if (b.designs === undefined && b.designUrl === undefined)
    ctx.addIssue({
      code: 'custom',
      path: ['designUrl'],
      message: 'is required (or designs[] for several smart objects)',
    });
  if (b.designs !== undefined) {
    for (const f of ['designUrl', 'smartObjectId', 'placement'] as const)
      if (b[f] !== undefined)
        ctx.addIssue({ code: 'custom', path: [f], message: 'goes in each item of designs[] when designs is given' });
    const seen = new Set<string>();
    b.designs.forEach((d, i) => {
      if (seen.has(d.smartObjectId))
        ctx.addIssue({
          code: 'custom',
          path: ['designs', i, 'smartObjectId'],
          message: `fills smart object ${JSON.stringify(d.smartObjectId)} a second time`,
        });
      seen.add(d.smartObjectId);
    });
  }
}

/** POST /generate on a template: the body has templateId (the route tells the two forms apart by it). */
export const templateGenerateBody = z
  .strictObject({
    ...templateFields,
    webhookUrl: httpUrl('webhookUrl')
      .optional()
      .meta({ description: 'receives a signed POST when the generation completes or fails (docs/webhooks.md)' }),
  })
  .superRefine(checkTemplateAsk)
  .meta({
    id: 'TemplateGenerateRequest',
    description: "a design (or several) rendered in the smart objects of the account's template (docs/templates.md)",
  });

/** POST /preview on a template: the template generate body without webhookUrl. */
export const templatePreviewBody = z
  .strictObject(templateFields)
  .superRefine(checkTemplateAsk)
  .meta({ id: 'TemplatePreviewRequest' });

/** A generate or preview body on a template (it names templateId): parsed with the template schemas. */
export const namesTemplate = (body: unknown): boolean =>
  !!body && typeof body === 'object' && !Array.isArray(body) && 'templateId' in body;
