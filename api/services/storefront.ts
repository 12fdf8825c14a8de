// Storefront use cases: connect a Shopify store with OAuth, publish mockups as products, take order webhooks,
// send fulfillment tracking. Shopify work that must survive a crash runs in workflows (workflows/storefront.ts)
// started by reference; the callback's token exchange and webhook registration run inline (the merchant's browser
// waits on that redirect).
import { createPrintFiles } from './print-files';
import { productionByOrder, type ProductionMap } from './production';
import type { z } from 'zod';
import type {
  connectionResource,
  costEstimate as costEstimateResource,
  dataRequestResource,
  orderResource,
  productResource,
} from '../http/resources';
import { createHash, randomBytes } from 'node:crypto';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { Request, Response } from 'express';
import { getRenderJob, jobAssets } from '../../db/chat';
import { garmentOfBlankKey, getGarment, type GarmentRow } from '../../db/garments';
import { getGeneration } from '../../db/generations';
import { mockupPrintSource } from '../../db/print-files';
import {
  activateConnection,
  connectionsOfShop,
  consumeOAuthState,
  disconnectForUser,
  forgetWebhookSubscriptions,
  getConnection,
  getOrder,
  getPublishedProduct,
  insertOAuthState,
  insertPublishedProduct,
  listConnections,
  listDataRequests,
  listOrders,
  listPublishedProducts,
  recordWebhookSubscription,
  storeConnectionToken,
  storeWebhook,
  upsertConnection,
  webhookSubscriptionsOf,
  type ConnectionRow,
  type OrderRow,
  type PublishedProductRow,
} from '../../db/storefront';
import { ownFileKey } from '../../lib/fetch/own-files';
import { randomSuffix } from '../../lib/ids';
import { startInboundWorkflow } from '../../lib/inbound';
import { shopifyWebhookStart } from '../../lib/storefront/start';
import {
  gatewayFor,
  productAdminUrl,
  shopAdminPage,
  SHOP_DOMAIN_RE,
  ShopifyRefusedError,
  userErrorMessage,
  type ShopifyGateway,
} from '../../lib/shopify/client';
import {
  SHOP_NAME_QUERY,
  SUBSCRIPTION_GONE,
  topicEnum,
  WEBHOOK_SUBSCRIPTION_CREATE,
  WEBHOOK_SUBSCRIPTION_DELETE,
  type ShopNameData,
  type WebhookSubscriptionCreateData,
  type WebhookSubscriptionDeleteData,
} from '../../lib/shopify/operations';
import { parseJsonKeepingBigIntegers } from '../../lib/shopify/json';
import { SUGGESTED_PRICE, toCents, unitEconomics } from '../../lib/storefront/economics';
import { COMPLIANCE_TOPICS, SUBSCRIBED_TOPICS, type Tracking } from '../../lib/storefront/types';
import { fileUrl } from '../../lib/storage';
import { decryptToken, encryptToken } from '../../lib/token-cipher';
import { orTimeout, within } from '../../lib/wait';
import { fulfillment, publishProduct, shopifyWebhook } from '../../workflows';
import type { AppDeps } from '../context';
import { ApiError, badRequest, conflict, notFound, unauthorized } from '../errors';

export const DEFAULT_PRICE = SUGGESTED_PRICE;
export const INVALID_HMAC = 'Invalid HMAC';
export const INVALID_STATE = 'Invalid state: the authorization took too long or was abandoned';
export const NOT_CONNECTED = 'Store is not connected';

const NOT_CONFIGURED = 'Storefront is not configured: set SHOPIFY_API_KEY, SHOPIFY_API_SECRET and TOKEN_ENCRYPTION_KEY';

/** The Shopify gateway and the token key; 503 when the storefront is not configured (production without Shopify). */
function configured(deps: AppDeps): { g: ShopifyGateway; tokenKey: Buffer } {
  const g = gatewayFor(deps.config);
  const tokenKey = deps.config.shopify.tokenKey;
  if (!g || !tokenKey) throw new ApiError(503, 'service_unavailable', NOT_CONFIGURED);
  return { g, tokenKey };
}

export function validShopDomain(shop: string): boolean {
  return SHOP_DOMAIN_RE.test(shop);
}

