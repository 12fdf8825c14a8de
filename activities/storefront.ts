// Activities of the storefront workflows: publish a mockup as a Shopify product (productSet, upsert by handle so a
// re-run updates the same product), send fulfillment tracking; a stored Shopify webhook's in shopify-webhooks.ts. Shopify refusals
// and missing rows are non-retryable (StorefrontErrors); network trouble, 429 and 5xx are retried by the workflow.
import { getConnection, type ConnectionRow } from '../db/storefront';
import { getOrder, markOrderFulfilled } from '../db/storefront-orders';
import { getPublishedProduct, markPublished, markPublishFailed, productMediaKey } from '../db/storefront-products';
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
import { StorefrontErrors, type ShopifyProductRef, type Tracking } from '../lib/storefront/types';
import { decryptToken } from '../lib/token-cipher';
import { nonRetryable as fail, type BookkeepingDeps } from './deps';
import { createShopifyWebhookActivities } from './shopify-webhooks';

export type StorefrontActivityDeps = BookkeepingDeps;

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
    ...createShopifyWebhookActivities({ sql, config, log, metrics }),

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
