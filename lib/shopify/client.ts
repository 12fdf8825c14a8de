// The Shopify side of the storefront, on @shopify/shopify-api 15: OAuth HMAC checks, webhook validation, the code
// exchange and the Admin GraphQL client (API version ApiVersion.October26, the newest the library knows).
//
// SHOPIFY_SHOP_BASE_URL: the library always builds https://<shop> URLs. When the base URL is set, every request to a
// shop goes to that origin instead, same path and query, with header X-Shopify-Shop-Domain: <shop> (the local
// development shop and the tests). The rewrite is installed as the library's fetch (setAbstractFetchFunc, one per
// process: the process has one configuration) and used for the code exchange too.
//
// SHOPIFY_DEV_SHOP_URL: what the merchant's browser opens (the authorize page, the store's admin) is on the local
// development shop at that origin, the shop named by a `shop` query parameter. Unset (production, and any real app
// key): https://<shop>/admin/... as Shopify serves them, whether SHOPIFY_SHOP_BASE_URL is set or not.
import '@shopify/shopify-api/adapters/node';
import {
  ApiVersion,
  GraphqlQueryError,
  HttpResponseError,
  Session,
  shopifyApi,
  type Shopify,
} from '@shopify/shopify-api';
import { setAbstractFetchFunc } from '@shopify/shopify-api/runtime';
import { inSpan } from '../spans';

export const SHOPIFY_API_VERSION = ApiVersion.October26;
export const SHOP_DOMAIN_HEADER = 'X-Shopify-Shop-Domain';

/** `<name>.myshopify.com`, lower case: a store name is letters, digits and hyphens, not starting with a hyphen. */
export const SHOP_DOMAIN_RE = /^[a-z0-9][a-z0-9-]{0,59}\.myshopify\.com$/;

export interface ShopifySettings {
  apiKey: string;
  apiSecret: string;
  scopes: string;
  shopBaseUrl: string | undefined;
  /** SHOPIFY_DEV_SHOP_URL: the local development shop's pages for the browser; unset for real shops. */
  devShopUrl?: string | undefined;
  publicBaseUrl: string;
}

/**
 * A page of a shop's admin as the merchant's browser opens it: https://<shop>/admin<path>, or on the local
 * development shop (SHOPIFY_DEV_SHOP_URL) <dev shop>/admin<path>?shop=<shop>.
 */
export function shopAdminPage(shop: string, path: string, devShopUrl: string | undefined, query?: URLSearchParams) {
  const q = new URLSearchParams(query);
  if (!devShopUrl) return `https://${shop}/admin${path}${q.size ? `?${q}` : ''}`;
  q.set('shop', shop);
  return `${devShopUrl}/admin${path}?${q}`;
}

let rewriteBase: string | undefined;
const nativeFetch = globalThis.fetch.bind(globalThis);

/** fetch for shop requests: https://<shop>/path → <SHOPIFY_SHOP_BASE_URL>/path with X-Shopify-Shop-Domain. */
/** Every request to Shopify (the library's and ours) is a span: fetch is not seen by the http instrumentation. */
export const shopFetch: typeof fetch = (input, init) => {
  const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
  const attributes = {
    'http.request.method': init?.method ?? 'GET',
    'server.address': url.hostname,
    'url.path': url.pathname,
  };
  return inSpan('shopify', attributes, () => untracedShopFetch(input, init));
};

const untracedShopFetch: typeof fetch = async (input, init) => {
  const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
  if (!rewriteBase || !SHOP_DOMAIN_RE.test(url.hostname)) return nativeFetch(input, init);
  const target = new URL(url.pathname + url.search, rewriteBase);
  const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
  headers.set(SHOP_DOMAIN_HEADER, url.hostname);
  if (input instanceof Request && !init) {
    return nativeFetch(target, { method: input.method, headers, body: await input.arrayBuffer(), redirect: 'manual' });
  }
  return nativeFetch(target, { ...init, headers });
};

/** A transient failure (network, 429, 5xx): worth retrying. Anything else from Shopify is a refusal. */
export class ShopifyTransientError extends Error {}
/** Shopify refused the request (4xx, GraphQL errors, userErrors): the same request would be refused again. */
export class ShopifyRefusedError extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

export interface ShopifyGateway {
  api: Shopify;
  settings: ShopifySettings;
  /** https://<shop>/admin/oauth/authorize?client_id&scope&redirect_uri&state (&shop on the development shop) */
  authorizeUrl(shop: string, state: string): string;
  redirectUri(): string;
  /** The OAuth callback query's hmac, checked by the library (hex HMAC-SHA256 of the sorted other parameters). */
  validCallbackHmac(query: Record<string, string>): Promise<boolean>;
  /**
   * An incoming webhook, checked by the library: X-Shopify-Hmac-Sha256 over the raw body, and the headers a delivery
   * must carry (`missingHeaders` when some are absent).
   */
  validWebhook(
    rawBody: string,
    headers: Record<string, string | string[] | undefined>,
  ): ReturnType<Shopify['webhooks']['validate']>;
  /** POST https://<shop>/admin/oauth/access_token {client_id, client_secret, code} → {access_token, scope}. */
  exchangeCode(shop: string, code: string): Promise<{ accessToken: string; scope: string }>;
  /** One Admin GraphQL operation; throws ShopifyTransientError or ShopifyRefusedError. */
  graphql<T>(shop: string, accessToken: string, query: string, variables?: Record<string, unknown>): Promise<T>;
}

