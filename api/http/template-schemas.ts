// Templates (docs/templates.md): the request bodies and queries of /api/v1/templates, and the template resource as
// issue 32 pins it. Used by the routes, the presenter and the OpenAPI document (api/openapi/templates.ts).
import { z } from 'zod';
import { cursorParam, pageLimitParam, pagination } from '../pagination';
import { httpUrl } from './schemas';

export const TEMPLATE_ID = /^tpl_\d+_[a-z0-9]+$/;
export const templateIdParam = z.string().meta({ description: 'a template id, tpl_<n>_<suffix>' });

const templateName = z
  .string({ message: 'must be a string' })
  .trim()
  .min(1, 'must not be empty')
  .max(200, 'must be at most 200 characters')
  .meta({ description: "the template's name (default: the file's name without its extension)" });

/** JSON form: the PSD/PSB at a URL, fetched through the SSRF guard (or read from storage when it is one of ours). */
export const templateUrlBody = z
  .strictObject({
    url: httpUrl('url').meta({ description: 'http(s) URL of a .psd or .psb file' }),
    name: templateName.optional(),
  })
  .meta({ id: 'TemplateUrlRequest' });

/** Multipart form: the file in the part `file`, an optional `name` field. */
export const templateMultipartBody = z
  .object({
    file: z
      .string()
      .meta({ format: 'binary', description: 'the .psd or .psb file, up to TEMPLATE_MAX_BYTES (200 MiB)' }),
    name: templateName.optional(),
  })
  .meta({ id: 'TemplateMultipartRequest' });

export const templateMultipartFields = z.strictObject({ name: templateName.optional() });

export const templateListQuery = z.strictObject({ limit: pageLimitParam, cursor: cursorParam });

const point = z.tuple([z.number(), z.number()]);

export const smartObjectResource = z
  .object({
    id: z.string().meta({ description: 'pass as smartObjectId to generate' }),
    name: z.string().meta({ description: "the layer's name in Photoshop" }),
    width: z.number().int().meta({ description: "the smart object's content width (px)" }),
    height: z.number().int(),
    quad: z.tuple([point, point, point, point]).meta({
      description: "the content's corners in template pixels: top-left, top-right, bottom-right, bottom-left",
    }),
    warp: z.string().meta({ description: 'none, custom, or a named warp style (arc, flag, cylinder, ...)' }),
    blendMode: z.string(),
  })
  .meta({ id: 'TemplateSmartObject' });

export const templateResource = z
  .object({
    id: z.string().meta({ description: 'tpl_<n>_<suffix>; its import is the workflow template-import-<id>' }),
    name: z.string(),
    status: z.enum(['processing', 'ready', 'failed']),
    width: z.number().int(),
    height: z.number().int(),
    previewUrl: z.string().nullable().meta({
      description:
        'the template rendered with its own smart-object content: a lossless PNG, full size; null until ready',
    }),
    thumbnailUrl: z.string().nullable().meta({ description: 'at most 400 px per side; null until ready' }),
    smartObjects: z.array(smartObjectResource),
    fidelity: z
      .object({
        psnr: z
          .number()
          .meta({ description: 'dB over RGB between the preview and the composite Photoshop saved (100: identical)' }),
        comparedTo: z.literal('photoshop-composite'),
      })
      .nullable()
      .meta({ description: 'null when the file holds no composite to compare with' }),
    unsupported: z
      .array(z.object({ layer: z.string(), feature: z.string() }))
      .meta({ description: 'what the renderer does not render itself (it uses the pixels Photoshop stored)' }),
    error: z.string().optional().meta({ description: 'why the import failed (status failed only)' }),
  })
  .meta({ id: 'Template' });

export const templatePage = z
  .object({
    templates: z.array(templateResource),
    pagination,
  })
  .meta({ id: 'TemplatePage' });

export type TemplateResource = z.infer<typeof templateResource>;
