// Return addresses handed to Stripe and Shopify are server paths: each dashboard page's path redirects to
// its hash route with the same query; other paths stay 404 in the Part A envelope.
import assert from 'node:assert/strict';
import { http } from '../helpers/http';
import { useStack } from '../helpers/stack';

describe('dashboard pages as server paths', () => {
  const stack = useStack('app-pages', { worker: false });

  it('redirects /billing?checkout=success to the billing page with the query', async () => {
    const res = await http(stack.baseUrl, 'GET', '/billing?checkout=success&session_id=cs_test_1');
    assert.equal(res.status, 302);
    assert.equal(res.headers.get('location'), '/#/billing?checkout=success&session_id=cs_test_1');
    const page = await fetch(new URL(res.headers.get('location')!, stack.baseUrl));
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /text\/html/);
  });

  it('redirects every page path, without a query too', async () => {
    for (const p of ['studio', 'designs', 'keys', 'billing', 'chat', 'storefront', 'signin', 'signup']) {
      const res = await http(stack.baseUrl, 'GET', `/${p}`);
      assert.equal(res.status, 302, p);
      assert.equal(res.headers.get('location'), `/#/${p}`);
    }
  });

  it('leaves unknown paths a 404', async () => {
    for (const p of ['/billingx', '/billing/extra', '/nothing-here']) {
      const res = await http(stack.baseUrl, 'GET', p);
      assert.equal(res.status, 404, p);
      assert.equal(res.body.error.code, 'not_found');
    }
  });

  it("does not serve the dashboard's type-checking files (web/tsconfig.json, web/js/*.d.ts), only its code", async () => {
    for (const p of ['/tsconfig.json', '/js/api-paths.d.ts', '/js/types.d.ts']) {
      const res = await http(stack.baseUrl, 'GET', p);
      assert.equal(res.status, 404, p);
      assert.equal(res.body.error.code, 'not_found');
    }
    assert.equal((await http(stack.baseUrl, 'GET', '/js/app.js')).status, 200);
  });
});