export function createShopifyGateway(settings: ShopifySettings): ShopifyGateway {
  rewriteBase = settings.shopBaseUrl;
  const host = new URL(settings.publicBaseUrl);
  const api = shopifyApi({
    apiKey: settings.apiKey,
    apiSecretKey: settings.apiSecret,
    scopes: settings.scopes.split(','),
    hostName: host.host,
    hostScheme: host.protocol === 'http:' ? 'http' : 'https',
    apiVersion: SHOPIFY_API_VERSION,
    isEmbeddedApp: false,
    logger: { level: 0, log: async () => {} },
  });
  // after shopifyApi(): the node adapter import set the plain fetch
  setAbstractFetchFunc(shopFetch);

  const redirectUri = () => `${settings.publicBaseUrl}/api/storefront/callback`;

  return {
    api,
    settings,
    redirectUri,
    authorizeUrl(shop, state) {
      const q = new URLSearchParams({
        client_id: settings.apiKey,
        scope: settings.scopes,
        redirect_uri: redirectUri(),
        state,
      });
      return shopAdminPage(shop, '/oauth/authorize', settings.devShopUrl, q);
    },
    async validCallbackHmac(query) {
      try {
        return await api.utils.validateHmac(query, { signator: 'admin' });
      } catch {
        return false; // missing hmac, timestamp missing or outside the library's tolerance
      }
    },
    validWebhook(rawBody, headers) {
      // the node adapter reads only the request's headers, method and url
      const rawRequest = { headers, method: 'POST', url: '/api/storefront/webhooks/orders' };
      return api.webhooks.validate({ rawBody, rawRequest });
    },
    async exchangeCode(shop, code) {
      let res: Response;
      try {
        res = await shopFetch(`https://${shop}/admin/oauth/access_token`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json' },
          body: JSON.stringify({ client_id: settings.apiKey, client_secret: settings.apiSecret, code }),
          signal: AbortSignal.timeout(15_000),
        });
      } catch (err) {
        throw new ShopifyTransientError(`token exchange with ${shop} failed: ${(err as Error).message}`);
      }
      const text = await res.text();
      if (res.status === 429 || res.status >= 500)
        throw new ShopifyTransientError(`token exchange with ${shop}: HTTP ${res.status}`);
      if (!res.ok) throw new ShopifyRefusedError(`token exchange with ${shop} refused: HTTP ${res.status}`, res.status);
      const body = JSON.parse(text) as { access_token?: unknown; scope?: unknown };
      if (typeof body.access_token !== 'string' || !body.access_token)
        throw new ShopifyRefusedError(`token exchange with ${shop}: no access_token in the answer`);
      return { accessToken: body.access_token, scope: typeof body.scope === 'string' ? body.scope : '' };
    },
    async graphql<T>(shop: string, accessToken: string, query: string, variables?: Record<string, unknown>) {
      const session = new Session({ id: `offline_${shop}`, shop, state: '', isOnline: false, accessToken });
      const client = new api.clients.Graphql({ session });
      try {
        const res = await client.request(query, { variables });
        return res.data as T;
      } catch (err) {
        if (err instanceof GraphqlQueryError) throw new ShopifyRefusedError(`Shopify GraphQL error: ${err.message}`);
        if (err instanceof HttpResponseError) {
          const status = err.response.code;
          if (status === 429 || status >= 500) throw new ShopifyTransientError(`Shopify answered HTTP ${status}`);
          throw new ShopifyRefusedError(`Shopify refused the request: HTTP ${status}`, status);
        }
        throw new ShopifyTransientError(`Shopify request failed: ${(err as Error).message}`);
      }
    },
  };
}

/** userErrors of a mutation as one message, or null when there are none. */
export function userErrorMessage(errors: { field?: string[] | null; message: string }[] | undefined): string | null {
  if (!errors || errors.length === 0) return null;
  return errors.map((e) => (e.field?.length ? `${e.field.join('.')}: ${e.message}` : e.message)).join('; ');
}

/** gid://shopify/Product/123 → "123" (the numeric id webhooks and admin URLs use). */
export const legacyId = (gid: string) => gid.slice(gid.lastIndexOf('/') + 1);

const gateways = new WeakMap<object, ShopifyGateway>();

/** The gateway of a configuration (one per process in practice), or null when no app credentials are set. */
export function gatewayFor(config: {
  publicBaseUrl: string;
  shopify: { apiKey?: string; apiSecret?: string; scopes: string; shopBaseUrl?: string; devShopUrl?: string };
}): ShopifyGateway | null {
  const s = config.shopify;
  if (!s.apiKey || !s.apiSecret) return null;
  let g = gateways.get(config);
  if (!g || g.settings.publicBaseUrl !== config.publicBaseUrl) {
    g = createShopifyGateway({
      apiKey: s.apiKey,
      apiSecret: s.apiSecret,
      scopes: s.scopes,
      shopBaseUrl: s.shopBaseUrl,
      devShopUrl: s.devShopUrl,
      publicBaseUrl: config.publicBaseUrl,
    });
    gateways.set(config, g);
  }
  return g;
}

/** Admin URL of a product: https://<shop>/admin/products/<numeric id> (or the development shop's page of it). */
export const productAdminUrl = (shop: string, productId: string, devShopUrl?: string) =>
  shopAdminPage(shop, `/products/${legacyId(productId)}`, devShopUrl);
