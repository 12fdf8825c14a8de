// Activities of the storefront workflows: publish a mockup as a Shopify product (productSet, upsert by handle so a
// re-run updates the same product), process a stored Shopify webhook, send fulfillment tracking. Shopify refusals
// and missing rows are non-retryable (StorefrontErrors); network trouble, 429 and 5xx are retried by the workflow.
import { ApplicationFailure } from '@temporalio/activity';
import type { Sql } from '../db/client';
import {
  connectionsOfShop,
  customerOrders,
  disconnect,
  eraseExpiredWebhookData,
  finishWebhook,
  forgetWebhookSubscriptions,
  getConnection,
  getOrder,
  getPublishedProduct,
  getWebhook,
  markOrderFulfilled,
  markPublished,
  markPublishFailed,
  productMediaKey,
  publishedByShopifyIds,
  redactCustomer,
  redactShop,
  upsertOrder,
  type ConnectionRow,
} from '../db/storefront';
import type { Config } from '../lib/config';
import { randomSuffix } from '../lib/ids';
import type { Logger } from '../lib/log';
import type { AppMetrics } from '../lib/metrics';
import { gatewayFor, ShopifyRefusedError, userErrorMessage, type ShopifyGateway } from '../lib/shopify/client';
import {
  FULFILLABLE_STATUSES,
  FULFILLMENT_CREATE,
  ORDER_FULFILLMENT_ORDERS,
  PRODUCT_SET,
  type FulfillmentCreateData,
  type OrderFulfillmentOrdersData,
  type ProductSetData,
} from '../lib/shopify/operations';
import { fileUrl } from '../lib/storage';
import { parseCompliance, parseOrder } from '../lib/storefront/orders';
import {
  StorefrontErrors,
  type ShopifyProductRef,
  type ShopifyWebhookResult,
  type Tracking,
} from '../lib/storefront/types';
import { decryptToken } from '../lib/token-cipher';

export interface StorefrontActivityDeps {
  sql: Sql;
  config: Config;
  log: Logger;
  metrics?: AppMetrics;
}

const fail = (type: string, message: string) => ApplicationFailure.nonRetryable(message, type);

/** Webhook rows per statement of the retention sweep. */
const RETENTION_PAGE = 5000;

