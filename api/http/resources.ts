// Response shapes (spec "Resources and their fields" and ours): the presenters are typed by these schemas, so what
// a route answers and what the OpenAPI document (api/openapi/) says it answers cannot drift apart silently.
import { z } from 'zod';
import { deliveryResource } from './logs';
import { productionResource } from './print-schemas';
import { ZONES } from '../../lib/generation/types';
import { GENERATION_WARNING_CODES } from '../../lib/generation/warnings';
import { ERROR_CODES } from '../errors';
import { pagination } from '../pagination';
import { timestamp } from './schemas';

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

// ------------------------------------------------------------------ storefront

const storefrontStatus = <T extends [string, ...string[]]>(...values: T) => z.enum(values);

export const connectionResource = z
  .object({
    id: z.string().meta({ description: 'shc_<…>' }),
    shopDomain: z.string(),
    shopName: z.string().nullable(),
    status: storefrontStatus('active', 'disconnected'),
    installedAt: timestamp.nullable(),
    adminUrl: z.string().meta({
      description:
        'the store\'s admin for the merchant\'s browser ("Open store"): https://<shop>/admin, or the local ' +
        'development shop’s page of the store (SHOPIFY_DEV_SHOP_URL)',
    }),
  })
  .meta({ id: 'StoreConnection' });

const usdAmount = (description: string) => z.number().meta({ description });

/** Unit economics (lib/storefront/economics.ts): USD per unit, rounded to the cent. */
export const unitCosts = z
  .object({
    print: usdAmount('printing the design: 30'),
    blank: usdAmount("the blank garment: the garment's basePrice, or 15 when the mockup is not on a catalogue garment"),
    fulfillment: usdAmount('fulfilment: 5'),
    total: usdAmount('print + blank + fulfillment'),
  })
  .meta({
    id: 'UnitCosts',
    description:
      'Estimated cost of one front-printed item, USD per unit. Computed in whole cents (inputs rounded to the cent, half away from zero)',
  });
const margin = usdAmount('price − costs.total, USD per unit, exact in cents (negative below cost)');

export const productResource = z
  .object({
    id: z.string().meta({ description: 'pub_<…>' }),
    status: storefrontStatus('publishing', 'published', 'failed'),
    source: storefrontStatus('generation', 'chat').meta({
      description:
        'where the media came from: a generation (generationId) or a design-chat mockup (chatJobId, mockupIndex)',
    }),
    generationId: z.string().nullable().meta({ description: 'the generation published; null for a chat mockup' }),
    chatJobId: z.string().nullable().meta({ description: 'the design-chat job whose mockup was published; else null' }),
    mockupIndex: z
      .number()
      .int()
      .nullable()
      .meta({ description: "the mockup's index in that job's `mockups`; null for a generation" }),
    garmentId: z
      .string()
      .nullable()
      .meta({ description: 'the catalogue garment the mockup is on; null for a chat mockup on a foreign blank' }),
    connectionId: z.string(),
    title: z.string(),
    price: z.number(),
    sizes: z.array(z.string()),
    costs: unitCosts,
    margin,
    productId: z.string().nullable(),
    handle: z.string().nullable(),
    adminUrl: z.string().nullable(),
    error: z.string().nullable(),
    createdAt: timestamp,
    publishedAt: timestamp.nullable(),
  })
  .meta({ id: 'PublishedProduct' });

export const costEstimate = z
  .object({
    source: storefrontStatus('generation', 'chat'),
    generationId: z.string().nullable(),
    chatJobId: z.string().nullable(),
    mockupIndex: z.number().int().nullable(),
    imageUrl: z.string().meta({ description: 'the mockup that would be the product image' }),
    garmentId: z.string().nullable(),
    garmentName: z.string().nullable(),
    sizes: z
      .array(z.string())
      .meta({ description: "the garment's sizes (what publishing defaults to); [] without one" }),
    price: usdAmount('the price the margin is worked at: ?price, default the suggested 59.99'),
    suggestedPrice: usdAmount('the suggested retail starting price, 59.99'),
    costs: unitCosts,
    margin,
  })
  .meta({ id: 'StorefrontCostEstimate' });