/** POST /connect/install: a single-use state bound to the user and shop, and the authorize URL. */
export async function startInstall(deps: AppDeps, userId: string, shop: string): Promise<{ url: string }> {
  const { g } = configured(deps);
  const state = randomBytes(24).toString('base64url');
  await insertOAuthState(deps.sql, { state, userId, shop, ttlMs: deps.config.shopify.stateTtlMs });
  return { url: g.authorizeUrl(shop, state) };
}

/**
 * GET /callback: hmac (library check), then the state: single use, unexpired, this shop, and issued to the user
 * whose session the browser carries (`userId`; none, or another user's, connects nothing and leaves the state
 * alone), the code exchange, the encrypted token, the shop's name, the webhook subscriptions, active. Returns where
 * to send the browser: the dashboard's Storefront page, which says "Store connected".
 */
export async function completeCallback(
  deps: AppDeps,
  query: Record<string, string>,
  userId: string | undefined,
): Promise<string> {
  const { g, tokenKey } = configured(deps);
  if (!query.hmac || !(await g.validCallbackHmac(query))) throw badRequest(INVALID_HMAC);
  const shop = query.shop ?? '';
  if (!validShopDomain(shop) || !query.state || !userId) throw badRequest(INVALID_STATE);
  if (!(await consumeOAuthState(deps.sql, query.state, shop, userId))) throw badRequest(INVALID_STATE);
  if (!query.code) throw badRequest('Missing code');

  const conn = await upsertConnection(deps.sql, { id: `shc_${randomSuffix(16)}`, userId, shopDomain: shop });
  try {
    const { accessToken, scope } = await g.exchangeCode(shop, query.code);
    await storeConnectionToken(deps.sql, conn.id, encryptToken(tokenKey, accessToken), scope);
    const { shop: info } = await g.graphql<ShopNameData>(shop, accessToken, SHOP_NAME_QUERY);
    const callbackUrl = `${deps.config.publicBaseUrl}/api/storefront/webhooks/orders`;
    for (const topic of SUBSCRIBED_TOPICS) {
      const r = await g.graphql<WebhookSubscriptionCreateData>(shop, accessToken, WEBHOOK_SUBSCRIPTION_CREATE, {
        topic: topicEnum(topic),
        webhookSubscription: { callbackUrl, format: 'JSON' },
      });
      const created = r.webhookSubscriptionCreate.webhookSubscription;
      const errors = userErrorMessage(r.webhookSubscriptionCreate.userErrors);
      if (created && !errors) {
        // its id, so that a disconnect can delete it
        await recordWebhookSubscription(deps.sql, { shopDomain: shop, subscriptionId: created.id, topic, callbackUrl });
        continue;
      }
      // Taken: the subscription is in place already, registered by another user's active connection to the shop
      // (on record), or one a disconnect could not delete (on record, deleted at the next disconnect), or one made
      // before ids were recorded (migration 017; not on record: it stays until the app is uninstalled).
      if (errors && /already been taken/i.test(errors)) continue;
      throw new ShopifyRefusedError(`webhookSubscriptionCreate ${topic}: ${errors ?? 'no subscription returned'}`);
    }
    await activateConnection(deps.sql, conn.id, info.name);
  } catch (err) {
    if (err instanceof ShopifyRefusedError)
      throw new ApiError(502, 'service_unavailable', `Shopify refused: ${err.message}`);
    throw new ApiError(502, 'service_unavailable', 'Could not reach the shop to finish connecting; try again');
  }
  return `${deps.config.publicBaseUrl}/storefront?connected=${encodeURIComponent(conn.id)}`;
}

/**
 * GET /app, the app URL (an install started from Shopify's side: the merchant adds or opens the app in the shop's
 * admin and Shopify opens this URL with shop, hmac, timestamp and no state). The hmac is checked by the library as
 * the callback's is. A signed-in user is taken into a fresh install for that shop (the authorize URL, with a new
 * state bound to them); a signed-out browser goes to the Storefront page with the shop filled in, which asks them
 * to sign in first and then to confirm with Connect (an unsigned link never starts an install by itself).
 */
