// Storefront through HTTP against the real stack and the local development shop: install → callback →
// webhooks registered → publish → order → paid → fulfillment; HMAC failures; expired and reused states; duplicate
// webhook ids; uninstall and reconnect; the token unreadable in the database; a worker killed mid-publish.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { WorkflowNotFoundError } from '@temporalio/client';
import sharp from 'sharp';
import { createApp } from '../../api/app';
import * as R from '../../api/http/resources';
import { loadConfig } from '../../lib/config';
import { randomSuffix } from '../../lib/ids';
import { createLogger } from '../../lib/log';
import { printCostCents } from '../../lib/print/cost';
import { fileUrl } from '../../lib/storage';
import { decryptToken } from '../../lib/token-cipher';
import { DEV_SHOP_FILE } from '../../scripts/stand-ins/dev-shop-start';
import {
  signBody,
  signQuery,
  startDevShop,
  type DevShop,
  type DevShopOptions,
} from '../../scripts/stand-ins/shopify-shop';
import { inboundEventsSweep, maintenanceSweep } from '../../workflows';
import { account, http } from '../helpers/http';
import { startStack, storeDesign, unreachableTemporal, workflowResultWhenStarted, type Stack } from '../helpers/stack';

const TOKEN_KEY = randomBytes(32).toString('base64');
const API_KEY = 'test-app-key';
const API_SECRET = `test-app-secret-${randomSuffix(16)}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const ROOT = path.resolve(__dirname, '../..');

async function until<T>(what: string, f: () => Promise<T | undefined | false>, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

describe('storefront: Shopify connect, publish, orders, fulfillment', function () {
  this.timeout(120_000);
  let stack: Stack;
  let shop: DevShop;
  let designUrl: string;
  let garment: any;
  let hold: { armed: boolean; reached?: () => void; release?: () => void } = { armed: false };

  // the dev shop keeps its state in a file, as under `npm start` (DATA_DIR/dev-shop-state.json)
  const devDataDir = mkdtempSync(path.join(tmpdir(), 'storefront-dev-shop-'));
  const shopOptions: DevShopOptions = {
    apiKey: API_KEY,
    apiSecret: API_SECRET,
    stateFile: path.join(devDataDir, 'dev-shop-state.json'),
    onProductSet: async () => {
      if (!hold.armed) return;
      hold.armed = false;
      await new Promise<void>((release) => {
        hold.release = release;
        hold.reached?.();
      });
    },
  };

  before(async () => {
    shop = await startDevShop(shopOptions);
    stack = await startStack('storefront', {
      env: {
        ALLOW_PRIVATE_URLS: 'true',
        SHOPIFY_API_KEY: API_KEY,
        SHOPIFY_API_SECRET: API_SECRET,
        SHOPIFY_SHOP_BASE_URL: shop.url,
        TOKEN_ENCRYPTION_KEY: TOKEN_KEY,
      },
    });
    const design = await sharp({
      create: { width: 600, height: 600, channels: 4, background: { r: 20, g: 90, b: 200, alpha: 1 } },
    })
      .png()
      .toBuffer();
    designUrl = await storeDesign(stack, design);
  });
  after(async () => {
    hold.release?.();
    await stack?.stop();
    await shop?.stop();
  });

  /** The webhook's workflow starts right after the answer: wait for it to exist, then for its result. */
  const webhookProcessed = (webhookId: string) =>
    workflowResultWhenStarted(stack.client, `shopify-webhook-${webhookId}`);

  const newShop = () => `dev-${randomSuffix(8)}.myshopify.com`;

  async function completedGeneration(acct: { key: string }): Promise<string> {
    if (!garment) {
      const list = await http(stack.baseUrl, 'GET', '/api/v1/garments?category=t-shirts&limit=1', { key: acct.key });
      garment = list.body.garments[0];
    }
    const res = await http(stack.baseUrl, 'POST', '/api/v1/generate', {
      key: acct.key,
      json: { designUrl, garmentId: garment.id, garmentImageUrl: garment.colors[0].imageUrl },
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.status, 'completed');
    return res.body.id;
  }

  /** install → the shop's consent page → Install → the callback URL it redirects to (not followed). */
  async function authorize(cookie: string, shopDomain: string): Promise<string> {
    const install = await http(stack.baseUrl, 'POST', '/api/storefront/connect/install', {
      cookie,
      json: { shop: shopDomain },
    });
    assert.equal(install.status, 200, install.text);
    // a real app key (SHOPIFY_DEV_SHOP_URL unset): Shopify's own authorize page, SHOPIFY_SHOP_BASE_URL or not
    const url = new URL(install.body.url);
    assert.equal(url.origin, `https://${shopDomain}`);
    assert.equal(url.pathname, '/admin/oauth/authorize');
    assert.equal(url.searchParams.get('client_id'), API_KEY);
    assert.equal(url.searchParams.get('scope'), 'write_products,read_orders,write_fulfillments,read_fulfillments');
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

  /** The callback, finished in the session of `cookie` (the user who installed): the new connection's id. */
  async function connect(cookie: string, shopDomain: string): Promise<string> {
    const callback = await authorize(cookie, shopDomain);
    const res = await http(stack.baseUrl, 'GET', callback.slice(stack.baseUrl.length), { cookie });
    assert.equal(res.status, 302, res.text);
    const back = new URL(res.headers.get('location')!);
    assert.equal(`${back.origin}${back.pathname}`, `${stack.baseUrl}/storefront`);
    const id = back.searchParams.get('connected')!;
    assert.match(id, /^shc_/);
    return id;
  }

  it('runs the whole loop: install, callback, webhooks registered, publish, order, paid, fulfillment', async () => {
    const acct = await account(stack.baseUrl);
    const shopDomain = newShop();
    const connectionId = await connect(acct.cookie, shopDomain);

    const list = await http(stack.baseUrl, 'GET', '/api/storefront/connect', { cookie: acct.cookie });
    assert.equal(list.status, 200);
    assert.equal(list.body.connections.length, 1);
    const c = list.body.connections[0];
    assert.deepEqual(
      { id: c.id, shopDomain: c.shopDomain, status: c.status },
      { id: connectionId, shopDomain, status: 'active' },
    );
    assert.match(c.shopName, /dev shop/);
    assert.ok(!Number.isNaN(Date.parse(c.installedAt)));
    assert.deepEqual(
      shop.subscriptions.get(shopDomain)!.map(({ topic, callbackUrl }) => ({ topic, callbackUrl })),
      ['orders/create', 'orders/paid', 'app/uninstalled'].map((topic) => ({
        topic,
        callbackUrl: `${stack.baseUrl}/api/storefront/webhooks/orders`,
      })),
    );

    const generationId = await completedGeneration(acct);
    const pub = await http(stack.baseUrl, 'POST', '/api/storefront/publish', {
      cookie: acct.cookie,
      json: { generationId, connectionId, title: 'Blue square tee', description: 'A test print' },
    });
    assert.equal(pub.status, 200, pub.text);
    assert.equal(pub.body.status, 'published');
    assert.match(pub.body.id, /^pub_/);
    const product = [...shop.products.get(shopDomain)!.values()][0]!;
    assert.equal(pub.body.productId, product.id);
    assert.equal(pub.body.adminUrl, `https://${shopDomain}/admin/products/${product.id.split('/').pop()}`);
    assert.equal(product.title, 'Blue square tee');
    assert.deepEqual(product.options, [{ name: 'Size', values: garment.sizes }]);
    assert.deepEqual(
      product.variants.map((v) => [v.size, v.price]),
      garment.sizes.map((s: string) => [s, '59.99']),
    );
    assert.equal(product.media.length, 1);
    assert.match(product.media[0]!.originalSource, /^http:\/\/127\.0\.0\.1:\d+\/files\//);

    const products = await http(stack.baseUrl, 'GET', '/api/storefront/products', { cookie: acct.cookie });
    assert.equal(products.body.products[0].status, 'published');
    assert.equal(products.body.products[0].price, 59.99);

    const placed = await shop.placeOrder(shopDomain);
    assert.deepEqual(
      placed.deliveries.map((d) => d.status),
      [200, 200],
    );
    const order = await until('the paid order', async () => {
      const r = await http(stack.baseUrl, 'GET', '/api/storefront/orders', { cookie: acct.cookie });
      return r.body.orders.find((o: any) => o.status === 'paid');
    });
    assert.equal(order.shopDomain, shopDomain);
    assert.equal(order.name, placed.order.name);
    assert.deepEqual(order.customer, { name: 'Ada Lovelace', email: 'ada@example.test' });
    assert.equal(order.total, '59.99');
    assert.equal(order.currency, 'USD');
    assert.equal(order.lineItems[0].publishedProductId, pub.body.id);

    const f = await http(stack.baseUrl, 'POST', `/api/storefront/orders/${order.id}/fulfillment`, {
      cookie: acct.cookie,
      json: { trackingNumber: '1Z999', trackingCompany: 'UPS', trackingUrl: 'https://ups.example/1Z999' },
    });
    assert.equal(f.status, 200, f.text);
    assert.equal(f.body.status, 'fulfilled');
    assert.deepEqual(placed.order.fulfillments[0]!.trackingInfo, {
      number: '1Z999',
      company: 'UPS',
      url: 'https://ups.example/1Z999',
    });
    assert.equal(placed.order.fulfillmentOrders[0]!.status, 'CLOSED');
    const again = await http(stack.baseUrl, 'POST', `/api/storefront/orders/${order.id}/fulfillment`, {
      cookie: acct.cookie,
      json: { trackingNumber: '1Z999', trackingCompany: 'UPS' },
    });
    assert.equal(again.status, 409);
  });

  it('stores the access token encrypted: not readable in the database', async () => {
    const acct = await account(stack.baseUrl);
    const shopDomain = newShop();
    const id = await connect(acct.cookie, shopDomain);
    const token = shop.tokenFor(shopDomain);
    const [row] = await stack.sql<{ text: string; enc: Buffer }[]>`
      select row_to_json(c)::text as text, c.access_token_enc as enc from shopify_connections c where id = ${id}`;
    assert.ok(!row!.text.includes(token), 'the token is not in the row');
    assert.ok(!row!.enc.toString('latin1').includes(token), 'the stored bytes are not the token');
    assert.equal(decryptToken(Buffer.from(TOKEN_KEY, 'base64'), row!.enc), token, 'it decrypts with the key');
    assert.throws(() => decryptToken(randomBytes(32), row!.enc), 'another key cannot read it');
  });

  it('refuses a callback with a wrong or missing hmac (400 Invalid HMAC)', async () => {
    const acct = await account(stack.baseUrl);
    const callback = new URL(await authorize(acct.cookie, newShop()));
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
    const first = new URL(await authorize(acct.cookie, newShop()));
    const cookie = acct.cookie;
    assert.equal((await http(stack.baseUrl, 'GET', first.pathname + first.search, { cookie })).status, 302);
    const reused = await http(stack.baseUrl, 'GET', first.pathname + first.search, { cookie });
    assert.deepEqual(
      [reused.status, reused.body],
      [400, { error: 'Invalid state: the authorization took too long or was abandoned' }],
    );

    const second = new URL(await authorize(acct.cookie, newShop()));
    await stack.sql`update shopify_oauth_states set expires_at = now() - interval '1 second'
      where state = ${second.searchParams.get('state')}`;
    const expired = await http(stack.baseUrl, 'GET', second.pathname + second.search, { cookie });
    assert.deepEqual(
      [expired.status, expired.body],
      [400, { error: 'Invalid state: the authorization took too long or was abandoned' }],
    );
  });

  it("refuses a state issued for one shop in another shop's callback (400 Invalid state)", async () => {
    const acct = await account(stack.baseUrl);
    const callback = new URL(await authorize(acct.cookie, newShop()));
    // a correctly signed callback for another shop, carrying the first shop's state
    const params = Object.fromEntries(callback.searchParams);
    delete params.hmac;
    params.shop = newShop();
    params.hmac = signQuery(API_SECRET, params);
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
    const shopDomain = newShop();
    const callback = new URL(await authorize(a.cookie, shopDomain));
    const path = callback.pathname + callback.search;
    const invalid = [400, { error: 'Invalid state: the authorization took too long or was abandoned' }];
    // A's approval finished in B's browser (an attacker's install URL approved by a victim), or in none
    const inB = await http(stack.baseUrl, 'GET', path, { cookie: b.cookie });
    assert.deepEqual([inB.status, inB.body], invalid);
    const inNone = await http(stack.baseUrl, 'GET', path);
    assert.deepEqual([inNone.status, inNone.body], invalid);
    const rows = await stack.sql`select id from shopify_connections where shop_domain = ${shopDomain}`;
    assert.equal(rows.length, 0, 'no connection for either user');
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
    const shopDomain = newShop();
    const launch: Record<string, string> = {
      host: Buffer.from(`${shopDomain}/admin`).toString('base64url'),
      shop: shopDomain,
      timestamp: String(Math.floor(Date.now() / 1000)),
    };
    launch.hmac = signQuery(API_SECRET, launch);
    const appPath = `/api/storefront/app?${new URLSearchParams(launch)}`;
    // signed out: to the Storefront page with the shop filled in (the dashboard signs in first); nothing stored
    const out = await http(stack.baseUrl, 'GET', appPath);
    assert.equal(out.status, 302);
    assert.equal(out.headers.get('location'), `${stack.baseUrl}/storefront?shop=${shopDomain}`);
    // a forged or tampered launch is refused
    const forged = await http(stack.baseUrl, 'GET', appPath.replace(shopDomain, newShop()));
    assert.deepEqual([forged.status, forged.body], [400, { error: 'Invalid HMAC' }]);
    // signed in: the authorize URL of a fresh install for that shop, bound to this user
    const signedIn = await http(stack.baseUrl, 'GET', appPath, { cookie: a.cookie });
    assert.equal(signedIn.status, 302, signedIn.text);
    const authorizeUrl = new URL(signedIn.headers.get('location')!);
    assert.equal(`${authorizeUrl.origin}${authorizeUrl.pathname}`, `https://${shopDomain}/admin/oauth/authorize`);
    const [state] = await stack.sql<{ userId: string }[]>`select user_id as "userId" from shopify_oauth_states
      where state = ${authorizeUrl.searchParams.get('state')} and shop = ${shopDomain} and used_at is null`;
    assert.equal(state?.userId, a.userId);
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
      http(stack.baseUrl, 'POST', '/api/storefront/connect/install', { cookie, json: { shop: newShop() } });
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
    const server: Server = await new Promise((resolve) => {
      const s = createApp({
        sql: stack.sql,
        storage: stack.storage,
        temporal: stack.client,
        config,
        log: createLogger({ level: 'error', write: () => {} }), // the 503s below are logged as errors
      }).listen(0, '127.0.0.1', () => resolve(s));
    });
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      config.publicBaseUrl = base;
      const acct = await account(stack.baseUrl);
      acct.cookie = `__Host-${acct.cookie}`; // the production name of the same session cookie
      const expected = {
        error: 'Storefront is not configured: set SHOPIFY_API_KEY, SHOPIFY_API_SECRET and TOKEN_ENCRYPTION_KEY',
      };
      const body = JSON.stringify({ id: 1 });
      for (const [method, p, opts] of [
        ['POST', '/api/storefront/connect/install', { cookie: acct.cookie, json: { shop: newShop() } }],
        ['GET', `/api/storefront/callback?shop=${newShop()}&state=s&code=c&hmac=00&timestamp=1`, {}],
        [
          'POST',
          '/api/storefront/webhooks/orders',
          {
            headers: { 'content-type': 'application/json', 'x-shopify-hmac-sha256': signBody(API_SECRET, body) },
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
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  it('refuses publishing a generation that is not completed (409)', async () => {
    const acct = await account(stack.baseUrl);
    const connectionId = await connect(acct.cookie, newShop());
    if (!garment) await completedGeneration(acct);
    const failed = await http(stack.baseUrl, 'POST', '/api/v1/generate', {
      key: acct.key,
      json: {
        designUrl: fileUrl(stack.config, `test-designs/missing-${randomSuffix()}.png`),
        garmentId: garment.id,
        garmentImageUrl: garment.colors[0].imageUrl,
      },
    });
    assert.equal(failed.body.status, 'failed', failed.text);
    const res = await http(stack.baseUrl, 'POST', '/api/storefront/publish', {
      cookie: acct.cookie,
      json: { generationId: failed.body.id, connectionId, title: 'Tee' },
    });
    assert.deepEqual([res.status, res.body], [409, { error: 'Generation is not completed' }]);
  });

  // ------------------------------------------------------------ design-chat mockups and unit economics

  /** A completed design-chat job (local renderer) with mockups on `garmentUrls`; its id from the thread, as the dashboard reads it. */
  async function chatJob(acct: { cookie: string }, garmentUrls: string[]) {
    const saved = { g: stack.config.chat.gemini.apiKey, o: stack.config.chat.openai.apiKey };
    stack.config.chat.gemini.apiKey = undefined;
    stack.config.chat.openai.apiKey = undefined;
    let res;
    try {
      res = await http(stack.baseUrl, 'POST', '/api/chat', {
        cookie: acct.cookie,
        json: { prompt: 'A retro sunset over mountains, three colours', garmentUrls },
      });
    } finally {
      stack.config.chat.gemini.apiKey = saved.g;
      stack.config.chat.openai.apiKey = saved.o;
    }
    assert.equal(res.status, 200, res.text);
    const thread = await http(stack.baseUrl, 'GET', `/api/chat/threads/${res.body.threadId}`, { cookie: acct.cookie });
    const message = thread.body.messages.find((m: any) => m.id === res.body.messageId);
    assert.match(message.jobId, /^job_/);
    return { jobId: message.jobId as string, mockups: res.body.mockups as string[] };
  }

  async function catalogueGarment(acct: { key: string }) {
    if (!garment) {
      const list = await http(stack.baseUrl, 'GET', '/api/v1/garments?category=t-shirts&limit=1', { key: acct.key });
      garment = list.body.garments[0];
    }
    return garment;
  }

  const cents = (usd: number) => Math.round(usd * 100);
  /**
   * The spec's figures with the garment's basePrice as the blank, the print's cost (`print`, cents: the spec's flat
   * 3000 without a print file), and the margin at `price`, worked out here.
   */
  const expected = (blank: number, price: number, print = 3000) => ({
    price,
    costs: { print: print / 100, blank, fulfillment: 5, total: (print + cents(blank) + 500) / 100 },
    margin: (cents(price) - print - cents(blank) - 500) / 100,
  });
  /**
   * What the print of a mockup must cost (issue 36): the formula of lib/print/cost.ts on the ink its print file
   * (default size, through its own route) measured.
   */
  async function printCents(
    acct: { key: string; cookie: string },
    src: { generationId: string } | { jobId: string; index: number },
  ) {
    const res =
      'generationId' in src
        ? await http(stack.baseUrl, 'GET', `/api/v1/generations/${src.generationId}/print-file`, { key: acct.key })
        : await http(stack.baseUrl, 'GET', `/api/chat/jobs/${src.jobId}/print-file?mockupIndex=${src.index}`, {
            cookie: acct.cookie,
          });
    assert.equal(res.status, 200, res.text);
    const { inkedAreaIn2, underbase } = res.body.preflight;
    assert.ok(inkedAreaIn2 > 0, `ink measured: ${inkedAreaIn2}`);
    return printCostCents(inkedAreaIn2, underbase);
  }
  const economics = (b: any) => ({ price: b.price, costs: b.costs, margin: b.margin });

  it("publishes a design-chat mockup: that mockup is the product's media; source, costs and margin in the answer and the list", async () => {
    const acct = await account(stack.baseUrl);
    const shopDomain = newShop();
    const connectionId = await connect(acct.cookie, shopDomain);
    const g = await catalogueGarment(acct);
    assert.ok(g.basePrice > 0 && g.basePrice !== 15, `a garment whose basePrice shows: ${g.basePrice}`);
    const job = await chatJob(acct, [g.colors[0].imageUrl]);
    assert.equal(job.mockups.length, 2, 'one blank: a full-front and a left-chest mockup');

    // the estimate before publishing: the garment's sizes, its basePrice as the blank, the margin at a price
    let est = await http(stack.baseUrl, 'GET', `/api/storefront/costs?chatJobId=${job.jobId}&mockupIndex=1`, {
      cookie: acct.cookie,
    });
    assert.equal(est.status, 200, est.text);
    assert.deepEqual(
      {
        source: est.body.source,
        generationId: est.body.generationId,
        chatJobId: est.body.chatJobId,
        mockupIndex: est.body.mockupIndex,
        imageUrl: est.body.imageUrl,
        garmentId: est.body.garmentId,
        garmentName: est.body.garmentName,
        sizes: est.body.sizes,
        suggestedPrice: est.body.suggestedPrice,
      },
      {
        source: 'chat',
        generationId: null,
        chatJobId: job.jobId,
        mockupIndex: 1,
        imageUrl: job.mockups[1],
        garmentId: g.id,
        garmentName: g.name,
        sizes: g.sizes,
        suggestedPrice: 59.99,
      },
    );
    // the print is costed from its print file's ink: the left-chest print (mockup 1) is smaller than the full front
    const leftChest = await printCents(acct, { jobId: job.jobId, index: 1 });
    const fullFront = await printCents(acct, { jobId: job.jobId, index: 0 });
    assert.ok(leftChest < fullFront, `left chest ${leftChest} < full front ${fullFront} cents`);
    assert.deepEqual(economics(est.body), expected(g.basePrice, 59.99, leftChest));
    est = await http(stack.baseUrl, 'GET', `/api/storefront/costs?chatJobId=${job.jobId}&mockupIndex=0&price=45.5`, {
      cookie: acct.cookie,
    });
    assert.deepEqual(economics(est.body), expected(g.basePrice, 45.5, fullFront));
    assert.equal(est.body.imageUrl, job.mockups[0]);

    const pub = await http(stack.baseUrl, 'POST', '/api/storefront/publish', {
      cookie: acct.cookie,
      json: { chatJobId: job.jobId, mockupIndex: 1, connectionId, title: 'Sunset tee', price: 64.99 },
    });
    assert.equal(pub.status, 200, pub.text);
    assert.equal(pub.body.status, 'published');
    assert.deepEqual(economics(pub.body), expected(g.basePrice, 64.99, leftChest));
    const product = [...shop.products.get(shopDomain)!.values()][0]!;
    assert.equal(pub.body.productId, product.id);
    assert.equal(product.title, 'Sunset tee');
    assert.deepEqual(
      product.media.map((m) => m.originalSource),
      [job.mockups[1]],
      "the chosen mockup is the product's image",
    );
    assert.deepEqual(product.options, [{ name: 'Size', values: g.sizes }]);
    assert.deepEqual(
      product.variants.map((v) => v.price),
      g.sizes.map(() => '64.99'),
    );

    // a generation's product next to it: each says where it came from, both with their economics
    const generationId = await completedGeneration(acct);
    const genPub = await http(stack.baseUrl, 'POST', '/api/storefront/publish', {
      cookie: acct.cookie,
      json: { generationId, connectionId, title: 'Generated tee' },
    });
    assert.equal(genPub.status, 200, genPub.text);
    const genPrint = await printCents(acct, { generationId });
    assert.deepEqual(economics(genPub.body), expected(g.basePrice, 59.99, genPrint));

    const list = await http(stack.baseUrl, 'GET', '/api/storefront/products', { cookie: acct.cookie });
    assert.equal(list.status, 200);
    const fits = R.productList.safeParse(list.body);
    assert.ok(fits.success, JSON.stringify(fits.error?.issues));
    const [fromGen, fromChat] = list.body.products;
    assert.deepEqual(
      [
        fromChat.id,
        fromChat.source,
        fromChat.generationId,
        fromChat.chatJobId,
        fromChat.mockupIndex,
        fromChat.garmentId,
      ],
      [pub.body.id, 'chat', null, job.jobId, 1, g.id],
    );
    assert.deepEqual(economics(fromChat), expected(g.basePrice, 64.99, leftChest));
    assert.deepEqual(
      [fromGen.id, fromGen.source, fromGen.generationId, fromGen.chatJobId, fromGen.mockupIndex, fromGen.garmentId],
      [genPub.body.id, 'generation', generationId, null, null, g.id],
    );
    assert.deepEqual(economics(fromGen), expected(g.basePrice, 59.99, genPrint));
    const genEst = await http(stack.baseUrl, 'GET', `/api/storefront/costs?generationId=${generationId}`, {
      cookie: acct.cookie,
    });
    assert.equal(genEst.status, 200, genEst.text);
    assert.deepEqual(
      [genEst.body.source, genEst.body.generationId, genEst.body.chatJobId],
      ['generation', generationId, null],
    );
    assert.deepEqual(economics(genEst.body), expected(g.basePrice, 59.99, genPrint));
  });

  it("a chat mockup on a client's own blank (no catalogue garment): the blank is 15 USD, and sizes must be given", async () => {
    const acct = await account(stack.baseUrl);
    const shopDomain = newShop();
    const connectionId = await connect(acct.cookie, shopDomain);
    const job = await chatJob(acct, [designUrl]); // a plain photo of ours, not a garment colour's blank
    const est = await http(stack.baseUrl, 'GET', `/api/storefront/costs?chatJobId=${job.jobId}&mockupIndex=0`, {
      cookie: acct.cookie,
    });
    assert.equal(est.status, 200, est.text);
    assert.deepEqual([est.body.garmentId, est.body.garmentName, est.body.sizes], [null, null, []]);
    assert.deepEqual(economics(est.body), {
      price: 59.99,
      costs: { print: 30, blank: 15, fulfillment: 5, total: 50 },
      margin: 9.99,
    });
    const noSizes = await http(stack.baseUrl, 'POST', '/api/storefront/publish', {
      cookie: acct.cookie,
      json: { chatJobId: job.jobId, mockupIndex: 0, connectionId, title: 'Own blank tee' },
    });
    assert.deepEqual(
      [noSizes.status, noSizes.body],
      [400, { error: "sizes: the mockup's blank is not a catalogue garment; give them" }],
    );
    const pub = await http(stack.baseUrl, 'POST', '/api/storefront/publish', {
      cookie: acct.cookie,
      json: { chatJobId: job.jobId, mockupIndex: 0, connectionId, title: 'Own blank tee', sizes: ['S', 'M'] },
    });
    assert.equal(pub.status, 200, pub.text);
    assert.deepEqual(economics(pub.body), expected(15, 59.99));
    const product = [...shop.products.get(shopDomain)!.values()][0]!;
    assert.deepEqual(
      product.media.map((m) => m.originalSource),
      [job.mockups[0]],
    );
    const list = await http(stack.baseUrl, 'GET', '/api/storefront/products', { cookie: acct.cookie });
    assert.deepEqual(
      [list.body.products[0].source, list.body.products[0].garmentId, list.body.products[0].sizes],
      ['chat', null, ['S', 'M']],
    );
    assert.deepEqual(economics(list.body.products[0]), expected(15, 59.99));
  });

  it('refuses a chat mockup not the user’s (404), not completed (409) or not there (404); exactly one source (400)', async () => {
    const acct = await account(stack.baseUrl);
    const other = await account(stack.baseUrl);
    const connectionId = await connect(acct.cookie, newShop());
    const g = await catalogueGarment(acct);
    const foreign = await chatJob(other, [g.colors[0].imageUrl]);
    const own = await chatJob(acct, [g.colors[0].imageUrl]);
    const publish = (json: Record<string, unknown>) =>
      http(stack.baseUrl, 'POST', '/api/storefront/publish', {
        cookie: acct.cookie,
        json: { connectionId, title: 'Tee', ...json },
      });
    const costs = (query: string) =>
      http(stack.baseUrl, 'GET', `/api/storefront/costs?${query}`, { cookie: acct.cookie });
    const answer = (r: { status: number; body: any }) => [r.status, r.body.error];

    // another user's job, an unknown one: 404, as for the estimate
    assert.deepEqual(answer(await publish({ chatJobId: foreign.jobId, mockupIndex: 0 })), [404, 'Chat job not found']);
    assert.deepEqual(answer(await costs(`chatJobId=${foreign.jobId}&mockupIndex=0`)), [404, 'Chat job not found']);
    assert.deepEqual(answer(await publish({ chatJobId: 'job_1_nope', mockupIndex: 0 })), [404, 'Chat job not found']);
    // a mockup the job does not have
    const missing = 'Mockup not found: the chat job has 2 mockups (mockupIndex 0 to 1)';
    assert.deepEqual(answer(await publish({ chatJobId: own.jobId, mockupIndex: 2 })), [404, missing]);
    assert.deepEqual(answer(await costs(`chatJobId=${own.jobId}&mockupIndex=2`)), [404, missing]);

    // a job still running, and one that failed: 409
    const running = `job_${Date.now()}_${randomSuffix(8)}`;
    await stack.sql`insert into render_jobs (id, user_id, model, prompt, request)
      values (${running}, ${acct.userId}, 'nano-banana', 'A design still being drawn', '{}')`;
    assert.deepEqual(answer(await publish({ chatJobId: running, mockupIndex: 0 })), [409, 'Chat job is not completed']);
    assert.deepEqual(answer(await costs(`chatJobId=${running}&mockupIndex=0`)), [409, 'Chat job is not completed']);
    await stack.sql`update render_jobs set status = 'failed', failure = 'generation_failed', completed_at = now()
      where id = ${running}`;
    assert.deepEqual(answer(await publish({ chatJobId: running, mockupIndex: 0 })), [409, 'Chat job is not completed']);

    // exactly one source
    const generationId = await completedGeneration(acct);
    const both = await publish({ generationId, chatJobId: own.jobId, mockupIndex: 0 });
    assert.deepEqual(answer(both), [
      400,
      'Invalid request body: give exactly one mockup to publish: generationId, or chatJobId with mockupIndex, not both',
    ]);
    assert.deepEqual(answer(await publish({ generationId, mockupIndex: 0 })), [400, both.body.error]);
    assert.deepEqual(answer(await publish({})), [
      400,
      'Invalid request body: give exactly one mockup to publish: generationId, or chatJobId with mockupIndex',
    ]);
    assert.deepEqual(answer(await publish({ chatJobId: own.jobId })), [
      400,
      'Invalid request body: mockupIndex: is required with chatJobId',
    ]);
    assert.deepEqual(answer(await publish({ mockupIndex: 0 })), [
      400,
      'Invalid request body: chatJobId: is required with mockupIndex',
    ]);
    for (const mockupIndex of [-1, 1.5, '0', 100])
      assert.equal((await publish({ chatJobId: own.jobId, mockupIndex })).status, 400, JSON.stringify(mockupIndex));
    assert.deepEqual(answer(await costs('')), [
      400,
      'Invalid query: give exactly one mockup to publish: generationId, or chatJobId with mockupIndex',
    ]);
    assert.equal((await costs(`generationId=${generationId}&chatJobId=${own.jobId}&mockupIndex=0`)).status, 400);
    assert.equal((await costs(`chatJobId=${own.jobId}&mockupIndex=x`)).status, 400);
    assert.equal((await costs(`generationId=${generationId}&price=0`)).status, 400);
    assert.equal((await costs(`generationId=${generationId}&price=1.234`)).status, 400);
    assert.equal((await http(stack.baseUrl, 'GET', `/api/storefront/costs?generationId=${generationId}`)).status, 401);

    const rows = await stack.sql`select id from published_products where user_id = ${acct.userId}`;
    assert.equal(rows.length, 0, 'nothing refused was recorded');
    // and the user's own completed job publishes
    const ok = await publish({ chatJobId: own.jobId, mockupIndex: 0 });
    assert.equal(ok.status, 200, ok.text);
  });

  it('`npm run shop:order` places a paid order after the dev shop restarted (its state is kept in a file)', async function () {
    this.timeout(180_000);
    const acct = await account(stack.baseUrl);
    const shopDomain = newShop();
    const connectionId = await connect(acct.cookie, shopDomain);
    const generationId = await completedGeneration(acct);
    const pub = await http(stack.baseUrl, 'POST', '/api/storefront/publish', {
      cookie: acct.cookie,
      json: { generationId, connectionId, title: 'Restart tee' },
    });
    assert.equal(pub.status, 200, pub.text);
    const subscriptions = shop.subscriptions.get(shopDomain);

    // restart the dev shop on the same address, as `npm start` restarted would give it its state back
    const port = Number(new URL(shop.url).port);
    await shop.stop();
    shop = await startDevShop({ ...shopOptions, port });
    assert.deepEqual(shop.subscriptions.get(shopDomain), subscriptions, 'subscriptions survive the restart');
    writeFileSync(path.join(devDataDir, DEV_SHOP_FILE), JSON.stringify({ url: shop.url, apiSecret: API_SECRET }));

    const child = spawn('npm', ['run', '--silent', 'shop:order', '--', connectionId], {
      cwd: ROOT,
      env: { ...process.env, DATA_DIR: devDataDir, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const code = await new Promise((r) => child.once('exit', r));
    assert.equal(code, 0, out);
    assert.match(out, /\[dev shop\] placed order #\d+ in /);
    const order = await until('the paid order', async () => {
      const r = await http(stack.baseUrl, 'GET', '/api/storefront/orders', { cookie: acct.cookie });
      return r.body.orders.find((o: any) => o.status === 'paid');
    });
    assert.equal(order.shopDomain, shopDomain);
    assert.equal(order.lineItems[0].publishedProductId, pub.body.id);
    assert.equal(order.total, '59.99');
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
    const id = await connect(acct.cookie, newShop());
    const other = await account(stack.baseUrl);
    const del = await http(stack.baseUrl, 'DELETE', `/api/storefront/connect/${id}`, { cookie: other.cookie });
    assert.equal(del.status, 404);
    const own = await http(stack.baseUrl, 'DELETE', `/api/storefront/connect/${id}`, { cookie: acct.cookie });
    assert.deepEqual([own.status, own.body.id, own.body.status], [200, id, 'disconnected']);
  });

  it('answers 401 to webhooks with a missing or wrong signature, and stores nothing', async () => {
    const body = JSON.stringify({ id: 1 });
    const id = `wh-${randomSuffix(10)}`;
    const headers = {
      'content-type': 'application/json',
      'x-shopify-topic': 'orders/create',
      'x-shopify-shop-domain': newShop(),
      'x-shopify-webhook-id': id,
      'x-shopify-api-version': '2026-10',
    };
    let res = await http(stack.baseUrl, 'POST', '/api/storefront/webhooks/orders', { headers, body });
    assert.equal(res.status, 401);
    assert.equal(typeof res.body.error, 'string');
    res = await http(stack.baseUrl, 'POST', '/api/storefront/webhooks/orders', {
      headers: { ...headers, 'x-shopify-hmac-sha256': signBody('not-the-secret', body) },
      body,
    });
    assert.equal(res.status, 401);
    res = await http(stack.baseUrl, 'POST', '/api/storefront/webhooks/orders', {
      headers: { ...headers, 'x-shopify-hmac-sha256': signBody(API_SECRET, body) },
      body: body + ' ',
    });
    assert.equal(res.status, 401, 'a changed body fails');
    assert.equal((await stack.sql`select 1 from shopify_webhooks where id = ${id}`).length, 0);
  });

  it('records one order for a duplicate webhook id', async () => {
    const acct = await account(stack.baseUrl);
    const shopDomain = newShop();
    await connect(acct.cookie, shopDomain);
    const payload = {
      id: 555001,
      admin_graphql_api_id: 'gid://shopify/Order/555001',
      name: '#5001',
      currency: 'USD',
      total_price: '20.00',
      customer: { id: 9, first_name: 'Grace', last_name: 'Hopper', email: 'grace@example.test' },
      line_items: [{ title: 'Tee', variant_title: 'L', quantity: 1, price: '20.00', product_id: 42 }],
    };
    const webhookId = `dup-${randomSuffix(10)}`;
    const a = await shop.sendWebhook(shopDomain, 'orders/create', payload, { webhookId });
    const b = await shop.sendWebhook(shopDomain, 'orders/create', { ...payload, id: 555002 }, { webhookId });
    assert.deepEqual([a.status, b.status], [200, 200]);
    await until('the order', async () => {
      const r = await http(stack.baseUrl, 'GET', '/api/storefront/orders', { cookie: acct.cookie });
      return r.body.orders.length > 0;
    });
    await webhookProcessed(webhookId);
    const r = await http(stack.baseUrl, 'GET', '/api/storefront/orders', { cookie: acct.cookie });
    assert.equal(r.body.orders.length, 1);
    assert.equal(r.body.orders[0].name, '#5001');
    assert.equal(r.body.orders[0].lineItems[0].publishedProductId, null, 'no published product with that id');
    const stored = await stack.sql`select id from shopify_webhooks where id = ${webhookId}`;
    assert.equal(stored.length, 1);
  });

  it('answers a webhook while Temporal is unreachable; the inbound sweep processes it once afterwards', async () => {
    const acct = await account(stack.baseUrl);
    const shopDomain = newShop();
    await connect(acct.cookie, shopDomain);
    // A second API process whose Temporal cannot be reached (nothing listens on port 1).
    const unreachable = unreachableTemporal();
    const server: Server = await new Promise((resolve) => {
      const s = createApp({ ...stack, temporal: unreachable, log: createLogger({ level: 'error' }) }).listen(
        0,
        '127.0.0.1',
        () => resolve(s),
      );
    });
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/storefront/webhooks/orders`;
      const payload = {
        id: 666001,
        name: '#6001',
        currency: 'USD',
        total_price: '12.00',
        customer: { id: 7, first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.test' },
        line_items: [{ title: 'Tee', quantity: 1, price: '12.00', product_id: 1 }],
      };
      const sent = await shop.sendWebhook(shopDomain, 'orders/create', payload, { url });
      assert.equal(sent.status, 200, 'answered although Temporal is unreachable');
      const again = await shop.sendWebhook(shopDomain, 'orders/create', payload, { url, webhookId: sent.webhookId });
      assert.equal(again.status, 200, 'a repeat is answered too');
      const [row] = await stack.sql<
        { status: string }[]
      >`select status from shopify_webhooks where id = ${sent.webhookId}`;
      assert.equal(row?.status, 'received', 'stored before the answer, not processed');
      await assert.rejects(
        stack.client.workflow.getHandle(`shopify-webhook-${sent.webhookId}`).describe(),
        WorkflowNotFoundError,
      );

      // The sweep leaves events younger than its grace period to the API that stored them.
      const sweep = () =>
        stack.client.workflow.execute(inboundEventsSweep, {
          workflowId: `inbound-events-sweep-test-${randomSuffix(6)}`,
          taskQueue: stack.taskQueue,
        });
      await sweep();
      await assert.rejects(
        stack.client.workflow.getHandle(`shopify-webhook-${sent.webhookId}`).describe(),
        WorkflowNotFoundError,
      );
      await stack.sql`update shopify_webhooks set received_at = now() - interval '1 minute' where id = ${sent.webhookId}`;
      const first = await sweep();
      assert.ok(first.started >= 1);
      const second = await sweep();
      assert.equal(second.started, 0, 'a second sweep starts nothing new');
      await webhookProcessed(sent.webhookId);
      const r = await http(stack.baseUrl, 'GET', '/api/storefront/orders', { cookie: acct.cookie });
      assert.equal(r.body.orders.length, 1);
      assert.equal(r.body.orders[0].name, '#6001');
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  /** Rows of the storefront tables whose text contains `needle` (case-insensitive), as `table: row`. */
  async function heldAnywhere(needle: string): Promise<string[]> {
    const rows = await stack.sql<{ t: string; text: string }[]>`
      select 'shopify_webhooks' as t, row_to_json(x)::text as text from shopify_webhooks x
      union all select 'shopify_orders', row_to_json(x)::text from shopify_orders x
      union all select 'shopify_connections', row_to_json(x)::text from shopify_connections x
      union all select 'shopify_oauth_states', row_to_json(x)::text from shopify_oauth_states x
      union all select 'published_products', row_to_json(x)::text from published_products x`;
    return rows.filter((r) => r.text.toLowerCase().includes(needle.toLowerCase())).map((r) => `${r.t}: ${r.text}`);
  }

  it('handles the compliance topics: exports (retrievable), then erases a customer everywhere, then the shop', async () => {
    const acct = await account(stack.baseUrl);
    const shopDomain = newShop();
    await connect(acct.cookie, shopDomain);
    const tag = randomSuffix(8);
    const alan = { email: `alan-${tag}@example.test`, last: `Turing${tag}` };
    const grace = { email: `grace-${tag}@example.test`, last: `Hopper${tag}` };
    const order = {
      id: 777001,
      name: '#7001',
      email: alan.email,
      currency: 'EUR',
      total_price: '30.00',
      customer: { id: 31, first_name: 'Alan', last_name: alan.last, email: alan.email },
      shipping_address: { name: `Alan ${alan.last}`, address1: '1 Bletchley Park' },
      line_items: [{ title: 'Tee', quantity: 1, price: '30.00', product_id: 1 }],
    };
    const other = {
      ...order,
      id: 777002,
      name: '#7002',
      email: grace.email,
      customer: { id: 32, first_name: 'Grace', last_name: grace.last, email: grace.email },
      shipping_address: { name: `Grace ${grace.last}`, address1: '2 Arlington' },
    };
    const url = `${stack.baseUrl}/api/storefront/webhooks/orders`;
    const run = async (topic: string, payload: unknown) => {
      const { webhookId } = await shop.sendWebhook(shopDomain, topic, payload, { url });
      await webhookProcessed(webhookId);
      const [row] = await stack.sql<{ result: any }[]>`select result from shopify_webhooks where id = ${webhookId}`;
      return row!.result;
    };
    await run('orders/create', order);
    await run('orders/paid', { ...order, financial_status: 'paid' });
    await run('orders/create', other);
    const orders = async () =>
      (await http(stack.baseUrl, 'GET', '/api/storefront/orders', { cookie: acct.cookie })).body.orders;
    assert.equal((await orders()).length, 2);

    const exported = await run('customers/data_request', {
      shop_domain: shopDomain,
      customer: { id: 31, email: alan.email },
      orders_requested: [777001],
    });
    assert.equal(exported.exports[acct.userId].length, 1);
    assert.deepEqual(exported.exports[acct.userId][0].customer, {
      id: '31',
      name: `Alan ${alan.last}`,
      email: alan.email,
    });
    // the merchant retrieves it; nobody else sees it
    const requests = await http(stack.baseUrl, 'GET', '/api/storefront/data-requests', { cookie: acct.cookie });
    assert.equal(requests.status, 200, requests.text);
    assert.ok(R.dataRequestList.safeParse(requests.body).success, requests.text);
    const mine = requests.body.dataRequests.filter((d: any) => d.shopDomain === shopDomain);
    assert.equal(mine.length, 1);
    assert.deepEqual(mine[0].customer, { id: '31', email: alan.email });
    assert.deepEqual(mine[0].ordersRequested, ['gid://shopify/Order/777001']);
    assert.deepEqual(
      mine[0].orders.map((o: any) => [o.name, o.customer.email, o.total]),
      [['#7001', alan.email, '30.00']],
    );
    const stranger = await account(stack.baseUrl);
    const none = await http(stack.baseUrl, 'GET', '/api/storefront/data-requests', { cookie: stranger.cookie });
    assert.deepEqual(none.body, { dataRequests: [] });
    assert.equal((await http(stack.baseUrl, 'GET', '/api/storefront/data-requests')).status, 401);

    assert.ok((await heldAnywhere(alan.email)).length >= 4, 'the orders, raw bodies and export hold the email');
    const redacted = await run('customers/redact', {
      shop_domain: shopDomain,
      customer: { id: 31, email: alan.email },
      orders_to_redact: [777001],
    });
    assert.equal(redacted.ordersRedacted, 1);
    assert.ok(redacted.webhooksErased >= 3, JSON.stringify(redacted));
    const after = await orders();
    assert.deepEqual(after.find((o: any) => o.name === '#7001').customer, { name: null, email: null });
    assert.deepEqual(after.find((o: any) => o.name === '#7002').customer, {
      name: `Grace ${grace.last}`,
      email: grace.email,
    });
    assert.deepEqual(await heldAnywhere(alan.email), [], 'the email is nowhere in the storefront tables');
    assert.deepEqual(await heldAnywhere(alan.last), [], 'the name is nowhere in the storefront tables');
    assert.ok((await heldAnywhere(grace.email)).length >= 2, "another customer's data is kept");
    const afterRedact = await http(stack.baseUrl, 'GET', '/api/storefront/data-requests', { cookie: acct.cookie });
    assert.equal(afterRedact.body.dataRequests.filter((d: any) => d.shopDomain === shopDomain).length, 0);

    const erased = await run('shop/redact', { shop_domain: shopDomain });
    assert.equal(erased.ordersDeleted, 2);
    assert.equal((await orders()).length, 0);
    assert.deepEqual(await heldAnywhere(grace.email), [], 'shop/redact leaves no customer data of the shop');
    assert.deepEqual(await heldAnywhere(grace.last), []);
    const left = await stack.sql`select id from shopify_webhooks
      where shop_domain = ${shopDomain} and (body is not null or (result is not null and result ? 'exports'))`;
    assert.equal(left.length, 0, 'no raw body or export of the shop is kept');
  });

  it('erases processed webhook bodies and old exports after their retention (hourly maintenance sweep)', async () => {
    const acct = await account(stack.baseUrl);
    const shopDomain = newShop();
    await connect(acct.cookie, shopDomain);
    const payload = (id: number) => ({
      id,
      name: `#${id}`,
      currency: 'USD',
      total_price: '10.00',
      customer: { id: 41, first_name: 'Kept', last_name: 'Brief', email: 'brief@example.test' },
      line_items: [{ title: 'Tee', quantity: 1, price: '10.00', product_id: 1 }],
    });
    const url = `${stack.baseUrl}/api/storefront/webhooks/orders`;
    const send = async (topic: string, body: unknown) => {
      const { webhookId } = await shop.sendWebhook(shopDomain, topic, body, { url });
      await webhookProcessed(webhookId);
      return webhookId;
    };
    const old = await send('orders/create', payload(881001));
    const fresh = await send('orders/create', payload(881002));
    const request = (order: number) => ({ shop_domain: shopDomain, customer: { id: 41 }, orders_requested: [order] });
    const oldExport = await send('customers/data_request', request(881001));
    const freshExport = await send('customers/data_request', request(881002));
    await stack.sql`update shopify_webhooks set processed_at = now() - interval '8 days' where id = ${old}`;
    await stack.sql`update shopify_webhooks set processed_at = now() - interval '31 days' where id = ${oldExport}`;

    const result = await stack.client.workflow.execute(maintenanceSweep, {
      workflowId: `maintenance-sweep-test-${randomSuffix(6)}`,
      taskQueue: stack.taskQueue,
    });
    assert.ok(result.shopifyWebhookData!.bodies >= 2, JSON.stringify(result));
    assert.ok(result.shopifyWebhookData!.exports >= 1, JSON.stringify(result));
    const rows = await stack.sql<{ id: string; hasBody: boolean; hasResult: boolean }[]>`
      select id, body is not null as "hasBody", result is not null as "hasResult" from shopify_webhooks
      where id in ${stack.sql([old, fresh, oldExport, freshExport])}`;
    const by = Object.fromEntries(rows.map((r) => [r.id, [r.hasBody, r.hasResult]]));
    assert.deepEqual(by[old], [false, false], 'body erased after 7 days');
    assert.deepEqual(by[fresh], [true, false], 'a recent body is kept');
    assert.deepEqual(by[oldExport], [false, false], 'export erased after 30 days');
    assert.deepEqual(by[freshExport], [true, true], 'a recent export is kept');
    assert.equal(
      (await http(stack.baseUrl, 'GET', '/api/storefront/orders', { cookie: acct.cookie })).body.orders.length,
      2,
    );
  });

  it('marks a signed but malformed compliance payload failed, and the inbound sweep does not restart it', async () => {
    const shopDomain = newShop();
    const { status, webhookId } = await shop.sendWebhook(
      shopDomain,
      'customers/redact',
      { shop_domain: shopDomain, customer: 'not an object', orders_to_redact: ['x'] },
      { url: `${stack.baseUrl}/api/storefront/webhooks/orders` },
    );
    assert.equal(status, 200);
    await assert.rejects(webhookProcessed(webhookId));
    const [row] = await stack.sql<{ status: string; result: any }[]>`
      select status, result from shopify_webhooks where id = ${webhookId}`;
    assert.equal(row!.status, 'failed');
    assert.match(row!.result.error, /compliance payload/);
    const handle = stack.client.workflow.getHandle(`shopify-webhook-${webhookId}`);
    const before = await handle.describe();
    assert.equal(before.status.name, 'FAILED');

    await stack.sql`update shopify_webhooks set received_at = now() - interval '5 minutes' where id = ${webhookId}`;
    await stack.client.workflow.execute(inboundEventsSweep, {
      workflowId: `inbound-events-sweep-test-${randomSuffix(6)}`,
      taskQueue: stack.taskQueue,
    });
    const afterSweep = await handle.describe();
    assert.equal(afterSweep.runId, before.runId, 'the sweep started no new run');
    assert.equal(afterSweep.status.name, 'FAILED');
  });

  it('blocks publishing after app/uninstalled and restores it on reconnect', async () => {
    const acct = await account(stack.baseUrl);
    const shopDomain = newShop();
    const connectionId = await connect(acct.cookie, shopDomain);
    const generationId = await completedGeneration(acct);
    const un = await shop.sendWebhook(shopDomain, 'app/uninstalled', { id: 1, domain: shopDomain });
    assert.equal(un.status, 200);
    await until('the disconnect', async () => {
      const r = await http(stack.baseUrl, 'GET', '/api/storefront/connect', { cookie: acct.cookie });
      return r.body.connections[0].status === 'disconnected';
    });
    const refused = await http(stack.baseUrl, 'POST', '/api/storefront/publish', {
      cookie: acct.cookie,
      json: { generationId, connectionId, title: 'Tee' },
    });
    assert.deepEqual([refused.status, refused.body], [409, { error: 'Store is not connected' }]);

    assert.equal(await connect(acct.cookie, shopDomain), connectionId, 'the connection is reused');
    const list = await http(stack.baseUrl, 'GET', '/api/storefront/connect', { cookie: acct.cookie });
    assert.equal(list.body.connections.length, 1);
    assert.equal(list.body.connections[0].status, 'active');
    const ok = await http(stack.baseUrl, 'POST', '/api/storefront/publish', {
      cookie: acct.cookie,
      json: { generationId, connectionId, title: 'Tee', price: 25, sizes: ['M', 'L'] },
    });
    assert.equal(ok.status, 200, ok.text);
    const product = [...shop.products.get(shopDomain)!.values()][0]!;
    assert.deepEqual(
      product.variants.map((v) => [v.size, v.price]),
      [
        ['M', '25.00'],
        ['L', '25.00'],
      ],
    );
  });

  it('refuses publishing a generation that is not the user’s (404) or a missing connection (404)', async () => {
    const acct = await account(stack.baseUrl);
    const other = await account(stack.baseUrl);
    const connectionId = await connect(acct.cookie, newShop());
    const foreign = await completedGeneration(other);
    let res = await http(stack.baseUrl, 'POST', '/api/storefront/publish', {
      cookie: acct.cookie,
      json: { generationId: foreign, connectionId, title: 'Tee' },
    });
    assert.equal(res.status, 404);
    const own = await completedGeneration(acct);
    res = await http(stack.baseUrl, 'POST', '/api/storefront/publish', {
      cookie: other.cookie,
      json: { generationId: foreign, connectionId, title: 'Tee' },
    });
    assert.equal(res.status, 404, 'another user’s connection');
    res = await http(stack.baseUrl, 'POST', '/api/storefront/publish', {
      cookie: acct.cookie,
      json: { generationId: own, connectionId, title: '' },
    });
    assert.equal(res.status, 400);
  });

  it('publishes one product when the worker is killed mid-publish and another takes over', async function () {
    this.timeout(180_000);
    const acct = await account(stack.baseUrl);
    const shopDomain = newShop();
    const connectionId = await connect(acct.cookie, shopDomain);
    const generationId = await completedGeneration(acct);

    await stack.stopWorker();
    const root = ROOT;
    let child: ChildProcess | undefined = spawn(
      process.execPath,
      ['--import', 'tsx', path.join(root, 'worker/main.ts')],
      {
        cwd: root,
        env: {
          ...process.env,
          TEMPORAL_TASK_QUEUE: stack.taskQueue,
          PUBLIC_BASE_URL: stack.baseUrl,
          ALLOW_PRIVATE_URLS: 'true',
          SHOPIFY_API_KEY: API_KEY,
          SHOPIFY_API_SECRET: API_SECRET,
          SHOPIFY_SHOP_BASE_URL: shop.url,
          TOKEN_ENCRYPTION_KEY: TOKEN_KEY,
          LOG_LEVEL: 'warn',
        },
        stdio: ['ignore', 'ignore', 'inherit'],
      },
    );
    try {
      const reached = new Promise<void>((r) => (hold = { armed: true, reached: r }));
      const calls = shop.productSetCalls;
      const publishing = http(stack.baseUrl, 'POST', '/api/storefront/publish', {
        cookie: acct.cookie,
        json: { generationId, connectionId, title: 'Crash tee' },
      });
      await Promise.race([reached, sleep(90_000).then(() => Promise.reject(new Error('productSet never reached')))]);
      assert.equal(shop.products.get(shopDomain)?.size, 1, 'the shop created the product');
      const exited = new Promise((r) => child!.once('exit', r));
      child.kill('SIGKILL');
      await exited;
      child = undefined;
      hold.release?.(); // the killed worker never reads this answer

      await stack.startWorker();
      const res = await publishing;
      assert.ok([200, 202].includes(res.status), res.text);
      const id = res.body.id;
      const row = await until(
        'the published product',
        async () => {
          const r = await http(stack.baseUrl, 'GET', '/api/storefront/products', { cookie: acct.cookie });
          return r.body.products.find((p: any) => p.id === id && p.status === 'published');
        },
        90_000,
      );
      assert.ok(shop.productSetCalls >= calls + 2, 'productSet ran again on the new worker');
      assert.equal(shop.products.get(shopDomain)!.size, 1, 'still one product in the shop');
      assert.equal(row.productId, [...shop.products.get(shopDomain)!.values()][0]!.id);
      const rows = await stack.sql`select id from published_products where connection_id = ${connectionId}`;
      assert.equal(rows.length, 1);
    } finally {
      if (child && child.exitCode === null) child.kill('SIGKILL');
      if (!stack.worker) await stack.startWorker();
    }
  });
});
