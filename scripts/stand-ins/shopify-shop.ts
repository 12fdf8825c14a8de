// DEVELOPMENT STAND-IN: a local server that behaves like Shopify stores for the storefront flow, so the whole loop
// (install → callback → publish → order → paid → fulfillment) runs offline. Never a code path of the product: the
// service reaches it only because SHOPIFY_SHOP_BASE_URL points the Shopify client at it; the shop is named by the
// X-Shopify-Shop-Domain header the client adds (or a `shop` query parameter, for a browser).
//
// Speaks Shopify's wire formats: the OAuth authorize redirect (code, hmac, host, shop, state, timestamp; hmac = hex
// HMAC-SHA256 with the app secret over the other parameters sorted and joined k=v with &), the code exchange, the
// Admin GraphQL operations the service uses (webhookSubscriptionCreate answering the new subscription's id,
// webhookSubscriptionDelete by id with Shopify's userError for an unknown one, checking the access token and the shapes sent), and signed webhooks
// (X-Shopify-Hmac-Sha256 = base64 HMAC-SHA256 of the raw body).
//
// Pages for the browser (the service links to them when SHOPIFY_DEV_SHOP_URL is this server's origin), each marked
// as a development stand-in:
//   GET  /admin/oauth/authorize?client_id&scope&redirect_uri&state&shop  the consent page: the scopes and **Install**
//   POST /admin/oauth/authorize?shop=<shop>     Install: redirects to redirect_uri with code, hmac, host, shop, state,
//                                               timestamp, as Shopify does
//   GET  /admin?shop=<shop>                     the store: its products (title, price, image), each with **Place test
//        /admin/products/<id>?shop=<shop>      order**, and "Open the app" (the app URL, signed, when appUrl is set)
//   POST /admin/orders?shop=<shop>              Place test order: orders/create and orders/paid sent signed, then
//                                               back to the store page, which shows how each webhook was answered
import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface DevShopOptions {
  port?: number;
  host?: string;
  apiKey: string;
  apiSecret: string;
  /** Called after productSet stored the product, before it answers (tests hold the answer to crash a worker). */
  onProductSet?: (shop: string, product: DevProduct) => Promise<void> | void;
  /**
   * A JSON file that keeps the shops' products, webhook subscriptions and orders across restarts (`npm start` uses
   * DATA_DIR/dev-shop-state.json); read at start, rewritten after every change. Unset: memory only.
   */
  stateFile?: string;
  /**
   * The app URL (the service's GET /api/storefront/app): the store page's "Open the app" link opens it signed with
   * shop, timestamp and hmac, as Shopify opens an app from the shop's admin. Unset: no link.
   */
  appUrl?: string;
}

interface DevShopState {
  nextId: number;
  products: [string, [string, DevProduct][]][];
  subscriptions: [string, (Omit<DevSubscription, 'id'> & { id?: string })[]][];
  orders: [string, DevOrder][];
}

/** A webhook subscription of a shop, by the id webhookSubscriptionCreate answered (a state file from before ids
 * were kept gets ids given on load). */
export interface DevSubscription {
  id: string;
  topic: string;
  callbackUrl: string;
}

export interface DevProduct {
  id: string;
  handle: string;
  title: string;
  descriptionHtml: string;
  status: string;
  options: { name: string; values: string[] }[];
  variants: { id: string; size: string; price: string }[];
  media: { originalSource: string; alt?: string }[];
}

export interface DevOrder {
  id: number;
  name: string;
  shop: string;
  fulfillmentOrders: { id: string; status: string }[];
  fulfillments: { id: string; trackingInfo: unknown }[];
  payload: Record<string, unknown>;
}