export const orderResource = z
  .object({
    id: z.string().meta({ description: 'ord_<…>' }),
    shopDomain: z.string(),
    shopifyOrderId: z.string().meta({
      description: "the shop's order: gid://shopify/Order/<id>, the 64-bit id exactly as Shopify sent it",
    }),
    name: z.string(),
    status: storefrontStatus('open', 'paid', 'fulfilled'),
    customer: z.object({ name: z.string().nullable(), email: z.string().nullable() }),
    lineItems: z.array(
      z.object({
        lineItemId: z.string().nullable().optional().meta({ description: "Shopify's line item id" }),
        title: z.string(),
        variantTitle: z.string().nullable(),
        quantity: z.number().int(),
        price: z.string(),
        shopifyProductId: z.string().nullable(),
        publishedProductId: z.string().nullable(),
      }),
    ),
    total: z.string(),
    currency: z.string(),
    tracking: z.object({ number: z.string(), company: z.string(), url: z.string().optional() }).nullable(),
    createdAt: timestamp,
    production: productionResource.nullable(),
  })
  .meta({ id: 'StoreOrder' });

export const installStarted = z
  .object({ url: url.meta({ description: "the shop's authorize page: send the merchant's browser there" }) })
  .meta({ id: 'StorefrontInstall' });
export const connectionList = z.object({ connections: z.array(connectionResource) }).meta({ id: 'StoreConnections' });
export const disconnected = z
  .object({
    id: z.string(),
    status: z.literal('disconnected'),
    webhooks: z
      .object({
        removed: z.array(z.string()).meta({ description: 'topics whose subscription was deleted at Shopify' }),
        notRemoved: z.array(z.string()).meta({
          description:
            'topics whose subscription Shopify could not be asked to delete now (unreachable, refused): kept on record ' +
            'and deleted at the next disconnect of the shop; deliveries to them are stored and ignored meanwhile',
        }),
        keptForOtherConnections: z.array(z.string()).meta({
          description: "topics left in place because another user's connection to the shop is still active",
        }),
      })
      .meta({ description: 'the webhook subscriptions registered at connect, and what became of them' }),
  })
  .meta({ id: 'StoreDisconnected' });
export const publishAnswer = z
  .union([
    z.object({
      id: z.string(),
      status: z.literal('published'),
      productId: z.string().nullable(),
      adminUrl: z.string().nullable(),
      price: z.number(),
      costs: unitCosts,
      margin,
    }),
    z.object({ id: z.string(), status: z.literal('publishing'), price: z.number(), costs: unitCosts, margin }),
  ])
  .meta({ id: 'PublishResult' });
export const productList = z.object({ products: z.array(productResource) }).meta({ id: 'PublishedProducts' });
export const orderList = z.object({ orders: z.array(orderResource) }).meta({ id: 'StoreOrders' });
export const fulfillmentAnswer = z
  .union([orderResource, z.object({ id: z.string(), status: z.literal('fulfilling') })])
  .meta({ id: 'FulfillmentResult' });
export const webhookAck = z.object({ ok: z.literal(true) }).meta({ id: 'WebhookAck' });
export const dataRequestResource = z
  .object({
    id: z.string().meta({ description: 'the X-Shopify-Webhook-Id of the customers/data_request' }),
    shopDomain: z.string(),
    customer: z.object({ id: z.string().nullable(), email: z.string().nullable() }),
    ordersRequested: z.array(z.string()),
    orders: z.array(
      z.object({
        order: z.string(),
        name: z.string(),
        customer: z.object({ id: z.string().nullable(), name: z.string().nullable(), email: z.string().nullable() }),
        lineItems: orderResource.shape.lineItems,
        total: z.string(),
        currency: z.string(),
        createdAt: timestamp,
      }),
    ),
    receivedAt: timestamp,
    processedAt: timestamp.nullable(),
  })
  .meta({ id: 'CustomerDataRequest' });