export async function appLaunch(
  deps: AppDeps,
  query: Record<string, string>,
  userId: string | undefined,
): Promise<string> {
  const { g } = configured(deps);
  if (!query.hmac || !(await g.validCallbackHmac(query))) throw badRequest(INVALID_HMAC);
  const shop = query.shop ?? '';
  if (!validShopDomain(shop)) throw badRequest('Invalid shop');
  if (!userId) return `${deps.config.publicBaseUrl}/storefront?shop=${encodeURIComponent(shop)}`;
  return (await startInstall(deps, userId, shop)).url;
}

export const presentConnection = (c: ConnectionRow, devShopUrl?: string): z.infer<typeof connectionResource> => ({
  id: c.id,
  shopDomain: c.shopDomain,
  shopName: c.shopName,
  status: c.status === 'active' ? 'active' : 'disconnected',
  installedAt: c.installedAt?.toISOString() ?? null,
  adminUrl: shopAdminPage(c.shopDomain, '', devShopUrl),
});

export async function connections(deps: AppDeps, userId: string) {
  return (await listConnections(deps.sql, userId)).map((c) => presentConnection(c, deps.config.shopify.devShopUrl));
}

/** How long a disconnect waits for Shopify to delete one webhook subscription. */
const SUBSCRIPTION_DELETE_TIMEOUT_MS = 10_000;

/**
 * DELETE /connect/<id>: the connection is disconnected and its access token erased (null) first, in one statement,
 * whatever Shopify answers next. Then, unless another user's connection to the shop is still active (the shop's
 * subscriptions serve it too), each webhook subscription on record for the shop is deleted at Shopify
 * (webhookSubscriptionDelete) with the token just erased, held in memory for these calls only. A subscription
 * Shopify deleted, or says does not exist, is forgotten; one it could not be asked to delete (unreachable, slow,
 * refused, the storefront not configured) stays on record and is reported in `webhooks.notRemoved`: its deliveries
 * are stored and ignored (no active connection), and the next disconnect of the shop (after a reconnect) deletes it.
 * No token is kept anywhere to retry with (see docs/storefront.md).
 */
export async function disconnectConnection(deps: AppDeps, userId: string, id: string) {
  const before = await disconnectForUser(deps.sql, id, userId);
  if (!before) throw notFound('Connection not found');
  const webhooks = { removed: [] as string[], notRemoved: [] as string[], keptForOtherConnections: [] as string[] };
  const subs = await webhookSubscriptionsOf(deps.sql, before.shopDomain);
  if (before.othersActive) {
    webhooks.keptForOtherConnections = subs.map((s) => s.topic);
    return { id, status: 'disconnected' as const, webhooks };
  }
  const g = gatewayFor(deps.config);
  const tokenKey = deps.config.shopify.tokenKey;
  let token: string | undefined;
  try {
    if (before.status === 'active' && before.accessTokenEnc && tokenKey)
      token = decryptToken(tokenKey, before.accessTokenEnc);
  } catch {
    token = undefined; // a token the key cannot open cannot delete anything either
  }
  for (const sub of subs) {
    if (!g || !token) {
      webhooks.notRemoved.push(sub.topic);
      continue;
    }
    try {
      const r = await orTimeout(
        SUBSCRIPTION_DELETE_TIMEOUT_MS,
        g.graphql<WebhookSubscriptionDeleteData>(before.shopDomain, token, WEBHOOK_SUBSCRIPTION_DELETE, {
          id: sub.subscriptionId,
        }),
        `no answer within ${SUBSCRIPTION_DELETE_TIMEOUT_MS} ms`,
      );
      const errors = userErrorMessage(r.webhookSubscriptionDelete.userErrors);
      if (r.webhookSubscriptionDelete.deletedWebhookSubscriptionId || (errors && SUBSCRIPTION_GONE.test(errors))) {
        await forgetWebhookSubscriptions(deps.sql, before.shopDomain, [sub.subscriptionId]);
        webhooks.removed.push(sub.topic);
      } else {
        deps.log.warn('shopify refused to delete a webhook subscription', {
          connectionId: id,
          subscriptionId: sub.subscriptionId,
          errors,
        });
        webhooks.notRemoved.push(sub.topic);
      }
    } catch (err) {
      deps.log.warn('could not delete a shopify webhook subscription', {
        connectionId: id,
        subscriptionId: sub.subscriptionId,
        error: (err as Error).message,
      });
      webhooks.notRemoved.push(sub.topic);
    }
  }
  return { id, status: 'disconnected' as const, webhooks };
}

