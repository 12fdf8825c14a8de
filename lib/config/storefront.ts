// The storefront's Shopify app (docs/storefront.md): credentials, scopes, the shop's address in development, how long
// the OAuth state and the synchronous answers last, the key shop tokens are encrypted with, retention.
import { z } from 'zod';
import { duration, int, persistedFile, requiredWith, type EnvOf, type NodeEnv } from './parse';

export const storefrontEnv = {
  // Storefront: Shopify OAuth, publishing, order webhooks, fulfillment. Unset SHOPIFY_API_KEY: `npm
  // start` runs the local development shop and passes its credentials and address.
  SHOPIFY_API_KEY: z.string().min(1).optional(),
  SHOPIFY_API_SECRET: z.string().min(1).optional(),
  SHOPIFY_SCOPES: z
    .string()
    .regex(/^[a-z_]+(,[a-z_]+)*$/, 'comma-separated scope names such as write_products,read_orders')
    .default('write_products,read_orders,write_fulfillments,read_fulfillments'),
  SHOPIFY_SHOP_BASE_URL: z.url().optional(),
  SHOPIFY_DEV_SHOP_URL: z.url().optional(),
  SHOPIFY_STATE_TTL_S: int(600, 10, 86_400),
  SHOPIFY_SYNC_TIMEOUT_MS: int(10_000, 100, 120_000),
  TOKEN_ENCRYPTION_KEY: z
    .string()
    .refine((v) => Buffer.from(v, 'base64').length === 32, 'must be 32 bytes, base64-encoded')
    .optional(),
  // Retention (docs/storefront.md): raw bodies of processed Shopify webhooks, customers/data_request exports.
  SHOPIFY_WEBHOOK_BODY_RETENTION: duration('7d', 0, 365 * 86_400_000),
  SHOPIFY_DATA_REQUEST_RETENTION: duration('30d', 0, 365 * 86_400_000),
};

export function storefrontConfig(e: EnvOf<typeof storefrontEnv> & { NODE_ENV: NodeEnv }, dataDir: string) {
  return {
    shopify: {
      /** Unset: no app credentials (npm start runs the local development shop and sets them). */
      apiKey: e.SHOPIFY_API_KEY,
      apiSecret:
        e.SHOPIFY_API_SECRET ??
        (e.NODE_ENV === 'production'
          ? requiredWith(e.SHOPIFY_API_KEY, 'SHOPIFY_API_SECRET', 'SHOPIFY_API_KEY is set')
          : undefined),
      scopes: e.SHOPIFY_SCOPES,
      /** Origin every shop request goes to instead of https://<shop> (local shop, tests); unset in production. */
      shopBaseUrl: e.SHOPIFY_SHOP_BASE_URL?.replace(/\/+$/, ''),
      /**
       * The local development shop's origin as the browser reaches it (npm start's dev shop, tests): the authorize URL
       * and a store's admin links point there (`<url>/admin/oauth/authorize?…&shop=<shop>`, `<url>/admin?shop=<shop>`)
       * instead of https://<shop>. Unset in production.
       */
      devShopUrl: e.SHOPIFY_DEV_SHOP_URL?.replace(/\/+$/, ''),
      stateTtlMs: e.SHOPIFY_STATE_TTL_S * 1000,
      /** How long POST /api/storefront/publish and fulfillment wait for their workflow before answering 202. */
      syncTimeoutMs: e.SHOPIFY_SYNC_TIMEOUT_MS,
      /** AES-256-GCM key for shop access tokens at rest; undefined in production when the storefront is not configured. */
      tokenKey: e.TOKEN_ENCRYPTION_KEY
        ? Buffer.from(e.TOKEN_ENCRYPTION_KEY, 'base64')
        : e.NODE_ENV === 'production'
          ? requiredWith(e.SHOPIFY_API_KEY, 'TOKEN_ENCRYPTION_KEY', 'SHOPIFY_API_KEY is set (32 bytes, base64)')
          : Buffer.from(persistedFile(dataDir, e.NODE_ENV, 'token-encryption-key', 'TOKEN_ENCRYPTION_KEY'), 'base64'),
      /** The raw body of a processed webhook is erased this long after processing. */
      webhookBodyRetentionMs: e.SHOPIFY_WEBHOOK_BODY_RETENTION,
      /** A customers/data_request export is erased this long after it was made. */
      dataRequestRetentionMs: e.SHOPIFY_DATA_REQUEST_RETENTION,
    },
  };
}
