// Response shapes (spec "Resources and their fields" and ours): the presenters are typed by these schemas, so what
// a route answers and what the OpenAPI document (api/openapi/) says it answers cannot drift apart silently.
import { z } from 'zod';
import { deliveryResource } from './logs';
import { ZONES } from '../../lib/generation/types';
import { GENERATION_WARNING_CODES } from '../../lib/generation/warnings';
import { ERROR_CODES } from '../errors';
import { pagination } from '../pagination';
import { timestamp } from './schemas';

// The Part B shapes live beside the routes' own concerns; every response shape is reachable here as R.<name>.
export * from './storefront-resources';
export * from './app-resources';

const url = z.url();

// ------------------------------------------------------------------ errors

export const partAError = z
  .object({
    error: z.object({
      code: z.enum(ERROR_CODES),
      message: z.string().meta({ description: 'what went wrong, in words a client can act on' }),
      details: z.record(z.string(), z.unknown()).optional().meta({
        description:
          'e.g. reason (revoked or expired key), required and available (402), retryAfter (429), issues (400)',
      }),
    }),
  })
  .meta({ id: 'Error', description: 'Part A error envelope (every route under /api/v1)' });

export const partBError = z.looseObject({ error: z.string() }).meta({
  id: 'AppError',
  description:
    "Part B error: a flat message, sometimes with more fields (e.g. retryAfter); routes outside /api answer Part A's envelope",
});

// ------------------------------------------------------------------ accounts and keys

const accountUser = z.object({
  id: z.string(),
  email: z.email(),
  plan: z.object({ id: z.string(), name: z.string() }),
  tokenBalance: z.number().int(),
  tokensOwed: z
    .number()
    .int()
    .meta({
      description:
        'Tokens a refund or dispute took back that the account no longer had: repaid first by the next grants; ' +
        'nothing can be spent (tokenBalance is 0) while it is above 0',
    }),
  createdAt: timestamp,
  emailVerified: z.boolean(),
  freeGrantPending: z.boolean().meta({
    description: "the Free plan's tokens wait for the email to be verified (EMAIL_VERIFICATION=required)",
  }),
  pendingEmail: z
    .string()
    .nullable()
    .meta({ description: 'a new address asked for, that becomes the email when its link is opened' }),
});

export const userResource = z.object({ user: accountUser }).meta({ id: 'Account' });

/** GET /api/auth/session: the signed-in account, or null for a visitor without a valid session. */
export const sessionResource = z.object({ user: accountUser.nullable() }).meta({ id: 'SessionCheck' });

const keyStatus = z.enum(['active', 'revoked', 'expired']);

export const keyResource = z
  .object({
    id: z.string().meta({ description: 'key_<id>' }),
    name: z.string(),
    lastFour: z.string(),
    createdAt: timestamp,
    expiresAt: timestamp.nullable(),
    lastUsedAt: timestamp.nullable().meta({ description: 'recorded at most once a minute' }),
    revokedAt: timestamp.nullable(),
    status: keyStatus,
    mode: z.enum(['live', 'test']).meta({ description: 'test keys see and create only test-mode data' }),
  })
  .meta({ id: 'ApiKey' });

export const keyCreated = z
  .object({
    key: z.string().meta({
      description: 'the full key, <prefix>_live_<64 hex> (or <prefix>_test_<64 hex>): shown only in this answer',
    }),
    metadata: keyResource.pick({
      id: true,
      name: true,
      lastFour: true,
      createdAt: true,
      expiresAt: true,
      status: true,
      mode: true,
    }),
    warning: z.string(),
  })
  .meta({ id: 'ApiKeyCreated' });

export const keyList = z.object({ keys: z.array(keyResource) }).meta({ id: 'ApiKeyList' });
export const keyDeleted = z.object({ id: z.string(), deleted: z.literal(true) }).meta({ id: 'ApiKeyDeleted' });

export const webhookSecret = z
  .object({
    secret: z.string().meta({ description: 'whsec_ followed by 64 hex characters' }),
    createdAt: timestamp,
    previousSecretExpiresAt: timestamp
      .nullable()
      .meta({ description: 'while set, callbacks carry a second v1 signature made with the previous secret' }),
  })
  .meta({ id: 'WebhookSecret' });