/** The mockup a product is made from: exactly one of generationId, or chatJobId with mockupIndex (zod checks). */
export interface MockupSource {
  generationId?: string;
  chatJobId?: string;
  mockupIndex?: number;
}

export interface PublishRequest extends MockupSource {
  connectionId: string;
  title: string;
  description?: string;
  price?: number;
  sizes?: string[];
}

export const CHAT_JOB_NOT_FOUND = 'Chat job not found';
export const CHAT_JOB_NOT_COMPLETED = 'Chat job is not completed';

interface ResolvedMockup {
  source: 'generation' | 'chat';
  generationId: string | null;
  chatJobId: string | null;
  mockupIndex: number | null;
  mediaKey: string;
  garment: GarmentRow | undefined;
}

/**
 * The user's mockup named by the request: a completed generation's (404 not the user's, 409 not completed), or the
 * mockup at `mockupIndex` of the `mockups` of a completed design-chat job (404 not the user's or no such mockup, 409
 * not completed), with the catalogue garment it is on (a chat mockup's blank URL is a garment colour's image, or a
 * client's own photo: no garment).
 */
async function resolveMockup(deps: AppDeps, userId: string, src: MockupSource): Promise<ResolvedMockup> {
  if (src.generationId !== undefined) {
    // live generations only: a watermarked test-mode mockup never reaches a real store
    const gen = await getGeneration(deps.sql, userId, src.generationId, true);
    if (!gen) throw notFound('Generation not found');
    if (gen.status !== 'completed' || !gen.mockupKey) throw conflict('Generation is not completed');
    return {
      source: 'generation',
      generationId: gen.id,
      chatJobId: null,
      mockupIndex: null,
      mediaKey: gen.mockupKey,
      // a generation on a customer's template has no catalogue garment
      garment: gen.garmentId ? await getGarment(deps.sql, gen.garmentId) : undefined,
    };
  }
  const job = await getRenderJob(deps.sql, src.chatJobId!, userId);
  if (!job) throw notFound(CHAT_JOB_NOT_FOUND);
  if (job.status !== 'completed') throw conflict(CHAT_JOB_NOT_COMPLETED);
  const mockups = (await jobAssets(deps.sql, job.id)).filter((a) => a.kind === 'mockup');
  const m = mockups[src.mockupIndex!];
  if (!m)
    throw notFound(
      mockups.length === 0
        ? 'Mockup not found: the chat job made no mockups (it was given no garmentUrls)'
        : `Mockup not found: the chat job has ${mockups.length} mockup${mockups.length === 1 ? '' : 's'} (mockupIndex 0 to ${mockups.length - 1})`,
    );
  const blankKey = m.garmentUrl ? ownFileKey(deps.config.publicBaseUrl, m.garmentUrl) : null;
  return {
    source: 'chat',
    generationId: null,
    chatJobId: job.id,
    mockupIndex: m.position,
    mediaKey: m.storageKey,
    garment: blankKey ? await garmentOfBlankKey(deps.sql, blankKey) : undefined,
  };
}

/**
 * The mockup's print cost (USD cents) from its print file (docs/production.md "Cost model"): the file for the default
 * size, made now if it is not yet (production prints from the same file); null when the print has no physical size
 * (a chat mockup on a foreign blank): the spec's flat rate.
 */
async function mockupPrintCents(deps: AppDeps, userId: string, m: ResolvedMockup): Promise<number | null> {
  return createPrintFiles(deps).printCostCents(await mockupPrintSource(deps.sql, m, userId));
}

const presentProduct = (p: PublishedProductRow, devShopUrl?: string): z.infer<typeof productResource> => {
  const { costs, margin } = unitEconomics({
    price: p.basePriceCents / 100,
    blankPrice: p.blankPrice,
    printCents: p.printCostCents,
  });
  return {
    id: p.id,
    status: p.status,
    source: p.chatJobId ? 'chat' : 'generation',
    generationId: p.generationId,
    chatJobId: p.chatJobId,
    mockupIndex: p.mockupIndex,
    garmentId: p.garmentId,
    connectionId: p.connectionId,
    title: p.title,
    price: p.basePriceCents / 100,
    sizes: p.sizes,
    costs,
    margin,
    productId: p.shopifyProductId,
    handle: p.shopifyHandle,
    adminUrl: p.shopifyProductId ? productAdminUrl(p.shopDomain, p.shopifyProductId, devShopUrl) : null,
    error: p.error,
    createdAt: p.createdAt.toISOString(),
    publishedAt: p.publishedAt?.toISOString() ?? null,
  };
};