export function createStorefrontActivities({ sql, config, log, metrics }: StorefrontActivityDeps) {
  const gateway = (): ShopifyGateway => {
    const g = gatewayFor(config);
    if (!g) throw fail(StorefrontErrors.StoreNotConnected, 'SHOPIFY_API_KEY and SHOPIFY_API_SECRET are not set');
    return g;
  };

  /** The connection's token, or a non-retryable StoreNotConnected. */
  const tokenOf = (c: ConnectionRow | undefined): string => {
    if (!c || c.status !== 'active' || !c.accessTokenEnc)
      throw fail(StorefrontErrors.StoreNotConnected, 'Store is not connected');
    if (!config.shopify.tokenKey) throw fail(StorefrontErrors.StoreNotConnected, 'TOKEN_ENCRYPTION_KEY is not set');
    return decryptToken(config.shopify.tokenKey, c.accessTokenEnc);
  };

  /** Shopify refusals become non-retryable failures; transient errors are thrown as they are (retried). */
  const call = async <T>(f: () => Promise<T>): Promise<T> => {
    try {
      return await f();
    } catch (err) {
      if (err instanceof ShopifyRefusedError) throw fail(StorefrontErrors.Rejected, err.message);
      throw err;
    }
  };

  return {
    /**
     * Creates (or, on a re-run, updates) the product with productSet: title, description, the mockup as media, a
     * Size option with one variant per size at the price. The handle mockup-<published product id> identifies it,
     * so running twice never makes two products.
     */
    async publishToShopify({ publishedProductId }: { publishedProductId: string }): Promise<ShopifyProductRef> {
      const p = await getPublishedProduct(sql, publishedProductId);
      if (!p) throw fail(StorefrontErrors.NotFound, `published product ${publishedProductId} not found`);
      const token = tokenOf(await getConnection(sql, p.connectionId));
      const mediaKey = await productMediaKey(sql, p);
      if (!mediaKey)
        throw fail(
          StorefrontErrors.NotFound,
          p.generationId
            ? `generation ${p.generationId} has no mockup`
            : `chat job ${p.chatJobId} has no mockup ${p.mockupIndex}`,
        );
      const price = (p.basePriceCents / 100).toFixed(2);
      const handle = `mockup-${p.id.replace(/_/g, '-')}`;
      const data = await call(() =>
        gateway().graphql<ProductSetData>(p.shopDomain, token, PRODUCT_SET, {
          synchronous: true,
          identifier: { handle },
          input: {
            title: p.title,
            descriptionHtml: p.description ?? '',
            handle,
            status: 'ACTIVE',
            productOptions: [{ name: 'Size', position: 1, values: p.sizes.map((name) => ({ name })) }],
            variants: p.sizes.map((size) => ({ optionValues: [{ optionName: 'Size', name: size }], price })),
            files: [{ originalSource: fileUrl(config, mediaKey), contentType: 'IMAGE', alt: p.title }],
          },
        }),
      );
      const errors = userErrorMessage(data.productSet.userErrors);
      if (errors || !data.productSet.product)
        throw fail(StorefrontErrors.Rejected, `productSet refused: ${errors ?? 'no product returned'}`);
      log.info('product published to shopify', { publishedProductId, productId: data.productSet.product.id });
      return { productId: data.productSet.product.id, handle: data.productSet.product.handle };
    },

    async recordPublished(input: { publishedProductId: string } & ShopifyProductRef): Promise<void> {
      await markPublished(sql, input.publishedProductId, input.productId, input.handle);
    },

    async recordPublishFailed(input: { publishedProductId: string; error: string }): Promise<void> {
      await markPublishFailed(sql, input.publishedProductId, input.error.slice(0, 1000));
    },

    /**
     * Applies a stored webhook by topic; idempotent (orders upsert, statuses only move forward). A malformed payload
     * marks the row failed and fails non-retryably, so neither a retry nor the inbound sweep takes it up again.
     */
    async processShopifyWebhook({ webhookId }: { webhookId: string }): Promise<ShopifyWebhookResult> {
      const w = await getWebhook(sql, webhookId);
      if (!w) throw fail(StorefrontErrors.BadWebhook, `webhook ${webhookId} not stored`);
      // a re-run after the outcome was recorded (its body may be erased by now) changes nothing
      if (w.status === 'processed' || w.status === 'ignored') return { status: w.status, topic: w.topic };
      if (w.status === 'failed') throw fail(StorefrontErrors.BadWebhook, `webhook ${webhookId} failed before`);
      const done = async (
        status: 'processed' | 'ignored',
        result: unknown = null,
        opts: { eraseBody?: boolean } = {},
      ): Promise<ShopifyWebhookResult> => {
        await finishWebhook(sql, webhookId, status, result, opts);
        metrics?.shopifyWebhook(w.topic, status);
        return { status, topic: w.topic };
      };
      const malformed = async (error: string): Promise<never> => {
        await finishWebhook(sql, webhookId, 'failed', { error });
        metrics?.shopifyWebhook(w.topic, 'failed');
        throw fail(StorefrontErrors.BadWebhook, error);
      };
      const compliance = async () => {
        const parsed = parseCompliance(w.body);
        return parsed.ok ? parsed.request : malformed(parsed.error);
      };
      const connections = await connectionsOfShop(sql, w.shopDomain);

      switch (w.topic) {
        case 'orders/create':
        case 'orders/paid': {
          const parsed = parseOrder(w.body);
          if (!parsed.ok) return malformed(parsed.error);
          const o = parsed.order;
          const active = connections.filter((c) => c.status === 'active');
          for (const c of active) {
            const productIds = [...new Set(o.lineItems.flatMap((li) => li.shopifyProductId ?? []))];
            const linked = new Map(
              (await publishedByShopifyIds(sql, c.id, productIds)).map((p) => [p.shopifyProductId, p.id]),
            );
            await upsertOrder(sql, {
              id: `ord_${Date.now()}_${randomSuffix(10)}`,
              connectionId: c.id,
              userId: c.userId,
              shopDomain: w.shopDomain,
              shopifyOrderId: o.shopifyOrderId,
              name: o.name,
              customerId: o.customerId,
              customerName: o.customerName,
              customerEmail: o.customerEmail,
              lineItems: o.lineItems.map((li) => ({
                ...li,
                publishedProductId: li.shopifyProductId ? (linked.get(li.shopifyProductId) ?? null) : null,
              })),
              total: o.total,
              currency: o.currency,
              status: w.topic === 'orders/paid' ? 'paid' : 'open',
            });
          }
          return done(active.length ? 'processed' : 'ignored');
        }
        case 'app/uninstalled': {
          const rows = await disconnect(sql, { shopDomain: w.shopDomain });
          // Shopify drops an uninstalled app's webhook subscriptions itself: nothing left to delete
          await forgetWebhookSubscriptions(sql, w.shopDomain);
          return done('processed', { disconnected: rows.map((r) => r.id) });
        }
        case 'customers/data_request': {
          const request = await compliance();
          // One export per connection that was active when the request was received (connected before it, and
          // not disconnected since), from that connection's own orders (GET /api/storefront/data-requests lists a
          // user's own). A user who connected later, or who disconnected, gets none; another account's orders are
          // never in a user's export. What was asked is kept with it, so it stands alone once the body is erased.
          const owners = connections.filter(
            (c) => c.status === 'active' && c.installedAt !== null && c.installedAt <= w.receivedAt,
          );
          const exports: Record<string, unknown[]> = {};
          for (const c of owners) {
            const rows = await customerOrders(sql, c.id, request.customer, request.orderIds);
            exports[c.userId] = rows.map((r) => ({
              order: r.shopifyOrderId,
              name: r.name,
              customer: { id: r.customerId, name: r.customerName, email: r.customerEmail },
              lineItems: r.lineItems,
              total: r.total,
              currency: r.currency,
              createdAt: r.createdAt.toISOString(),
            }));
          }
          log.info('shopify customer data request exported', {
            webhookId,
            shop: w.shopDomain,
            accounts: owners.length,
            orders: Object.values(exports).reduce((n, e) => n + e.length, 0),
          });
          return done(owners.length ? 'processed' : 'ignored', {
            customer: { id: request.customer.id ?? null, email: request.customer.email ?? null },
            ordersRequested: request.orderIds,
            exports,
          });
        }
        case 'customers/redact': {
          const request = await compliance();
          const n = await redactCustomer(sql, w.shopDomain, request.customer, request.orderIds, webhookId);
          return done('processed', { ordersRedacted: n.orders, webhooksErased: n.webhooks }, { eraseBody: true });
        }
        case 'shop/redact': {
          const n = await redactShop(sql, w.shopDomain, webhookId);
          return done('processed', { ordersDeleted: n.orders, webhooksErased: n.webhooks }, { eraseBody: true });
        }
        default:
          return done('ignored');
      }
    },

    /**
     * Retention, run by the hourly maintenance sweep: erases raw webhook bodies SHOPIFY_WEBHOOK_BODY_RETENTION after
     * processing and data_request exports SHOPIFY_DATA_REQUEST_RETENTION after they were made, a page at a time.
     */
    async eraseExpiredShopifyWebhookData(): Promise<{ bodies: number; exports: number }> {
      const total = { bodies: 0, exports: 0 };
      for (;;) {
        const n = await eraseExpiredWebhookData(
          sql,
          config.shopify.webhookBodyRetentionMs,
          config.shopify.dataRequestRetentionMs,
          RETENTION_PAGE,
        );
        total.bodies += n.bodies;
        total.exports += n.exports;
        if (n.bodies < RETENTION_PAGE && n.exports < RETENTION_PAGE) break;
      }
      if (total.bodies || total.exports) log.info('erased expired shopify webhook data', total);
      return total;
    },

    /**
     * Sends the tracking to the store: the order's fulfillment orders still open, then one fulfillmentCreate with
     * the tracking info. A re-run after a lost completion finds nothing open and returns the fulfillment recorded
     * by the shop run before (the fulfillment id is then the one we recorded, or "already-fulfilled").
     */
    async sendFulfillment({
      orderId,
      tracking,
    }: {
      orderId: string;
      tracking: Tracking;
    }): Promise<{ fulfillmentId: string }> {
      const o = await getOrder(sql, orderId);
      if (!o) throw fail(StorefrontErrors.NotFound, `order ${orderId} not found`);
      if (o.fulfillmentId) return { fulfillmentId: o.fulfillmentId };
      const token = tokenOf(await getConnection(sql, o.connectionId));
      const g = gateway();
      const fo = await call(() =>
        g.graphql<OrderFulfillmentOrdersData>(o.shopDomain, token, ORDER_FULFILLMENT_ORDERS, { id: o.shopifyOrderId }),
      );
      if (!fo.order) throw fail(StorefrontErrors.NotFound, `order ${o.shopifyOrderId} not found in ${o.shopDomain}`);
      const open = fo.order.fulfillmentOrders.nodes.filter((n) => FULFILLABLE_STATUSES.includes(n.status));
      if (open.length === 0) {
        if (fo.order.fulfillmentOrders.nodes.some((n) => n.status === 'CLOSED'))
          return { fulfillmentId: 'already-fulfilled' };
        throw fail(StorefrontErrors.Rejected, `order ${o.name} has no fulfillment order to fulfill`);
      }
      const data = await call(() =>
        g.graphql<FulfillmentCreateData>(o.shopDomain, token, FULFILLMENT_CREATE, {
          fulfillment: {
            lineItemsByFulfillmentOrder: open.map((n) => ({ fulfillmentOrderId: n.id })),
            trackingInfo: {
              number: tracking.number,
              company: tracking.company,
              ...(tracking.url ? { url: tracking.url } : {}),
            },
            notifyCustomer: true,
          },
        }),
      );
      const errors = userErrorMessage(data.fulfillmentCreate.userErrors);
      if (errors || !data.fulfillmentCreate.fulfillment)
        throw fail(StorefrontErrors.Rejected, `fulfillmentCreate refused: ${errors ?? 'no fulfillment returned'}`);
      log.info('fulfillment sent to shopify', { orderId, fulfillmentId: data.fulfillmentCreate.fulfillment.id });
      return { fulfillmentId: data.fulfillmentCreate.fulfillment.id };
    },

    async recordFulfillment(input: { orderId: string; fulfillmentId: string; tracking: Tracking }): Promise<void> {
      await markOrderFulfilled(sql, input.orderId, input.fulfillmentId, input.tracking);
    },
  };
}

export type StorefrontActivities = ReturnType<typeof createStorefrontActivities>;
