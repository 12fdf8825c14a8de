// `npm start` without SHOPIFY_API_KEY: starts the local development shop (a stand-in, not Shopify) with app
// credentials and state (products, webhook subscriptions, orders) kept in DATA_DIR, points the service at it (its
// requests with SHOPIFY_SHOP_BASE_URL, the merchant's browser with SHOPIFY_DEV_SHOP_URL), and records its address in
// DATA_DIR/dev-shop.json for `npm run shop:order`.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../../lib/config';
import { startDevShop } from './shopify-shop';

export const DEV_SHOP_FILE = 'dev-shop.json';
/** The dev shop's products, webhook subscriptions and orders, kept across `npm start` restarts. */
export const DEV_SHOP_STATE_FILE = 'dev-shop-state.json';
export const DEV_SHOP_API_KEY = 'dev-shop-app';

export async function startDevShopForStart(config: Config, say: (m: string) => void) {
  mkdirSync(config.dataDir, { recursive: true });
  const secretFile = path.join(config.dataDir, 'dev-shop-secret');
  if (!existsSync(secretFile)) writeFileSync(secretFile, randomBytes(24).toString('hex'), { mode: 0o600 });
  const apiSecret = readFileSync(secretFile, 'utf8').trim();
  const shop = await startDevShop({
    port: 0,
    apiKey: DEV_SHOP_API_KEY,
    apiSecret,
    stateFile: path.join(config.dataDir, DEV_SHOP_STATE_FILE),
    appUrl: `${config.publicBaseUrl}/api/storefront/app`,
  });
  writeFileSync(path.join(config.dataDir, DEV_SHOP_FILE), JSON.stringify({ url: shop.url, apiSecret }), {
    mode: 0o600,
  });
  say(`SHOPIFY_API_KEY is unset: started the local DEVELOPMENT STAND-IN shop (not Shopify) at ${shop.url}`);
  say(`  connect: dashboard → Storefront → Shop domain (e.g. demo.myshopify.com) → Connect → Install on the dev shop`);
  say(`  the store: Storefront → Open store (${shop.url}/admin?shop=<shop>) → Place test order on a published product`);
  say('  (or `npm run shop:order -- <connection id>` from a terminal)');
  return {
    env: {
      SHOPIFY_API_KEY: DEV_SHOP_API_KEY,
      SHOPIFY_API_SECRET: apiSecret,
      SHOPIFY_SHOP_BASE_URL: shop.url,
      SHOPIFY_DEV_SHOP_URL: shop.url,
    },
    service: { name: 'dev shop', stop: () => shop.stop() },
  };
}
