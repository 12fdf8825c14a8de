// Request schemas of Part A: the routes parse with these, and the OpenAPI document (api/openapi/) is generated from
// these same objects, so the document cannot describe a request the route does not accept.
import { z } from 'zod';
import { ZONES } from '../../lib/generation/types';
import { UPLOAD_ANALYSIS_QUANTITY } from '../../lib/uploads/types';
import { cursorParam, pageLimitParam } from '../pagination';

/** A point in time in an answer: ISO 8601 with its offset. */
export const timestamp = z.iso.datetime({ offset: true }).meta({ description: 'ISO 8601' });

export const httpUrl = (field: string) =>
  z
    .string({ message: `${field} must be a string URL` })
    .trim()
    .min(1, 'is required')
    .max(2048, 'must be at most 2048 characters')
    .pipe(z.url({ protocol: /^https?$/, message: 'must be an absolute http(s) URL' }))
    .meta({ format: 'uri' });

export const range = (min: number, max: number, def: number, description: string) =>
  z
    .number({ message: `must be a number from ${min} to ${max}` })
    .min(min, `must be from ${min} to ${max}`)
    .max(max, `must be from ${min} to ${max}`)
    .default(def)
    .meta({ description });

/** A number in [min, max], optional, without a default. */
const within = (min: number, max: number, description: string) =>
  z
    .number({ message: `must be a number from ${min} to ${max}` })
    .min(min, `must be from ${min} to ${max}`)
    .max(max, `must be from ${min} to ${max}`)
    .optional()
    .meta({ description });

export const placementSchema = z
  .strictObject({
    x: range(0, 100, 50, "the design's center, in percent of the print zone's width (50 is centered)"),
    y: range(0, 100, 35, "the design's center, in percent of the print zone's height"),
    scale: range(0.1, 1, 0.8, 'size: 1.0 is the largest size that fits the print zone keeping the aspect ratio'),
    rotation: range(-180, 180, 0, 'degrees, clockwise, about the design center'),
  })
  .meta({ id: 'Placement', description: 'Where the design goes in the print zone (docs/compositing.md).' });

/** A placement whose members are all optional and without defaults: a body shared by targets of different kinds (a
 * bulk's garments and templates) fills the missing members with each target's own defaults. */
export const placementInput = z.strictObject({
  x: within(0, 100, "the design's center, in percent of the zone's (or smart object's) width"),
  y: within(0, 100, "the design's center, in percent of the zone's (or smart object's) height"),
  scale: within(0.1, 1, 'size: 1.0 is the largest size that fits the zone (or smart object)'),
  rotation: within(-180, 180, 'degrees, clockwise, about the design center'),
});

const percent = (description: string, min: number, minOpen: boolean) =>
  z
    .number({ message: `must be a number from ${min} to 100` })
    .refine((v) => (minOpen ? v > min : v >= min) && v <= 100, {
      message: minOpen ? `must be more than ${min} and at most 100` : `must be from ${min} to 100`,
    })
    .meta({ description });

/** A client's own print area on its blank photo (overrides the zone found on the garment): percent of the photo. */
export const printAreaSchema = z
  .strictObject({
    x: percent("the print area's left edge, in percent of the photo's width", 0, false),
    y: percent("the print area's top edge, in percent of the photo's height", 0, false),
    width: percent("the print area's width, in percent of the photo's width", 0, true),
    height: percent("the print area's height, in percent of the photo's height", 0, true),
  })
  .superRefine((a, ctx) => {
    if (a.x + a.width > 100)
      ctx.addIssue({ code: 'custom', path: ['width'], message: 'x + width must be at most 100' });
    if (a.y + a.height > 100)
      ctx.addIssue({ code: 'custom', path: ['height'], message: 'y + height must be at most 100' });
  })
  .meta({
    id: 'PrintArea',
    description:
      'Where on the blank photo to print, in percent of its width and height (x, y = top-left corner); overrides ' +
      "the print zone, which is otherwise fitted to the garment found in a client's own photo (docs/compositing.md).",
  });

/** `Prefer: respond-async` (RFC 7240), possibly among other preferences. */
export const prefersAsync = (header: string | undefined) =>
  !!header && header.split(',').some((p) => p.trim().split(/[;=]/)[0]!.trim().toLowerCase() === 'respond-async');

/** The Idempotency-Key header (Stripe's): 1 to 255 visible ASCII characters, e.g. a UUID. */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;
export const idempotencyKeyHeader = z
  .string()
  .min(1, 'must not be empty')
  .max(MAX_IDEMPOTENCY_KEY_LENGTH, `must be at most ${MAX_IDEMPOTENCY_KEY_LENGTH} characters`)
  .regex(/^[\x21-\x7e]+$/, 'must be visible ASCII characters only (no spaces), e.g. a UUID')
  .meta({
    description:
      'Makes a retry safe: the same key with the same body within 24 hours replays the first answer ' +
      '(Idempotent-Replayed: true) without new work or charge. 1 to 255 visible ASCII characters, e.g. a UUID; ' +
      'scoped to the account.',
  });

export const zone = z
  .enum(ZONES, { message: `must be one of ${ZONES.join(', ')}` })
  .meta({ description: 'print zone; the garment must offer it' });

// ------------------------------------------------------------------ keys

const DAYS = 'must be a whole number of days from 1 to 365';

