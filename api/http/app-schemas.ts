// Request schemas of Part B's app routes (accounts, storefront): parsed by the routes, and the source of the
// OpenAPI document's request bodies (api/openapi/).
import { z } from 'zod';
import { CHAT_MODELS, DEFAULT_CHAT_MODEL, MAX_CHAT_URLS, MAX_PROMPT_LENGTH } from '../../lib/chat/types';
import { cursorParam, pageLimitParam } from '../pagination';
import { validShopDomain } from '../services/storefront/common';

export const credentialsBody = z
  .object({
    email: z
      .string()
      .trim()
      .toLowerCase()
      .max(254)
      .pipe(z.email({ message: 'must be a valid email address' })),
    password: z.string().min(1, 'is required').max(200, 'must be at most 200 characters'),
  })
  .meta({
    id: 'Credentials',
    description:
      'signup also wants a password of at least 10 characters mixing two of lowercase, uppercase, digits, symbols',
  });

export const installBody = z
  .object({
    shop: z
      .string()
      .trim()
      .toLowerCase()
      .max(255)
      .refine(validShopDomain, 'must be a valid <name>.myshopify.com domain')
      .meta({ description: 'the shop domain, <name>.myshopify.com' }),
  })
  .meta({ id: 'StorefrontInstallRequest' });

export const callbackQuery = z
  .record(z.string(), z.string().max(2000))
  .meta({ description: "Shopify's OAuth redirect parameters: code, hmac, host, shop, state, timestamp" });

/** Ids of storefront records: connections `shc_…`, orders `ord_…`. */
export const storefrontIdParam = (prefix: string) => z.string().regex(new RegExp(`^${prefix}_[a-z0-9_]{1,60}$`));

/** The mockup a product is made from: a generation's, or one of a design-chat job's. */
const mockupSourceFields = {
  generationId: z
    .string()
    .min(1)
    .max(100)
    .optional()
    .meta({ description: "a completed generation of the user's: its mockup is the media. Or chatJobId + mockupIndex" }),
  chatJobId: z.string().min(1).max(100).optional().meta({
    description:
      "a completed design-chat job of the user's (the chat's jobId, job_<…>: GET /api/chat/jobs/<jobId>, the thread's messages[].jobId). With mockupIndex; instead of generationId",
  }),
};
const MOCKUP_INDEX_HINT =
  "which of the job's mockups: its index (from 0) in the chat result's `mockups` array; with chatJobId";

export const MOCKUP_SOURCE_MESSAGE = 'give exactly one mockup to publish: generationId, or chatJobId with mockupIndex';

/** Exactly one source: generationId, or chatJobId with mockupIndex. */
function oneMockupSource(
  b: { generationId?: string; chatJobId?: string; mockupIndex?: number },
  ctx: z.RefinementCtx,
): void {
  const chat = b.chatJobId !== undefined || b.mockupIndex !== undefined;
  if (b.generationId !== undefined && chat) {
    ctx.addIssue({ code: 'custom', path: [], message: `${MOCKUP_SOURCE_MESSAGE}, not both` });
  } else if (b.generationId === undefined && !chat) {
    ctx.addIssue({ code: 'custom', path: [], message: MOCKUP_SOURCE_MESSAGE });
  } else if (chat && b.chatJobId === undefined) {
    ctx.addIssue({ code: 'custom', path: ['chatJobId'], message: 'is required with mockupIndex' });
  } else if (chat && b.mockupIndex === undefined) {
    ctx.addIssue({ code: 'custom', path: ['mockupIndex'], message: 'is required with chatJobId' });
  }
}

export const publishBody = z
  .object({
    ...mockupSourceFields,
    mockupIndex: z
      .number({ message: 'must be a whole number from 0' })
      .int('must be a whole number from 0')
      .min(0, 'must be a whole number from 0')
      .max(99, 'must be at most 99')
      .optional()
      .meta({ description: MOCKUP_INDEX_HINT }),
    connectionId: z.string().min(1).max(100),
    title: z.string().trim().min(1).max(255),
    description: z.string().max(5000).optional(),
    price: z.number().positive().max(100_000).multipleOf(0.01).optional().meta({ description: 'USD; default 59.99' }),
    sizes: z
      .array(z.string().trim().min(1).max(20))
      .min(1)
      .max(100)
      .refine((a) => new Set(a).size === a.length, 'must not repeat a size')
      .optional()
      .meta({ description: "default: the garment's sizes (required for a chat mockup on a non-catalogue blank)" }),
  })
  .superRefine(oneMockupSource)
  .meta({
    id: 'PublishRequest',
    description: 'exactly one mockup source: generationId, or chatJobId with mockupIndex',
  });

/** GET /api/storefront/costs: the same source as publishing, and optionally the price to work the margin at. */
export const costsQuery = z
  .object({
    ...mockupSourceFields,
    mockupIndex: z
      .string()
      .regex(/^\d{1,2}$/, 'must be a whole number from 0 to 99')
      .transform(Number)
      .optional()
      .meta({ description: MOCKUP_INDEX_HINT }),
    price: z
      .string()
      .regex(/^\d{1,6}(\.\d{1,2})?$/, 'must be an amount in USD with at most two decimals, e.g. 59.99')
      .transform(Number)
      .refine((n) => n > 0 && n <= 100_000, 'must be more than 0 and at most 100000')
      .optional()
      .meta({ description: 'USD per unit to work the margin at; default 59.99' }),
  })
  .superRefine(oneMockupSource)
  .meta({ description: 'exactly one mockup source: generationId, or chatJobId with mockupIndex' });

export const fulfillmentBody = z
  .object({
    trackingNumber: z.string().trim().min(1).max(100),
    trackingCompany: z.string().trim().min(1).max(100),
    trackingUrl: z
      .url({ protocol: /^https?$/ })
      .max(2048)
      .optional(),
  })
  .meta({ id: 'FulfillmentRequest' });

// ------------------------------------------------------------------ payments

export const checkoutBody = z
  .object({
    priceId: z
      .string()
      .trim()
      .min(1)
      .max(255)
      .meta({ description: 'a plan price (subscription) or a token-pack price (payment)' }),
    mode: z.enum(['subscription', 'payment']),
    successUrl: z
      .string()
      .max(2048)
      .optional()
      .meta({ description: "on the app's own origin; default /billing?checkout=success" }),
    cancelUrl: z
      .string()
      .max(2048)
      .optional()
      .meta({ description: "on the app's own origin; default /billing?checkout=canceled" }),
  })
  .meta({ id: 'CheckoutRequest' });
export type CheckoutBody = z.infer<typeof checkoutBody>;

// ------------------------------------------------------------------ design chat

const urlList = (field: string) =>
  z
    .array(z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).max(2048), {
      error: `must be a list of http(s) URLs`,
    })
    .max(MAX_CHAT_URLS, `at most ${MAX_CHAT_URLS} URLs in ${field}`)
    .default([]);

export const chatBody = z
  .object({
    prompt: z.string().trim().max(MAX_PROMPT_LENGTH, `must be at most ${MAX_PROMPT_LENGTH} characters`),
    images: urlList('images'),
    garmentUrls: urlList('garmentUrls'),
    designUrls: urlList('designUrls'),
    model: z.enum(CHAT_MODELS, { error: `must be one of ${CHAT_MODELS.join(', ')}` }).default(DEFAULT_CHAT_MODEL),
    threadId: z.string({ error: 'must be a string or null' }).max(200).nullable().default(null),
  })
  .meta({ id: 'ChatRequest' });

export const threadsQuery = z.object({ limit: pageLimitParam, cursor: cursorParam });