// ------------------------------------------------------------------ catalogue

const percentRect = z.object({ x: z.number(), y: z.number(), width: z.number(), height: z.number() });

export const garmentResource = z
  .object({
    id: z.string(),
    name: z.string(),
    brand: z.string(),
    category: z.string(),
    basePrice: z.number(),
    currency: z.literal('USD'),
    colors: z.array(
      z.object({
        name: z.string(),
        hex: z.string(),
        imageUrl: url.meta({ description: 'front blank of this color: use as garmentImageUrl' }),
        backImageUrl: url,
        thumbnailUrl: url,
        available: z.boolean(),
      }),
    ),
    sizes: z.array(z.string()),
    printZones: z.array(
      z.object({
        id: z.string(),
        name: z.string(),
        maxWidth: z.number().meta({ description: 'inches' }),
        maxHeight: z.number().meta({ description: 'inches' }),
        position: z
          .object({ x: z.number(), y: z.number() })
          .meta({ description: "top-left corner, percent of the blank's width and height" }),
        region: percentRect.meta({ description: 'position plus width and height, percent of the blank' }),
        view: z.string().meta({ description: 'which blank the zone is on: front or back' }),
      }),
    ),
    images: z.object({ thumbnail: url.nullable(), full: url.nullable() }),
  })
  .meta({ id: 'Garment' });

export const garmentPage = z.object({ garments: z.array(garmentResource), pagination }).meta({ id: 'GarmentPage' });

// ------------------------------------------------------------------ uploads and analysis

export const uploadResource = z
  .object({
    id: z.string().meta({ description: 'upl_<number>_<suffix>' }),
    url: url.meta({ description: 'usable as designUrl and imageUrl' }),
    thumbnailUrl: url,
    dimensions: z.object({ width: z.number().int(), height: z.number().int() }),
    fileSize: z.number().int(),
    mimeType: z
      .string()
      .meta({ description: 'detected from the bytes: image/png, image/jpeg, image/webp or image/gif' }),
  })
  .meta({ id: 'Upload' });

export const analysisResource = z
  .object({
    colors: z.object({
      count: z.number().int(),
      dominant: z.array(z.string()).meta({ description: 'up to 5 hex colors' }),
      pantone: z.array(z.string()),
    }),
    dimensions: z.object({
      width: z.number().int(),
      height: z.number().int(),
      aspectRatio: z.number(),
      hasTransparency: z.boolean(),
    }),
    recommendation: z.object({
      technique: z.enum(['dtg', 'screen', 'embroidery', 'vinyl']),
      reason: z.string(),
      complexity: z.enum(['simple', 'moderate', 'complex']),
    }),
    pricing: z.object({
      dtg: z.object({ perUnit: z.number(), currency: z.string() }),
      screen: z.object({
        perUnit: z.number(),
        setup: z.number(),
        minimumQuantity: z.number().int(),
        currency: z.string(),
      }),
    }),
    warnings: z.array(z.string()),
  })
  .meta({ id: 'Analysis' });

// ------------------------------------------------------------------ generations

const placement = z.object({ x: z.number(), y: z.number(), scale: z.number(), rotation: z.number() });
const pixelBox = (description: string) =>
  z
    .object({ left: z.number().int(), top: z.number().int(), width: z.number().int(), height: z.number().int() })
    .meta({ description });

export const generationWarning = z
  .object({
    code: z.enum(GENERATION_WARNING_CODES).meta({
      description:
        "low_contrast: much of the design's ink is hard to see on the garment colour (details: garmentColor, " +
        'garmentHex, lowShare, minRatio, inks with their contrast ratio); garment_not_found, zone_clipped: see docs',
    }),
    message: z.string(),
    details: z.record(z.string(), z.unknown()).optional(),
  })
  .meta({ id: 'GenerationWarning' });

