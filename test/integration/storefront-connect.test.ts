// Storefront connect through HTTP against the real stack and the local development shop: the OAuth install and its
// callback (HMAC, expired, reused and foreign states, the installing user's session), an install started from Shopify,
// the install rate limit, the access token stored encrypted, input and ownership checks, and 503 without credentials.
// The publish flow is storefront-publish.test.ts, webhooks and compliance storefront-webhooks.test.ts.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../lib/config';
import { createLogger } from '../../lib/log';
import { decryptToken } from '../../lib/token-cipher';
import { signBody, signQuery } from '../../scripts/stand-ins/shopify-shop';
import * as inspect from '../helpers/db-inspect';
import { account, http } from '../helpers/http';
import { withApp } from '../helpers/stack';
import { newShopDomain, useShopStack } from '../helpers/storefront';

describe('storefront: connecting a Shopify store', function () {
  this.timeout(120_000);
  const t = useShopStack('storefront-connect');
  const { stack, shop, authorize, connect } = t;

  it('stores the access token encrypted: not readable in the database', async () => {
    const acct = await account(stack.baseUrl);
    const shopDomain = newShopDomain();
    const id = await connect(acct.cookie, shopDomain);
    const token = shop.tokenFor(shopDomain);
    const row = await inspect.shopifyConnectionStored(id);
    assert.ok(!row!.text.includes(token), 'the token is not in the row');
    assert.ok(!row!.enc.toString('latin1').includes(token), 'the stored bytes are not the token');
    assert.equal(decryptToken(Buffer.from(t.tokenKey, 'base64'), row!.enc), token, 'it decrypts with the key');
    assert.throws(() => decryptToken(randomBytes(32), row!.enc), 'another key cannot read it');
  });

  it('refuses a callback with a wrong or missing hmac (400 Invalid HMAC)', async () => {
    const acct = await account(stack.baseUrl);
    const callback = new URL(await authorize(acct.cookie, newShopDomain()));
    const tampered = new URL(callback);
    tampered.searchParams.set('code', 'a'.repeat(32));
    let res = await http(stack.baseUrl, 'GET', tampered.pathname + tampered.search);
    assert.equal(res.status, 400);
    assert.deepEqual(res.body, { error: 'Invalid HMAC' });
    const missing = new URL(callback);
    missing.searchParams.delete('hmac');
    res = await http(stack.baseUrl, 'GET', missing.pathname + missing.search);
    assert.deepEqual([res.status, res.body], [400, { error: 'Invalid HMAC' }]);
    // the untouched callback still works: the state was not used up by the refused ones
    res = await http(stack.baseUrl, 'GET', callback.pathname + callback.search, { cookie: acct.cookie });
    assert.equal(res.status, 302, res.text);
  });

  it('refuses an expired state and a reused state', async () => {
    const acct = await account(stack.baseUrl);
    const first = new URL(await authorize(acct.cookie, newShopDomain()));
    const cookie = acct.cookie;
    assert.equal((await http(stack.baseUrl, 'GET', first.pathname + first.search, { cookie })).status, 302);
    const reused = await http(stack.baseUrl, 'GET', first.pathname + first.search, { cookie });
    assert.deepEqual(
      [reused.status, reused.body],
      [400, { error: 'Invalid state: the authorization took too long or was abandoned' }],
    );

    const second = new URL(await authorize(acct.cookie, newShopDomain()));
    await inspect.expireOAuthState(second.searchParams.get('state'));
    const expired = await http(stack.baseUrl, 'GET', second.pathname + second.search, { cookie });
    assert.deepEqual(
      [expired.status, expired.body],
      [400, { error: 'Invalid state: the authorization took too long or was abandoned' }],
    );
  });

  it("refuses a state issued for one shop in another shop's callback (400 Invalid state)", async () => {
    const acct = await account(stack.baseUrl);
    const callback = new URL(await authorize(acct.cookie, newShopDomain()));
    // a correctly signed callback for another shop, carrying the first shop's state
    const params = Object.fromEntries(callback.searchParams);
    delete params.hmac;
    params.shop = newShopDomain();
    params.hmac = signQuery(t.apiSecret, params);
    const res = await http(stack.baseUrl, 'GET', `${callback.pathname}?${new URLSearchParams(params)}`, {
      cookie: acct.cookie,
    });
    assert.deepEqual(
      [res.status, res.body],
      [400, { error: 'Invalid state: the authorization took too long or was abandoned' }],
    );
    const own = await http(stack.baseUrl, 'GET', callback.pathname + callback.search, { cookie: acct.cookie });
    assert.equal(own.status, 302, 'the state still works for its own shop');
  });

  it("binds the callback to the installing user's session: another user's, or none, connects nothing", async () => {
    const a = await account(stack.baseUrl);
    const b = await account(stack.baseUrl);
    const shopDomain = newShopDomain();
    const callback = new URL(await authorize(a.cookie, shopDomain));
    const path = callback.pathname + callback.search;
    const invalid = [400, { error: 'Invalid state: the authorization took too long or was abandoned' }];
    // A's approval finished in B's browser (an attacker's install URL approved by a victim), or in none
    const inB = await http(stack.baseUrl, 'GET', path, { cookie: b.cookie });
    assert.deepEqual([inB.status, inB.body], invalid);
    const inNone = await http(stack.baseUrl, 'GET', path);
    assert.deepEqual([inNone.status, inNone.body], invalid);
    assert.deepEqual(await inspect.shopifyConnectionIds(shopDomain), [], 'no connection for either user');
    for (const cookie of [a.cookie, b.cookie]) {
      const list = await http(stack.baseUrl, 'GET', '/api/storefront/connect', { cookie });
      assert.deepEqual(list.body.connections, []);
    }
    // the state was not used up: A finishes in A's own session, once
    const inA = await http(stack.baseUrl, 'GET', path, { cookie: a.cookie });
    assert.equal(inA.status, 302, inA.text);
    const id = new URL(inA.headers.get('location')!).searchParams.get('connected');
    const listA = await http(stack.baseUrl, 'GET', '/api/storefront/connect', { cookie: a.cookie });
    assert.deepEqual(
      listA.body.connections.map((c: { id: string; status: string }) => [c.id, c.status]),
      [[id, 'active']],
    );
    const again = await http(stack.baseUrl, 'GET', path, { cookie: a.cookie });
    assert.deepEqual([again.status, again.body], invalid, 'a state is single use');
    const listB = await http(stack.baseUrl, 'GET', '/api/storefront/connect', { cookie: b.cookie });
    assert.deepEqual(listB.body.connections, []);
  });

  it('takes an install started from Shopify (the app URL, signed, no state) through a fresh install', async () => {
    const a = await account(stack.baseUrl);
    const shopDomain = newShopDomain();
    const launch: Record<string, string> = {
      host: Buffer.from(`${shopDomain}/admin`).toString('base64url'),
      shop: shopDomain,
      timestamp: String(Math.floor(Date.now() / 1000)),
    };
    launch.hmac = signQuery(t.apiSecret, launch);
    const appPath = `/api/storefront/app?${new URLSearchParams(launch)}`;
    // signed out: to the Storefront page with the shop filled in (the dashboard signs in first); nothing stored
    const out = await http(stack.baseUrl, 'GET', appPath);
    assert.equal(out.status, 302);
    assert.equal(out.headers.get('location'), `${stack.baseUrl}/storefront?shop=${shopDomain}`);
    // a forged or tampered launch is refused
    const forged = await http(stack.baseUrl, 'GET', appPath.replace(shopDomain, newShopDomain()));
    assert.deepEqual([forged.status, forged.body], [400, { error: 'Invalid HMAC' }]);
    // signed in: the authorize URL of a fresh install for that shop, bound to this user
    const signedIn = await http(stack.baseUrl, 'GET', appPath, { cookie: a.cookie });
    assert.equal(signedIn.status, 302, signedIn.text);
    const authorizeUrl = new URL(signedIn.headers.get('location')!);
    assert.equal(`${authorizeUrl.origin}${authorizeUrl.pathname}`, `https://${shopDomain}/admin/oauth/authorize`);
    assert.equal(await inspect.openOAuthStateOwner(authorizeUrl.searchParams.get('state'), shopDomain), a.userId);
    const approved = await shop.approve(authorizeUrl.href);
    const cb = await http(stack.baseUrl, 'GET', approved.location!.slice(stack.baseUrl.length), { cookie: a.cookie });
    assert.equal(cb.status, 302, cb.text);
    assert.match(cb.headers.get('location')!, /\/storefront\?connected=shc_/);
    const list = await http(stack.baseUrl, 'GET', '/api/storefront/connect', { cookie: a.cookie });
    assert.deepEqual(
      list.body.connections.map((c: { shopDomain: string; status: string; adminUrl: string }) => [
        c.shopDomain,
        c.status,
        c.adminUrl,
      ]),
      [[shopDomain, 'active', `https://${shopDomain}/admin`]],
    );
  });

  it('limits install to 10 a minute per user (429), other users unaffected', async () => {
    const a = await account(stack.baseUrl);
    const b = await account(stack.baseUrl);
    const install = (cookie: string) =>
      http(stack.baseUrl, 'POST', '/api/storefront/connect/install', { cookie, json: { shop: newShopDomain() } });
    for (let i = 0; i < 10; i++) assert.equal((await install(a.cookie)).status, 200);
    const over = await install(a.cookie);
    assert.equal(over.status, 429);
    assert.match(over.body.error, /at most 10 a minute/);
    assert.ok(Number(over.headers.get('retry-after')) > 0);
    assert.equal((await install(b.cookie)).status, 200);
  });

  it('answers 503 "Storefront is not configured" in production without Shopify credentials', async () => {
    const config = loadConfig(process.env, {
      NODE_ENV: 'production',
      PUBLIC_BASE_URL: 'https://mockups.example.test', // production requires https (docs/security.md)
      APP_SECRET: stack.config.appSecret,
      DATA_DIR: mkdtempSync(path.join(tmpdir(), 'storefront-prod-')),
      SHOPIFY_API_KEY: '',
      SHOPIFY_API_SECRET: '',
      TOKEN_ENCRYPTION_KEY: '',
      STRIPE_SECRET_KEY: '',
      STRIPE_WEBHOOK_SECRET: '',
    });
    assert.equal(config.shopify.tokenKey, undefined);
    await withApp(
      {
        sql: stack.sql,
        storage: stack.storage,
        temporal: stack.client,
        config,
        log: createLogger({ level: 'error', write: () => {} }), // the 503s below are logged as errors
      },
      async (base) => {
        config.publicBaseUrl = base;
        const acct = await account(stack.baseUrl);
        acct.cookie = `__Host-${acct.cookie}`; // the production name of the same session cookie
        const expected = {
          error: 'Storefront is not configured: set SHOPIFY_API_KEY, SHOPIFY_API_SECRET and TOKEN_ENCRYPTION_KEY',
        };
        const body = JSON.stringify({ id: 1 });
        for (const [method, p, opts] of [
          ['POST', '/api/storefront/connect/install', { cookie: acct.cookie, json: { shop: newShopDomain() } }],
          ['GET', `/api/storefront/callback?shop=${newShopDomain()}&state=s&code=c&hmac=00&timestamp=1`, {}],
          [
            'POST',
            '/api/storefront/webhooks/orders',
            {
              headers: { 'content-type': 'application/json', 'x-shopify-hmac-sha256': signBody(t.apiSecret, body) },
              body,
            },
          ],
          [
            'POST',
            '/api/storefront/publish',
            { cookie: acct.cookie, json: { generationId: 'gen_x', connectionId: 'shc_x', title: 'Tee' } },
          ],
          [
            'POST',
            '/api/storefront/orders/ord_x/fulfillment',
            { cookie: acct.cookie, json: { trackingNumber: '1', trackingCompany: 'UPS' } },
          ],
        ] as const) {
          const res = await http(base, method, p, opts as never);
          assert.deepEqual([res.status, res.body], [503, expected], `${method} ${p}`);
        }
        const list = await http(base, 'GET', '/api/storefront/connect', { cookie: acct.cookie });
        assert.deepEqual([list.status, list.body], [200, { connections: [] }], 'the lists still answer');
      },
    );
  });

  it('validates install input and ownership of connections', async () => {
    const acct = await account(stack.baseUrl);
    for (const bad of ['example.com', 'evil.myshopify.com.example.com', '-x.myshopify.com', '']) {
      const res = await http(stack.baseUrl, 'POST', '/api/storefront/connect/install', {
        cookie: acct.cookie,
        json: { shop: bad },
      });
      assert.equal(res.status, 400, bad);
      assert.equal(typeof res.body.error, 'string');
    }
    const anon = await http(stack.baseUrl, 'GET', '/api/storefront/connect');
    assert.deepEqual([anon.status, anon.body], [401, { error: 'Unauthorized' }]);
    const id = await connect(acct.cookie, newShopDomain());
    const other = await account(stack.baseUrl);
    const del = await http(stack.baseUrl, 'DELETE', `/api/storefront/connect/${id}`, { cookie: other.cookie });
    assert.equal(del.status, 404);
    const own = await http(stack.baseUrl, 'DELETE', `/api/storefront/connect/${id}`, { cookie: acct.cookie });
    assert.deepEqual([own.status, own.body.id, own.body.status], [200, id, 'disconnected']);
  });
});