export const dataRequestList = z
  .object({ dataRequests: z.array(dataRequestResource) })
  .meta({ id: 'CustomerDataRequests' });

// ------------------------------------------------------------------ payments

export const plansList = z
  .object({
    plans: z.array(
      z.object({
        id: z.enum(['free', 'pro', 'business', 'enterprise']),
        name: z.string(),
        tokensPerMonth: z.number().int().nullable().meta({ description: 'null: custom (Enterprise)' }),
        priceUsd: z.number().nullable(),
        priceId: z
          .string()
          .nullable()
          .meta({ description: 'the Stripe price to check out; null for Free and Enterprise' }),
        rollover: z.boolean().meta({ description: 'false: plan tokens expire at the end of their period' }),
      }),
    ),
    tokenPacks: z.array(z.object({ priceId: z.string(), tokens: z.number().int(), priceUsd: z.number() })),
  })
  .meta({ id: 'Plans' });
export const checkoutStarted = z
  .object({ url: url.meta({ description: 'the hosted checkout page' }), sessionId: z.string() })
  .meta({ id: 'CheckoutSession' });
export const portalStarted = z.object({ url }).meta({ id: 'PortalSession' });
export const subscriptionAnswer = z
  .object({
    subscription: z
      .object({
        id: z.string().meta({ description: 'the Stripe subscription id' }),
        plan: z.object({ id: z.string(), name: z.string() }),
        status: z.string().meta({ description: "Stripe's status: active, trialing, past_due, canceled, ..." }),
        currentPeriodStart: timestamp.nullable(),
        currentPeriodEnd: timestamp.nullable(),
        cancelAtPeriodEnd: z.boolean(),
      })
      .nullable(),
  })
  .meta({ id: 'SubscriptionState' });
export const stripeAck = z.object({ received: z.literal(true) }).meta({ id: 'StripeEventAck' });

// ------------------------------------------------------------------ design chat

export const chatAnswer = z
  .object({
    threadId: z.string(),
    messageId: z.string().meta({ description: 'the assistant message' }),
    mockups: z.array(url).meta({ description: 'two mockups when garmentUrls were given, else none' }),
    graphicUrl: url.nullable().meta({ description: 'the clean design without garment (spec: string or null)' }),
    printAssetUrl: url
      .nullable()
      .meta({ description: 'PNG, 300 DPI, at least 2048 px (4096 for nano-banana-pro-4k); spec: string or null' }),
    tokensSpent: z.number().int(),
    tokensRemaining: z.number().int(),
  })
  .meta({ id: 'ChatResult' });
export const chatRunning = z.object({ jobId: z.string(), status: z.literal('running') }).meta({ id: 'ChatJobRunning' });
export const chatThreadPage = z
  .object({
    threads: z.array(
      z.object({
        id: z.string(),
        title: z.string(),
        messageCount: z.number().int(),
        createdAt: timestamp,
        updatedAt: timestamp,
      }),
    ),
    pagination,
  })
  .meta({ id: 'ChatThreads' });
export const chatThread = z
  .object({
    id: z.string(),
    title: z.string(),
    createdAt: timestamp,
    updatedAt: timestamp,
    messages: z.array(
      z.looseObject({
        id: z.string(),
        role: z.enum(['user', 'assistant']),
        jobId: z.string().nullable(),
        model: z.string().nullable(),
        tokens: z.number().int(),
        createdAt: timestamp,
        content: z.string().nullable(),
        images: z.array(z.looseObject({ kind: z.string(), url })),
      }),
    ),
  })
  .meta({ id: 'ChatThread' });

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