export const generationResource = z
  .object({
    id: z.string().meta({ description: 'gen_<number>_<suffix>' }),
    status: z.enum(['pending', 'processing', 'completed', 'failed']),
    mockupUrl: url.optional().meta({ description: 'JPEG at the blank resolution; when completed' }),
    thumbnailUrl: url.optional().meta({ description: 'JPEG, about 400 px; when completed' }),
    tokensUsed: z.number().int(),
    createdAt: timestamp,
    completedAt: timestamp.optional(),
    error: z.string().optional().meta({ description: 'when failed (the token is refunded)' }),
    garmentId: z.string().optional().meta({ description: 'the garment; absent on a generation on a template' }),
    color: z.string().optional().meta({ description: 'the garment colour; absent on a generation on a template' }),
    zone: z.enum(ZONES).optional().meta({ description: 'the print zone; absent on a generation on a template' }),
    templateId: z
      .string()
      .optional()
      .meta({ description: "the template it was rendered on (docs/templates.md); absent on a garment's generation" }),
    designs: z
      .array(
        z.object({
          smartObjectId: z.string(),
          designUrl: z.string(),
          placement,
        }),
      )
      .optional()
      .meta({
        description:
          'on a template: the design of each smart object filled, with its placement (designUrl and placement ' +
          'above repeat the first)',
      }),
    placement,
    applyTexture: z.boolean(),
    designUrl: z.string(),
    printArea: pixelBox(
      "the print zone used, in the blank's (and mockup's) pixels: the client's printArea, the zone fitted to the " +
        "garment found in a client's own photo, or the catalogue zone; when completed",
    ).optional(),
    designBox: pixelBox(
      "where the unrotated design landed, in the blank's pixels, before clipping to the print zone; when completed",
    ).optional(),
    placementBasis: z
      .enum(['image', 'garment'])
      .optional()
      .meta({
        description:
          "what the print zone was placed relative to: 'garment' (our blank, or the garment found in a client's " +
          "photo) or 'image' (the client's printArea, or the zone's fractions of the photo when no garment was " +
          'found); when completed',
      }),
    livemode: z.boolean().meta({
      description: 'false for a test-mode generation: no token spent (tokensUsed 0), TEST watermark on the mockup',
    }),
    warnings: z.array(generationWarning).meta({
      description: 'what the service noticed without refusing the generation; always present, [] when none',
    }),
  })
  .meta({ id: 'Generation' });

export const generationPage = z
  .object({ generations: z.array(generationResource), pagination })
  .meta({ id: 'GenerationPage' });

export const batchResult = z
  .object({ batchId: z.string(), generations: z.array(generationResource) })
  .meta({ id: 'BatchResult' });

export const deliveryList = z.object({ deliveries: z.array(deliveryResource) }).meta({ id: 'DeliveryList' });

// ------------------------------------------------------------------ outbound webhook (generation callbacks)

export const webhookPayload = z
  .discriminatedUnion('event', [
    z.object({
      event: z.literal('generation.completed'),
      timestamp: timestamp.meta({ description: 'when the generation completed' }),
      livemode: z.boolean().meta({ description: 'false for a test-mode generation' }),
      data: z.object({
        id: z.string(),
        status: z.literal('completed'),
        mockupUrl: url,
        tokensUsed: z.number().int(),
      }),
    }),
    z.object({
      event: z.literal('generation.failed'),
      timestamp: timestamp.meta({ description: 'when the generation was marked failed' }),
      livemode: z.boolean().meta({ description: 'false for a test-mode generation' }),
      data: z.object({
        id: z.string(),
        status: z.literal('failed'),
        error: z.string(),
        tokensUsed: z.number().int(),
      }),
    }),
  ])
  .meta({ id: 'GenerationCallback' });

// ------------------------------------------------------------------ health

export const health = z.object({ status: z.literal('ok') }).meta({ id: 'Health' });
export const readiness = z
  .object({
    status: z.enum(['ready', 'not_ready']),
    missing: z.array(z.string()).optional(),
    checks: z.record(
      z.string(),
      z.object({ ok: z.boolean(), error: z.string().optional(), pollers: z.number().int().optional() }),
    ),
  })
  .meta({ id: 'Readiness' });
