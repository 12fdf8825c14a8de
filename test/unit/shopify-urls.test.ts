// The shop pages the merchant's browser is sent to: Shopify's own (https://<shop>/admin/...) unless
// SHOPIFY_DEV_SHOP_URL names the local development shop, whose pages take the shop as ?shop=.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../lib/config';
import { productAdminUrl, shopAdminPage } from '../../lib/shopify/client';

describe('shop admin pages for the browser', () => {
  const shop = 'demo.myshopify.com';
  const q = () =>
    new URLSearchParams({ client_id: 'app', scope: 'write_products', redirect_uri: 'https://x/cb', state: 's' });

  it("are Shopify's own without SHOPIFY_DEV_SHOP_URL", () => {
    assert.equal(shopAdminPage(shop, '', undefined), 'https://demo.myshopify.com/admin');
    assert.equal(
      shopAdminPage(shop, '/oauth/authorize', undefined, q()),
      'https://demo.myshopify.com/admin/oauth/authorize?client_id=app&scope=write_products&redirect_uri=https%3A%2F%2Fx%2Fcb&state=s',
    );
    assert.equal(productAdminUrl(shop, 'gid://shopify/Product/42'), 'https://demo.myshopify.com/admin/products/42');
  });

  it("are the development shop's with SHOPIFY_DEV_SHOP_URL, the shop as ?shop=", () => {
    const dev = 'http://127.0.0.1:4100';
    assert.equal(shopAdminPage(shop, '', dev), 'http://127.0.0.1:4100/admin?shop=demo.myshopify.com');
    const authorize = new URL(shopAdminPage(shop, '/oauth/authorize', dev, q()));
    assert.equal(`${authorize.origin}${authorize.pathname}`, 'http://127.0.0.1:4100/admin/oauth/authorize');
    assert.equal(authorize.searchParams.get('shop'), shop);
    assert.equal(authorize.searchParams.get('state'), 's');
    assert.equal(
      productAdminUrl(shop, 'gid://shopify/Product/42', dev),
      'http://127.0.0.1:4100/admin/products/42?shop=demo.myshopify.com',
    );
  });

  it('reads SHOPIFY_DEV_SHOP_URL independently of SHOPIFY_SHOP_BASE_URL', () => {
    const base = {
      NODE_ENV: 'test',
      SHOPIFY_API_KEY: 'k',
      SHOPIFY_API_SECRET: 's',
      DATA_DIR: mkdtempSync(path.join(tmpdir(), 'shopify-urls-')),
    } as const;
    const c1 = loadConfig({}, { ...base, SHOPIFY_SHOP_BASE_URL: 'http://127.0.0.1:4100' });
    assert.equal(
      c1.shopify.devShopUrl,
      undefined,
      'a real app key with a shop base URL still sends browsers to Shopify',
    );
    const c2 = loadConfig({}, { ...base, SHOPIFY_DEV_SHOP_URL: 'http://127.0.0.1:4100/' });
    assert.equal(c2.shopify.devShopUrl, 'http://127.0.0.1:4100');
  });
});
