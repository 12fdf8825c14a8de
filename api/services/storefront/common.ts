// What the storefront's flows share: the gateway and token key (503 when Shopify is not configured), the shop-domain
// check and the answers' texts they have in common.
import { gatewayFor, SHOP_DOMAIN_RE, type ShopifyGateway } from '../../../lib/shopify/client';
import type { AppDeps } from '../../context';
import { ApiError } from '../../errors';

export const INVALID_HMAC = 'Invalid HMAC';
export const INVALID_STATE = 'Invalid state: the authorization took too long or was abandoned';
export const NOT_CONNECTED = 'Store is not connected';

const NOT_CONFIGURED = 'Storefront is not configured: set SHOPIFY_API_KEY, SHOPIFY_API_SECRET and TOKEN_ENCRYPTION_KEY';

/** The Shopify gateway and the token key; 503 when the storefront is not configured (production without Shopify). */
export function configured(deps: AppDeps): { g: ShopifyGateway; tokenKey: Buffer } {
  const g = gatewayFor(deps.config);
  const tokenKey = deps.config.shopify.tokenKey;
  if (!g || !tokenKey) throw new ApiError(503, 'service_unavailable', NOT_CONFIGURED);
  return { g, tokenKey };
}

export function validShopDomain(shop: string): boolean {
  return SHOP_DOMAIN_RE.test(shop);
}
