// The storefront tests' set-up: the local development shop (scripts/stand-ins/shopify-shop.ts) beside a stack
// configured as its Shopify app, and the OAuth connect a test goes through to get a store connection.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { Env } from '../../lib/config';
import { randomSuffix } from '../../lib/ids';
import { startDevShop, type DevShop, type DevShopOptions } from '../../scripts/stand-ins/shopify-shop';
import { http } from './http';
import { lateBound, startStack, workflowResultWhenStarted, type Stack, type StackOptions } from './stack';

export const SHOPIFY_API_KEY = 'test-app-key';
/** The scopes the service asks a shop for. */
export const SHOPIFY_SCOPES = 'write_products,read_orders,write_fulfillments,read_fulfillments';
export const INVALID_STATE = 'Invalid state: the authorization took too long or was abandoned';

export interface ShopStack {
  /** the stack, readable once the suite's before hook ran */
  stack: Stack;
  /** the dev shop (the one running now: restartShop() replaces it) */
  shop: DevShop;
  /** the dev shop's options (a restart starts it with these) */
  shopOptions: DevShopOptions;
  apiSecret: string;
  /** the base64 TOKEN_ENCRYPTION_KEY of the stack (absent with `tokenKey: false`) */
  tokenKey: string;
  /** Starts the dev shop again (after the test stopped it) with shopOptions, on the port the stack knows. */
  startShopAgain(): Promise<void>;
  /** authorizeShop on this stack and shop */
  authorize(cookie: string, shopDomain: string): Promise<string>;
  /** connectShop on this stack and shop: the new connection's id */
  connect(cookie: string, shopDomain: string): Promise<string>;
  /** the result of the workflow of a webhook delivered to this stack */
  webhookProcessed(webhookId: string): Promise<any>;
}

export interface ShopStackOptions extends Omit<StackOptions, 'env'> {
  /** more of the stack's environment, or a function of the dev shop giving it */
  env?: StackOptions['env'] | ((shop: DevShop) => StackOptions['env']);
  /** options of the dev shop beside the app's key and secret */
  shop?: Omit<DevShopOptions, 'apiKey' | 'apiSecret'>;
  apiKey?: string;
  /** false: the stack has no TOKEN_ENCRYPTION_KEY of its own (the run's default) */
  tokenKey?: false;
}

/**
 * A dev shop and a stack that is its Shopify app (key, secret, SHOPIFY_SHOP_BASE_URL, a token key of its own,
 * private URLs allowed), started in the calling suite's `before` hook and stopped in its `after` hook.
 */
export function useShopStack(name: string, opts: ShopStackOptions = {}): ShopStack {
  const stack = lateBound<Stack>(`the stack '${name}'`);
  const shop = lateBound<DevShop>(`the dev shop of '${name}'`);
  const apiKey = opts.apiKey ?? SHOPIFY_API_KEY;
  const apiSecret = `test-app-secret-${randomSuffix(16)}`;
  const tokenKey = randomBytes(32).toString('base64');
  const shopOptions: DevShopOptions = { ...opts.shop, apiKey, apiSecret };
  before(async () => {
    shop.set(await startDevShop(shopOptions));
    shopOptions.port = Number(new URL(shop.ref.url).port);
    const env: Partial<Record<keyof Env, string>> = {
      ALLOW_PRIVATE_URLS: 'true',
      SHOPIFY_API_KEY: apiKey,
      SHOPIFY_API_SECRET: apiSecret,
      SHOPIFY_SHOP_BASE_URL: shop.ref.url,
      ...(opts.tokenKey === false ? {} : { TOKEN_ENCRYPTION_KEY: tokenKey }),
      ...(typeof opts.env === 'function' ? opts.env(shop.ref) : opts.env),
    };
    stack.set(await startStack(name, { ...opts, env }));
  });
  after(async () => {
    await stack.get()?.stop();
    await shop.get()?.stop();
  });
  const t: ShopStack = {
    stack: stack.ref,
    shop: shop.ref,
    shopOptions,
    apiSecret,
    tokenKey,
    async startShopAgain() {
      shop.set(await startDevShop(shopOptions));
    },
    authorize: (cookie, shopDomain) => authorizeShop(t, cookie, shopDomain),
    connect: (cookie, shopDomain) => connectShop(t, cookie, shopDomain),
    webhookProcessed: (webhookId) => webhookProcessed(t.stack, webhookId),
  };
  return t;
}

/** A shop domain no test used yet. */
export const newShopDomain = (prefix = 'dev') => `${prefix}-${randomSuffix(8)}.myshopify.com`;

/** A Shopify webhook's workflow starts right after the answer: waits for it to exist, then for its result. */
export const webhookProcessed = (stack: Pick<Stack, 'client'>, webhookId: string): Promise<any> =>
  workflowResultWhenStarted(stack.client, `shopify-webhook-${webhookId}`);

/**
 * install → the shop's authorize URL (checked: the app key, the scopes, the callback) → its consent page (checked:
 * the scopes, Install) → Install: the callback URL the shop redirects to (not followed).
 */
export async function authorizeShop(
  t: Pick<ShopStack, 'stack' | 'shop'>,
  cookie: string,
  shopDomain: string,
): Promise<string> {
  const { stack, shop } = t;
  const install = await http(stack.baseUrl, 'POST', '/api/storefront/connect/install', {
    cookie,
    json: { shop: shopDomain },
  });
  assert.equal(install.status, 200, install.text);
  // a real app key (SHOPIFY_DEV_SHOP_URL unset): Shopify's own authorize page, SHOPIFY_SHOP_BASE_URL or not
  const url = new URL(install.body.url);
  assert.equal(url.origin, `https://${shopDomain}`);
  assert.equal(url.pathname, '/admin/oauth/authorize');
  assert.equal(url.searchParams.get('client_id'), shop.apiKey);
  assert.equal(url.searchParams.get('scope'), SHOPIFY_SCOPES);
  assert.equal(url.searchParams.get('redirect_uri'), `${stack.baseUrl}/api/storefront/callback`);
  // the dev shop's consent page for it lists the scopes and has Install
  const consent = await fetch(`${shop.url}${url.pathname}${url.search}&shop=${shopDomain}`);
  const html = await consent.text();
  assert.equal(consent.status, 200);
  assert.match(html, /Development stand-in/);
  assert.match(html, /<code>write_products<\/code>/);
  assert.match(html, /<button type="submit">Install<\/button>/);
  const approve = await shop.approve(url.href);
  assert.equal(approve.status, 302);
  return approve.location!;
}

/**
 * The whole connect (authorizeShop, then the callback in the session of `cookie`, the user who installed, which
 * sends the browser back to /storefront): the new connection's id.
 */
export async function connectShop(
  t: Pick<ShopStack, 'stack' | 'shop'>,
  cookie: string,
  shopDomain: string,
): Promise<string> {
  const { stack } = t;
  const callback = await authorizeShop(t, cookie, shopDomain);
  const res = await http(stack.baseUrl, 'GET', callback.slice(stack.baseUrl.length), { cookie });
  assert.equal(res.status, 302, res.text);
  const back = new URL(res.headers.get('location')!);
  assert.equal(`${back.origin}${back.pathname}`, `${stack.baseUrl}/storefront`);
  const id = back.searchParams.get('connected')!;
  assert.match(id, /^shc_/);
  return id;
}