/**
 * GET /costs: the unit economics of publishing a mockup (the same source as publishing), at `price` (default the
 * suggested 59.99), with the image and the garment's sizes: what the dashboard's publish form shows before
 * publishing. Reads the database only, so it answers without Shopify configured too.
 */
export async function costEstimate(
  deps: AppDeps,
  userId: string,
  q: MockupSource & { price?: number },
): Promise<z.infer<typeof costEstimateResource>> {
  const m = await resolveMockup(deps, userId, q);
  const e = unitEconomics({
    price: q.price ?? SUGGESTED_PRICE,
    blankPrice: m.garment?.basePrice,
    printCents: await mockupPrintCents(deps, userId, m),
  });
  return {
    source: m.source,
    generationId: m.generationId,
    chatJobId: m.chatJobId,
    mockupIndex: m.mockupIndex,
    imageUrl: fileUrl(deps.config, m.mediaKey),
    garmentId: m.garment?.id ?? null,
    garmentName: m.garment?.name ?? null,
    sizes: m.garment?.sizes ?? [],
    price: e.price,
    suggestedPrice: SUGGESTED_PRICE,
    costs: e.costs,
    margin: e.margin,
  };
}

/**
 * POST /publish: the mockup (a generation's or a chat job's), the connection, the row, workflow publish-<id>; 200
 * when published within the sync budget, else 202. Both answers carry the unit price, costs and margin.
 */
export async function publish(deps: AppDeps, userId: string, body: PublishRequest) {
  configured(deps);
  const mockup = await resolveMockup(deps, userId, body);
  const conn = await getConnection(deps.sql, body.connectionId, userId);
  if (!conn) throw notFound('Connection not found');
  if (conn.status !== 'active' || !conn.accessTokenEnc) throw conflict(NOT_CONNECTED);
  const sizes = body.sizes ?? mockup.garment?.sizes ?? [];
  if (sizes.length === 0)
    throw badRequest(
      mockup.garment
        ? 'sizes: the garment has no sizes; give them'
        : "sizes: the mockup's blank is not a catalogue garment; give them",
    );
  const printCostCents = await mockupPrintCents(deps, userId, mockup);
  const id = `pub_${Date.now()}_${randomSuffix(10)}`;
  await insertPublishedProduct(deps.sql, {
    id,
    userId,
    generationId: mockup.generationId,
    chatJobId: mockup.chatJobId,
    mockupIndex: mockup.mockupIndex,
    garmentId: mockup.garment?.id ?? null,
    connectionId: conn.id,
    title: body.title,
    description: body.description ?? null,
    sizes,
    basePriceCents: toCents(body.price ?? DEFAULT_PRICE),
    printCostCents,
  });
  const handle = await deps.temporal.workflow.start(publishProduct, {
    workflowId: `publish-${id}`,
    taskQueue: deps.config.temporal.taskQueue,
    args: [{ publishedProductId: id, accountId: userId }],
    searchAttributes: { AccountId: [userId] },
  });
  const result = await within(deps.config.shopify.syncTimeoutMs, handle.result());
  const product = presentProduct((await getPublishedProduct(deps.sql, id, userId))!, deps.config.shopify.devShopUrl);
  const economics = { price: product.price, costs: product.costs, margin: product.margin };
  if (!result) return { status: 202, body: { id, status: 'publishing' as const, ...economics } };
  if (result.status === 'failed') {
    if (result.error === NOT_CONNECTED) throw conflict(NOT_CONNECTED);
    throw new ApiError(502, 'service_unavailable', `Publishing failed: ${result.error}`);
  }
  return {
    status: 200,
    body: {
      id,
      status: 'published' as const,
      productId: product.productId,
      adminUrl: product.adminUrl,
      ...economics,
    },
  };
}

export async function products(deps: AppDeps, userId: string) {
  return (await listPublishedProducts(deps.sql, userId)).map((p) => presentProduct(p, deps.config.shopify.devShopUrl));
}