export const createKeyBody = z
  .strictObject({
    name: z.string().trim().min(1, 'is required').max(100, 'must be at most 100 characters'),
    expiresInDays: z
      .number({ message: DAYS })
      .int(DAYS)
      .min(1, DAYS)
      .max(365, DAYS)
      .optional()
      .meta({ description: 'the key stops working after this many days; omitted: it never expires' }),
    mode: z
      .enum(['live', 'test'], { message: 'must be live or test' })
      .default('live')
      .meta({
        description:
          '`test`: a test-mode key (`<prefix>_test_<64 hex>`): generations spend no token, carry a TEST watermark and ' +
          'are seen only by test credentials (docs/test-mode.md)',
      }),
  })
  .meta({ id: 'CreateKeyRequest' });

export const keyIdParam = z.string().regex(/^key_[a-z0-9]{16}$/, 'is not a key id');

export const deleteKeyQuery = z.strictObject({
  permanent: z
    .enum(['true', 'false'])
    .optional()
    .meta({ description: '`true` deletes the key for good; otherwise it is revoked (kept, listed as revoked)' }),
});

// ------------------------------------------------------------------ garments and generations

export const garmentListQuery = z.strictObject({
  category: z
    .string()
    .trim()
    .min(1)
    .max(50)
    .regex(/^[a-z0-9-]+$/, 'must be a category slug such as t-shirts')
    .optional()
    .meta({ description: 'filter by category: t-shirts, hoodies, tanks, long-sleeves, ...' }),
  limit: pageLimitParam,
  cursor: cursorParam,
});

export const generationListQuery = z.strictObject({
  limit: pageLimitParam,
  cursor: cursorParam,
});

export const generationIdParam = z.string().meta({ description: 'a generation id, gen_<n>_<suffix>' });
export const GENERATION_ID = /^gen_\d+_[a-z0-9]+$/;

/** POST /generate (spec "POST {base_url}/generate"). */
export const generateBody = z
  .strictObject({
    designUrl: httpUrl('designUrl').meta({ description: 'public URL of the design (an upload url works)' }),
    garmentId: z.string({ message: 'is required' }).trim().min(1, 'is required').max(100),
    garmentImageUrl: httpUrl('garmentImageUrl').meta({
      description: "blank of one color: a colors[].imageUrl of the garment, or the client's own blank photo",
    }),
    color: z.string().trim().min(1).max(60).optional().meta({ description: 'color variant name' }),
    zone: zone.default('front'),
    placement: placementSchema.default({ x: 50, y: 35, scale: 0.8, rotation: 0 }),
    printArea: printAreaSchema.optional(),
    applyTexture: z
      .boolean({ message: 'must be true or false' })
      .default(true)
      .meta({ description: 'subtle fabric texture' }),
    webhookUrl: httpUrl('webhookUrl')
      .optional()
      .meta({ description: 'receives a signed POST when the generation completes or fails (docs/webhooks.md)' }),
  })
  .meta({ id: 'GenerateRequest' });

/** POST /preview: the generate body without webhookUrl (a preview is answered at once and notifies no one). */
export const previewBody = generateBody.omit({ webhookUrl: true }).meta({ id: 'PreviewRequest' });

// ------------------------------------------------------------------ upload and analyze

/** An upload's name in the design library (issue 35). */
export const uploadName = z
  .string({ message: 'must be a string' })
  .trim()
  .min(1, 'must not be empty')
  .max(200, 'must be at most 200 characters')
  .regex(/^[^\u0000-\u001f\u007f]*$/, 'must not contain control characters')
  .meta({ description: 'a name for the design, 1 to 200 characters' });

/** POST /upload, JSON form (the multipart form has one part named `file`). */
export const uploadJsonBody = z
  .strictObject({
    imageData: z
      .string({
        message: 'is required: a base64 data URL of the image (or send multipart/form-data with a part named file)',
      })
      .min(1, 'must not be empty')
      .meta({ description: 'a base64 data URL (data:image/png;base64,...) or bare base64 of the image' }),
    name: uploadName.optional().meta({ description: "the design's name in the library (default: Untitled)" }),
  })
  .meta({ id: 'UploadJsonRequest' });

/** POST /upload, multipart form: documented only (multer reads it; the route checks the part is there). */
export const uploadMultipartBody = z
  .object({ file: z.string().meta({ format: 'binary', description: 'the image: PNG, JPEG, WebP or GIF, 10 MB max' }) })
  .meta({ id: 'UploadMultipartRequest' });

const QUANTITY = 'must be a whole number from 1 to 10000';

export const analyzeBody = z
  .strictObject({
    imageUrl: z
      .string({ message: 'must be a string: the public URL of the image' })
      .trim()
      .min(1, 'must not be empty')
      .max(2048, 'must be at most 2048 characters')
      .refine((u) => {
        try {
          const p = new URL(u);
          return p.protocol === 'http:' || p.protocol === 'https:';
        } catch {
          return false;
        }
      }, 'must be an absolute http or https URL')
      .optional()
      .meta({ description: 'public URL of the image; supply this or imageData, not both' }),
    imageData: z
      .string({ message: 'must be a string: base64 image data or a data URL' })
      .min(1, 'must not be empty')
      .optional()
      .meta({ description: 'base64 image data or a data URL' }),
    quantity: z
      .number({ message: QUANTITY })
      .int(QUANTITY)
      .min(1, QUANTITY)
      .max(10_000, QUANTITY)
      .default(UPLOAD_ANALYSIS_QUANTITY)
      .meta({ description: 'print run size for the price estimates' }),
  })
  .meta({ id: 'AnalyzeRequest' });