export interface DevShop {
  url: string;
  apiKey: string;
  apiSecret: string;
  /** products by shop, keyed by handle */
  products: Map<string, Map<string, DevProduct>>;
  subscriptions: Map<string, DevSubscription[]>;
  orders: Map<string, DevOrder>;
  /** every productSet call received (including re-runs) */
  productSetCalls: number;
  tokenFor(shop: string): string;
  /** Creates an order for a product of the shop and sends orders/create then orders/paid to its subscriptions. */
  placeOrder(
    shop: string,
    opts?: {
      productId?: string;
      title?: string;
      price?: string;
      /** several lines (each of a product of the shop, a size of it, a quantity); default one line of the product */
      lines?: { productId?: string; size?: string; quantity?: number }[];
      shipTo?: string;
    },
  ): Promise<{ order: DevOrder; deliveries: { topic: string; status: number }[] }>;
  /**
   * Sends one signed webhook to the shop's subscription of `topic` (or to `url`), with the headers Shopify sends:
   * X-Shopify-Webhook-Id (`webhookId`, else a new one) and X-Shopify-Event-Id (`eventId`, else the one this shop
   * sent before under that webhook id, as Shopify's retries carry the same pair, else a new one). A string payload
   * is sent as it is (a JSON text whose 64-bit ids a JS object could not hold exactly, as Shopify's own samples).
   */
  sendWebhook(
    shop: string,
    topic: string,
    payload: unknown,
    opts?: { webhookId?: string; eventId?: string; url?: string },
  ): Promise<{ status: number; webhookId: string; eventId: string }>;
  /**
   * What pressing Install on the consent page does, for tests that take the OAuth round trip over HTTP: posts the
   * consent form of an authorize URL the service answered (https://<shop>/admin/oauth/authorize?… or this server's)
   * and returns the status and the Location it answers (the service's callback URL, signed).
   */
  approve(authorizeUrl: string): Promise<{ status: number; location: string | null }>;
  /** The app URL opened from the shop's admin (shop, timestamp, hmac), as the store page's "Open the app" links it. */
  appLaunchUrl(shop: string): string | null;
  stop(): Promise<void>;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON from the wire, checked field by field below
type Json = any;
const SHOP_RE = /^[a-z0-9][a-z0-9-]{0,59}\.myshopify\.com$/;
const LABEL = 'Development stand-in shop (not Shopify): for local development and tests only';

export function signQuery(secret: string, params: Record<string, string>): string {
  const msg = Object.keys(params)
    .filter((k) => k !== 'hmac' && k !== 'signature')
    .sort()
    .map((k) => `${k}=${params[k]}`)
    .join('&');
  return createHmac('sha256', secret).update(msg).digest('hex');
}

export const signBody = (secret: string, body: string) => createHmac('sha256', secret).update(body).digest('base64');

const esc = (v: unknown) =>
  String(v).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;max-width:56rem;margin:0 auto;padding:0 1rem 2rem;color:#1a1a1a}
.standin{background:#fff3cd;border:2px dashed #8a6d00;padding:.5rem 1rem;margin:1rem 0}
.product{display:flex;gap:1rem;align-items:center;border:1px solid #ccc;border-radius:6px;padding:.75rem;margin:.75rem 0}
.product img{width:120px;height:120px;object-fit:contain;background:#f4f4f4}
button{font:inherit;padding:.4rem 1rem;background:#1f5f3a;color:#fff;border:0;border-radius:4px;cursor:pointer}
.result{border-left:4px solid #1f5f3a;padding:.25rem .75rem;background:#eef7f1}`;

export async function startDevShop(opts: DevShopOptions): Promise<DevShop> {
  const codes = new Map<string, string>(); // code → shop
  const saved: DevShopState | undefined =
    opts.stateFile && existsSync(opts.stateFile) ? JSON.parse(readFileSync(opts.stateFile, 'utf8')) : undefined;
  let nextId = saved?.nextId ?? 1000;
  const gid = (type: string) => `gid://shopify/${type}/${++nextId}`;

  const tokenFor = (shop: string) =>
    `shpat_${createHmac('sha256', opts.apiSecret).update(`token:${shop}`).digest('hex').slice(0, 32)}`;

  /** The event id of each webhook id sent (a resend under the same webhook id is Shopify's retry of it). */
  const eventIds = new Map<string, string>();
  const shop: DevShop = {
    url: '',
    apiKey: opts.apiKey,
    apiSecret: opts.apiSecret,
    products: new Map(saved?.products.map(([k, v]) => [k, new Map(v)])),
    subscriptions: new Map(
      saved?.subscriptions.map(([k, subs]) => [k, subs.map((x) => ({ ...x, id: x.id ?? gid('WebhookSubscription') }))]),
    ),
    orders: new Map(saved?.orders),
    productSetCalls: 0,
    tokenFor,
    async sendWebhook(shopDomain, topic, payload, o = {}) {
      const url = o.url ?? (shop.subscriptions.get(shopDomain) ?? []).find((s) => s.topic === topic)?.callbackUrl;
      if (!url) throw new Error(`${shopDomain} has no subscription for ${topic}`);
      const body = typeof payload === 'string' ? payload : JSON.stringify(payload);
      const webhookId = o.webhookId ?? randomUUID();
      const eventId = o.eventId ?? eventIds.get(webhookId) ?? randomUUID();
      eventIds.set(webhookId, eventId);
      const res = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-shopify-topic': topic,
          'x-shopify-shop-domain': shopDomain,
          'x-shopify-webhook-id': webhookId,
          'x-shopify-event-id': eventId,
          'x-shopify-api-version': '2026-10',
          'x-shopify-triggered-at': new Date().toISOString(),
          'x-shopify-hmac-sha256': signBody(opts.apiSecret, body),
        },
        body,
      });
      await res.arrayBuffer();
      return { status: res.status, webhookId, eventId };
    },
    async placeOrder(shopDomain, o = {}) {
      const products = [...(shop.products.get(shopDomain)?.values() ?? [])];
      const product = o.productId ? products.find((p) => p.id === o.productId) : products[products.length - 1];
      const productId = product?.id ?? o.productId;
      if (!productId) throw new Error(`${shopDomain} has no product to order`);
      const variant = product?.variants[0];
      const price = variant?.price ?? o.price ?? '59.99';
      const lineOf = (l: { productId?: string; size?: string; quantity?: number }) => {
        const p = l.productId ? products.find((x) => x.id === l.productId) : product;
        if (!p) throw new Error(`${shopDomain} has no product ${l.productId}`);
        const v = (l.size ? p.variants.find((x) => x.size === l.size) : p.variants[0]) ?? p.variants[0];
        return {
          id: ++nextId,
          product_id: Number(p.id.slice(p.id.lastIndexOf('/') + 1)),
          variant_id: v ? Number(v.id.slice(v.id.lastIndexOf('/') + 1)) : null,
          title: p.title,
          variant_title: v?.size ?? 'M',
          quantity: l.quantity ?? 1,
          price: v?.price ?? price,
        };
      };
      const many = o.lines?.length ? o.lines.map(lineOf) : null;
      const id = ++nextId;
      const payload = {
        id,
        admin_graphql_api_id: `gid://shopify/Order/${id}`,
        name: `#${id}`,
        email: 'ada@example.test',
        created_at: new Date().toISOString(),
        currency: 'USD',
        total_price: many ? many.reduce((t, l) => t + Number(l.price) * l.quantity, 0).toFixed(2) : price,
        shipping_address: { name: o.shipTo ?? 'Ada Lovelace', city: 'London', country_code: 'GB' },
        financial_status: 'pending',
        customer: { id: 7000 + id, first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.test' },
        line_items: many ?? [
          {
            id: ++nextId,
            product_id: Number(productId.slice(productId.lastIndexOf('/') + 1)),
            variant_id: variant ? Number(variant.id.slice(variant.id.lastIndexOf('/') + 1)) : null,
            title: product?.title ?? o.title ?? 'Mockup tee',
            variant_title: variant?.size ?? 'M',
            quantity: 1,
            price,
          },
        ],
      };
      const order: DevOrder = {
        id,
        name: payload.name,
        shop: shopDomain,
        fulfillmentOrders: [{ id: gid('FulfillmentOrder'), status: 'OPEN' }],
        fulfillments: [],
        payload,
      };
      shop.orders.set(payload.admin_graphql_api_id, order);
      save();
      const deliveries = [];
      deliveries.push({ topic: 'orders/create', ...(await shop.sendWebhook(shopDomain, 'orders/create', payload)) });
      const paid = { ...payload, financial_status: 'paid' };
      deliveries.push({ topic: 'orders/paid', ...(await shop.sendWebhook(shopDomain, 'orders/paid', paid)) });
      return { order, deliveries: deliveries.map((d) => ({ topic: d.topic, status: d.status })) };
    },
    async approve(authorizeUrl) {
      const u = new URL(authorizeUrl);
      const shopDomain = u.searchParams.get('shop') ?? u.hostname;
      const form = new URLSearchParams(u.searchParams);
      form.delete('shop');
      const res = await fetch(`${shop.url}/admin/oauth/authorize?shop=${encodeURIComponent(shopDomain)}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: form,
        redirect: 'manual',
      });
      await res.arrayBuffer();
      return { status: res.status, location: res.headers.get('location') };
    },
    appLaunchUrl(shopDomain) {
      if (!opts.appUrl) return null;
      const q: Record<string, string> = {
        host: Buffer.from(`${shopDomain}/admin`).toString('base64url'),
        shop: shopDomain,
        timestamp: String(Math.floor(Date.now() / 1000)),
      };
      q.hmac = signQuery(opts.apiSecret, q);
      return `${opts.appUrl}?${new URLSearchParams(q)}`;
    },
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };

  /** Writes the state file (whole, then renamed into place) after a change. */
  const save = () => {
    if (!opts.stateFile) return;
    const state: DevShopState = {
      nextId,
      products: [...shop.products].map(([k, v]) => [k, [...v]]),
      subscriptions: [...shop.subscriptions],
      orders: [...shop.orders],
    };
    writeFileSync(`${opts.stateFile}.tmp`, JSON.stringify(state), { mode: 0o600 });
    renameSync(`${opts.stateFile}.tmp`, opts.stateFile);
  };

  const send = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };
  const page = (
    res: ServerResponse,
    status: number,
    html: string,
    headers: Record<string, string> = {},
    title = 'Development stand-in shop',
  ) => {
    res
      .writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', ...headers })
      .end(
        `<!doctype html><html lang="en"><meta charset="utf-8"><meta name="viewport" content="width=device-width">` +
          `<title>${esc(title)} · ${LABEL}</title><style>${STYLE}</style>` +
          `<p class="standin" role="note"><strong>${LABEL}</strong></p>${html}`,
      );
  };
  /** Result of the last test orders placed from the store page, by order name, shown once back on the page. */
  const placed = new Map<string, { title: string; deliveries: { topic: string; status: number }[] }>();

  /** The store page: the shop's products with Place test order, the result of the order just placed. */
  const storePage = (res: ServerResponse, shopDomain: string, url: URL) => {
    const q = (extra = '') => `?shop=${encodeURIComponent(shopDomain)}${extra}`;
    const products = [...(shop.products.get(shopDomain)?.values() ?? [])].filter((p) => p.status === 'ACTIVE');
    const orderName = url.searchParams.get('placed');
    const done = orderName ? placed.get(orderName) : undefined;
    const failed = url.searchParams.get('error');
    const app = shop.appLaunchUrl(shopDomain);
    const html =
      `<h1>${esc(shopDomain)}</h1>` +
      (done
        ? `<div class="result" role="status"><p>Test order ${esc(orderName)} placed for ${esc(done.title)}.</p><ul>` +
          done.deliveries.map((d) => `<li>${esc(d.topic)} webhook answered ${d.status}</li>`).join('') +
          '</ul></div>'
        : '') +
      (failed ? `<p class="result" role="alert">Could not place the order: ${esc(failed)}</p>` : '') +
      (app ? `<p><a href="${esc(app)}">Open the app</a> (as Shopify opens it from the store admin)</p>` : '') +
      `<h2>Products</h2>` +
      (products.length === 0
        ? '<p>No products published yet.</p>'
        : products
            .map((p) => {
              const img = p.media[0]?.originalSource;
              return (
                `<section class="product" aria-label="${esc(p.title)}">` +
                (img ? `<img src="${esc(img)}" alt="${esc(p.media[0]?.alt ?? p.title)}">` : '') +
                `<div><h3>${esc(p.title)}</h3><p>${esc(p.variants[0]?.price ?? '')} USD · sizes ` +
                `${esc(p.options[0]?.values.join(', ') ?? '')}</p>` +
                `<form method="post" action="/admin/orders${q()}">` +
                `<input type="hidden" name="product_id" value="${esc(p.id)}">` +
                `<button type="submit" aria-label="Place test order: ${esc(p.title)}">Place test order</button>` +
                `</form></div></section>`
              );
            })
            .join(''));
    page(res, 200, html, {}, shopDomain);
  };

  const readBody = (req: IncomingMessage) =>
    new Promise<string>((resolve, reject) => {
      const chunks: Buffer[] = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      req.on('error', reject);
    });

  async function graphql(shopDomain: string, body: { query?: string; variables?: Record<string, Json> }) {
    const q = body.query ?? '';
    const v = body.variables ?? {};
    const err = (message: string) => ({ errors: [{ message }] });
    if (/\bproductSet\s*\(/.test(q)) {
      shop.productSetCalls++;
      const input = v.input;
      const handle: string | undefined = v.identifier?.handle ?? input?.handle;
      if (v.synchronous !== true) return err('this stand-in only supports synchronous productSet');
      if (!input || typeof input.title !== 'string' || !input.title) return err('input.title is required');
      const sizes: string[] = (input.productOptions?.[0]?.values ?? []).map((x: { name: string }) => x.name);
      if (input.productOptions?.[0]?.name !== 'Size' || sizes.length === 0)
        return err('input.productOptions must be one Size option with values');
      if (!Array.isArray(input.variants) || input.variants.length !== sizes.length)
        return err('input.variants must have one variant per size');
      for (const variant of input.variants) {
        const ov = variant.optionValues?.[0];
        if (ov?.optionName !== 'Size' || !sizes.includes(ov.name) || !/^\d+\.\d{2}$/.test(String(variant.price)))
          return err('variant optionValues/price invalid');
      }
      for (const f of input.files ?? [])
        if (!/^https?:\/\//.test(f.originalSource) || f.contentType !== 'IMAGE') return err('files: invalid media');
      const byHandle = shop.products.get(shopDomain) ?? new Map<string, DevProduct>();
      shop.products.set(shopDomain, byHandle);
      const key = handle ?? `p-${nextId + 1}`;
      const existing = byHandle.get(key);
      const product: DevProduct = {
        id: existing?.id ?? gid('Product'),
        handle: key,
        title: input.title,
        descriptionHtml: input.descriptionHtml ?? '',
        status: input.status ?? 'ACTIVE',
        options: [{ name: 'Size', values: sizes }],
        variants: input.variants.map((x: Json, i: number) => ({
          id: existing?.variants[i]?.id ?? gid('ProductVariant'),
          size: x.optionValues[0].name,
          price: String(x.price),
        })),
        media: (input.files ?? []).map((f: Json) => ({ originalSource: f.originalSource, alt: f.alt })),
      };
      byHandle.set(key, product);
      save();
      await opts.onProductSet?.(shopDomain, product);
      return { data: { productSet: { product: { id: product.id, handle: product.handle }, userErrors: [] } } };
    }
    if (/\bwebhookSubscriptionCreate\s*\(/.test(q)) {
      const topic = String(v.topic ?? '');
      const callbackUrl = v.webhookSubscription?.callbackUrl;
      if (!/^[A-Z_]+$/.test(topic) || typeof callbackUrl !== 'string' || v.webhookSubscription?.format !== 'JSON')
        return err('topic and webhookSubscription {callbackUrl, format: JSON} are required');
      const t = topic.toLowerCase().replace('_', '/');
      const subs = shop.subscriptions.get(shopDomain) ?? [];
      shop.subscriptions.set(shopDomain, subs);
      if (subs.some((s) => s.topic === t && s.callbackUrl === callbackUrl))
        return {
          data: {
            webhookSubscriptionCreate: {
              webhookSubscription: null,
              userErrors: [
                {
                  field: ['webhookSubscription', 'callbackUrl'],
                  message: 'Address for this topic has already been taken',
                },
              ],
            },
          },
        };
      const created = { id: gid('WebhookSubscription'), topic: t, callbackUrl };
      subs.push(created);
      save();
      return {
        data: { webhookSubscriptionCreate: { webhookSubscription: { id: created.id, topic }, userErrors: [] } },
      };
    }
    if (/\bwebhookSubscriptionDelete\s*\(/.test(q)) {
      // by id, among this shop's subscriptions (another shop's id is unknown here, as at Shopify)
      const id = v.id;
      if (typeof id !== 'string' || !/^gid:\/\/shopify\/WebhookSubscription\/\d+$/.test(id))
        return err(`Variable $id of type ID! was provided invalid value`);
      const subs = shop.subscriptions.get(shopDomain) ?? [];
      const i = subs.findIndex((x) => x.id === id);
      if (i < 0)
        return {
          data: {
            webhookSubscriptionDelete: {
              deletedWebhookSubscriptionId: null,
              userErrors: [{ field: ['id'], message: 'Webhook subscription does not exist' }],
            },
          },
        };
      subs.splice(i, 1);
      save();
      return { data: { webhookSubscriptionDelete: { deletedWebhookSubscriptionId: id, userErrors: [] } } };
    }
    if (/\bfulfillmentCreate\s*\(/.test(q)) {
      const f = v.fulfillment;
      const ids: string[] = (f?.lineItemsByFulfillmentOrder ?? []).map((x: Json) => x.fulfillmentOrderId);
      if (ids.length === 0 || !f?.trackingInfo?.number)
        return err('fulfillment.lineItemsByFulfillmentOrder and trackingInfo.number are required');
      const order = [...shop.orders.values()].find(
        (o) => o.shop === shopDomain && o.fulfillmentOrders.some((fo) => ids.includes(fo.id)),
      );
      if (!order)
        return {
          data: {
            fulfillmentCreate: {
              fulfillment: null,
              userErrors: [{ field: ['fulfillment'], message: 'Fulfillment order not found' }],
            },
          },
        };
      const open = order.fulfillmentOrders.filter((fo) => ids.includes(fo.id) && fo.status === 'OPEN');
      if (open.length !== ids.length)
        return {
          data: {
            fulfillmentCreate: {
              fulfillment: null,
              userErrors: [{ field: ['fulfillment'], message: 'Fulfillment order is not open' }],
            },
          },
        };
      for (const fo of open) fo.status = 'CLOSED';
      const fulfillment = { id: gid('Fulfillment'), trackingInfo: f.trackingInfo };
      order.fulfillments.push(fulfillment);
      save();
      return {
        data: { fulfillmentCreate: { fulfillment: { id: fulfillment.id, status: 'SUCCESS' }, userErrors: [] } },
      };
    }
    if (/\bfulfillmentOrders\b/.test(q)) {
      const order = shop.orders.get(String(v.id));
      if (!order || order.shop !== shopDomain) return { data: { order: null } };
      return { data: { order: { id: v.id, fulfillmentOrders: { nodes: order.fulfillmentOrders } } } };
    }
    if (/\bshop\s*\{\s*name\s*\}/.test(q)) {
      const name = shopDomain.replace('.myshopify.com', '').replace(/-/g, ' ');
      return { data: { shop: { name: `${name} (dev shop)` } } };
    }
    return err('operation not supported by the development stand-in shop');
  }

  const server: Server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://dev-shop');
      const shopDomain = String(req.headers['x-shopify-shop-domain'] ?? url.searchParams.get('shop') ?? '');
      if (req.method === 'GET' && url.pathname === '/') {
        page(res, 200, '<p>A store: /admin?shop=&lt;name&gt;.myshopify.com</p>');
        return;
      }
      if (!SHOP_RE.test(shopDomain))
        return send(res, 400, { errors: 'missing or invalid shop (X-Shopify-Shop-Domain)' });

      if (url.pathname === '/admin/oauth/authorize' && (req.method === 'GET' || req.method === 'POST')) {
        // GET: the consent page; POST: its Install button (the same parameters as form fields)
        const p =
          req.method === 'GET'
            ? Object.fromEntries(url.searchParams)
            : Object.fromEntries(new URLSearchParams(await readBody(req)));
        if (p.client_id !== opts.apiKey) return page(res, 400, '<p>Unknown client_id</p>');
        if (!p.redirect_uri || !p.state || !p.scope)
          return page(res, 400, '<p>redirect_uri, scope and state are required</p>');
        if (req.method === 'GET') {
          const hidden = ['client_id', 'scope', 'redirect_uri', 'state']
            .map((k) => `<input type="hidden" name="${k}" value="${esc(p[k])}">`)
            .join('');
          const app = new URL(p.redirect_uri).host;
          return page(
            res,
            200,
            `<h1>Install app</h1><p>The app at <strong>${esc(app)}</strong> asks to be installed in ` +
              `<strong>${esc(shopDomain)}</strong>. It will be able to:</p><ul>` +
              p.scope
                .split(',')
                .map((sc) => `<li><code>${esc(sc.trim())}</code></li>`)
                .join('') +
              `</ul><form method="post" action="/admin/oauth/authorize?shop=${encodeURIComponent(shopDomain)}">` +
              `${hidden}<button type="submit">Install</button></form>`,
            {},
            `Install app in ${shopDomain}`,
          );
        }
        const code = randomBytes(16).toString('hex');
        codes.set(code, shopDomain);
        const back: Record<string, string> = {
          code,
          host: Buffer.from(`${shopDomain}/admin`).toString('base64url'),
          shop: shopDomain,
          state: p.state,
          timestamp: String(Math.floor(Date.now() / 1000)),
        };
        back.hmac = signQuery(opts.apiSecret, back);
        const location = `${p.redirect_uri}?${new URLSearchParams(back)}`;
        // installed: back to the app, as Shopify redirects after the merchant's Install
        return page(res, 302, `<p>Installed in ${esc(shopDomain)}; <a href="${esc(location)}">continue</a></p>`, {
          location,
        });
      }

      if (req.method === 'GET' && (url.pathname === '/admin' || /^\/admin\/products\/\d+$/.test(url.pathname)))
        return storePage(res, shopDomain, url);

      if (req.method === 'POST' && url.pathname === '/admin/orders') {
        const productId = new URLSearchParams(await readBody(req)).get('product_id') ?? '';
        const back = `/admin?shop=${encodeURIComponent(shopDomain)}`;
        try {
          const r = await shop.placeOrder(shopDomain, { productId });
          placed.set(r.order.name, {
            title: String((r.order.payload.line_items as { title: string }[])[0]?.title ?? ''),
            deliveries: r.deliveries,
          });
          res.writeHead(303, { location: `${back}&placed=${encodeURIComponent(r.order.name)}` }).end();
        } catch (e) {
          res.writeHead(303, { location: `${back}&error=${encodeURIComponent((e as Error).message)}` }).end();
        }
        return;
      }

      if (req.method === 'POST' && url.pathname === '/admin/oauth/access_token') {
        let b: Json;
        try {
          b = JSON.parse(await readBody(req));
        } catch {
          return send(res, 400, { error: 'invalid_request' });
        }
        const okSecret =
          typeof b.client_secret === 'string' &&
          b.client_secret.length === opts.apiSecret.length &&
          timingSafeEqual(Buffer.from(b.client_secret), Buffer.from(opts.apiSecret));
        if (b.client_id !== opts.apiKey || !okSecret) return send(res, 400, { error: 'invalid_client' });
        if (codes.get(b.code) !== shopDomain)
          return send(res, 400, { error: 'invalid_request', error_description: 'code' });
        codes.delete(b.code);
        return send(res, 200, {
          access_token: tokenFor(shopDomain),
          scope: 'write_products,read_orders,write_fulfillments,read_fulfillments',
        });
      }

      const gql = /^\/admin\/api\/(\d{4}-\d{2})\/graphql\.json$/.exec(url.pathname);
      if (req.method === 'POST' && gql) {
        if (req.headers['x-shopify-access-token'] !== tokenFor(shopDomain))
          return send(res, 401, {
            errors: '[API] Invalid API key or access token (unrecognized login or wrong password)',
          });
        let b: Json;
        try {
          b = JSON.parse(await readBody(req));
        } catch {
          return send(res, 400, { errors: 'malformed JSON' });
        }
        return send(res, 200, await graphql(shopDomain, b));
      }

      if (req.method === 'POST' && url.pathname === '/_dev/orders') {
        const b = JSON.parse((await readBody(req)) || '{}');
        try {
          const r = await shop.placeOrder(shopDomain, b);
          return send(res, 200, { order: { id: r.order.id, name: r.order.name }, deliveries: r.deliveries });
        } catch (e) {
          return send(res, 400, { error: (e as Error).message });
        }
      }
      send(res, 404, { errors: 'Not Found' });
    })().catch((e) => {
      if (!res.headersSent) send(res, 500, { errors: String(e) });
    });
  });
  await new Promise<void>((r) => server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => r()));
  shop.url = `http://${opts.host ?? '127.0.0.1'}:${(server.address() as AddressInfo).port}`;
  return shop;
}