/** Shopify retries a failed delivery for up to 48 hours; an older X-Shopify-Triggered-At is not a delivery. */
export const WEBHOOK_MAX_AGE_MS = 48 * 3600_000;
export const STALE_WEBHOOK = 'Stale delivery: X-Shopify-Triggered-At is more than 48 hours old';
export const SHOP_DOMAIN_MISMATCH = 'shop_domain in the body does not match X-Shopify-Shop-Domain';

/** Topics whose body names the shop (`shop_domain`); app/uninstalled's body is the shop (`myshopify_domain`). */
const COMPLIANCE = new Set<string>(COMPLIANCE_TOPICS);

const header = (req: Request, name: string): string | undefined => {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
};

/**
 * POST /webhooks/orders: the library checks X-Shopify-Hmac-Sha256 over the raw body (401 when missing or wrong)
 * and the required headers. The headers (topic, shop, webhook id, event id, triggered-at) are not signed, so: a
 * compliance request whose body names another shop than X-Shopify-Shop-Domain is refused (400), as is an
 * app/uninstalled whose shop is another; a delivery triggered more than 48 hours ago is refused (400). The webhook
 * is stored before the answer, unless it was stored before: the same webhook id (a retry), the same
 * X-Shopify-Event-Id (or, without one, the same topic + body), or for an order topic the same topic + body (a
 * captured order re-sent under fresh ids). A duplicate is answered 200 and starts nothing new; a new one's
 * workflow shopify-webhook-<id> is started after the answer.
 */
export async function receiveWebhook(deps: AppDeps, req: Request, res: Response, rawBody: string) {
  const { g } = configured(deps);
  const v = await g.api.webhooks.validate({ rawBody, rawRequest: req, rawResponse: res });
  if (!v.valid) {
    if ('missingHeaders' in v) throw badRequest(`Missing headers: ${v.missingHeaders.join(', ')}`);
    throw unauthorized(INVALID_HMAC);
  }
  const id = String(header(req, 'x-shopify-webhook-id'));
  const topic = String(header(req, 'x-shopify-topic'));
  const shop = String(header(req, 'x-shopify-shop-domain'));
  const eventId = header(req, 'x-shopify-event-id');
  const triggered = header(req, 'x-shopify-triggered-at');
  if (id.length > 200 || !/^[\w.:-]+$/.test(id)) throw badRequest('Invalid X-Shopify-Webhook-Id');
  if (!validShopDomain(shop)) throw badRequest('Invalid X-Shopify-Shop-Domain');
  if (eventId !== undefined && (eventId.length > 200 || !/^[\w.:-]+$/.test(eventId)))
    throw badRequest('Invalid X-Shopify-Event-Id');
  let triggeredAt: Date | null = null;
  if (triggered !== undefined) {
    triggeredAt = new Date(triggered);
    if (Number.isNaN(triggeredAt.getTime())) throw badRequest('Invalid X-Shopify-Triggered-At');
    if (Date.now() - triggeredAt.getTime() > WEBHOOK_MAX_AGE_MS) throw badRequest(STALE_WEBHOOK);
  }
  let body: unknown;
  try {
    body = parseJsonKeepingBigIntegers(rawBody); // 64-bit ids kept exact (as strings), never rounded
  } catch (err) {
    // only a body that is not JSON is the sender's fault (a Node without source text access is ours: a 500)
    if (err instanceof SyntaxError) throw badRequest('Malformed JSON body');
    throw err;
  }
  const named = (field: string) =>
    body !== null && typeof body === 'object' ? (body as Record<string, unknown>)[field] : undefined;
  if (COMPLIANCE.has(topic) && named('shop_domain') !== shop) throw badRequest(SHOP_DOMAIN_MISMATCH);
  const shopOfBody = named('myshopify_domain');
  if (topic === 'app/uninstalled' && shopOfBody !== undefined && shopOfBody !== shop)
    throw badRequest('myshopify_domain in the body does not match X-Shopify-Shop-Domain');

  const bodySha256 = createHash('sha256').update(`${topic}\n`).update(rawBody).digest('hex');
  const stored = await storeWebhook(deps.sql, {
    id,
    topic,
    shopDomain: shop,
    apiVersion: header(req, 'x-shopify-api-version') ?? null,
    body,
    dedupKey: eventId ? `event:${eventId}` : `sha256:${bodySha256}`,
    bodySha256,
    eventId: eventId ?? null,
    triggeredAt,
  });
  // Stored: the answer goes out now, and the workflow is started after it (`dispatch`). If that start fails (the
  // API dies, Temporal is unreachable), the inbound sweep starts it within a minute. A duplicate of a delivery
  // still waiting starts that delivery's workflow (the same id: started once).
  const dispatch =
    stored.inserted || stored.status === 'received'
      ? async () => {
          const [owner] = await connectionsOfShop(deps.sql, shop);
          await startInboundWorkflow(
            deps.temporal,
            deps.config.temporal.taskQueue,
            shopifyWebhookStart(shopifyWebhook, stored.id, owner?.userId ?? null),
          );
        }
      : undefined;
  return { received: true, duplicate: !stored.inserted, dispatch };
}

const presentOrder = (o: OrderRow, production: ProductionMap = new Map()): z.infer<typeof orderResource> => ({
  id: o.id,
  shopDomain: o.shopDomain,
  shopifyOrderId: o.shopifyOrderId,
  name: o.name,
  status: o.status,
  customer: { name: o.customerName, email: o.customerEmail },
  lineItems: o.lineItems,
  total: o.total,
  currency: o.currency,
  tracking: (o.tracking as Tracking | null) ?? null,
  createdAt: o.createdAt.toISOString(),
  production: production.get(o.id) ?? null,
});

/** The user's orders (newest 200), or those of `only` ids in that order, each with its production. */
export async function orders(deps: AppDeps, userId: string, only?: OrderRow[]) {
  const rows = only ?? (await listOrders(deps.sql, userId));
  const production = await productionByOrder(
    deps,
    rows.map((o) => o.id),
  );
  return rows.map((o) => presentOrder(o, production));
}

/** POST /orders/<id>/fulfillment: workflow fulfillment-<order id>; 200 once the store has it, else 202. */
export async function fulfill(deps: AppDeps, userId: string, orderId: string, tracking: Tracking) {
  configured(deps);
  const order = await getOrder(deps.sql, orderId, userId);
  if (!order) throw notFound('Order not found');
  if (order.status === 'fulfilled') throw conflict('Order is already fulfilled');
  const conn = await getConnection(deps.sql, order.connectionId, userId);
  if (!conn || conn.status !== 'active') throw conflict(NOT_CONNECTED);
  let handle;
  try {
    handle = await deps.temporal.workflow.start(fulfillment, {
      workflowId: `fulfillment-${order.id}`,
      taskQueue: deps.config.temporal.taskQueue,
      args: [{ orderId: order.id, accountId: userId, tracking }],
      searchAttributes: { AccountId: [userId] },
    });
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    handle = deps.temporal.workflow.getHandle<typeof fulfillment>(`fulfillment-${order.id}`);
  }
  const h = handle;
  const result = await within(deps.config.shopify.syncTimeoutMs, h.result());
  if (!result) return { status: 202, body: { id: order.id, status: 'fulfilling' } };
  if (result.status === 'failed') {
    if (result.error === NOT_CONNECTED) throw conflict(NOT_CONNECTED);
    throw new ApiError(502, 'service_unavailable', `Fulfillment failed: ${result.error}`);
  }
  return { status: 200, body: (await orders(deps, userId, [(await getOrder(deps.sql, order.id, userId))!]))[0]! };
}

/**
 * GET /data-requests: the exports made for customers/data_request webhooks received while the user's connection to
 * the shop was active, each from the user's own orders, for the merchant to hand to the customer (Shopify has no
 * API to deliver them). Erased after SHOPIFY_DATA_REQUEST_RETENTION.
 */
export async function dataRequests(deps: AppDeps, userId: string) {
  return (await listDataRequests(deps.sql, userId)).map((r): z.infer<typeof dataRequestResource> => ({
    id: r.id,
    shopDomain: r.shopDomain,
    customer: r.customer ?? { id: null, email: null },
    ordersRequested: r.ordersRequested ?? [],
    orders: r.orders as z.infer<typeof dataRequestResource>['orders'],
    receivedAt: r.receivedAt.toISOString(),
    processedAt: r.processedAt?.toISOString() ?? null,
  }));
}
