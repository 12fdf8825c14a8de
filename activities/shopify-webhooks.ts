// Activities of the shopifyWebhook workflow and the webhook retention: a stored Shopify webhook applied by topic
// (orders, app/uninstalled, the compliance topics), and raw bodies and exports erased after their retention.
import { connectionsOfShop, disconnect, forgetWebhookSubscriptions } from '../db/storefront';
import { customerOrders, redactCustomer, redactShop, upsertOrder } from '../db/storefront-orders';
import { eraseExpiredWebhookData, finishWebhook, getWebhook } from '../db/shopify-webhooks';
import { publishedByShopifyIds } from '../db/storefront-products';
import { randomSuffix } from '../lib/ids';
import type { ProductionWorkflowInput } from '../lib/production/types';
import { parseCompliance, parseOrder } from '../lib/storefront/orders';
import { StorefrontErrors, type ShopifyWebhookResult } from '../lib/storefront/types';
import { nonRetryable as fail, type BookkeepingDeps } from './deps';

/** Webhook rows per statement of the retention sweep. */
const RETENTION_PAGE = 5000;

export function createShopifyWebhookActivities({ sql, config, log, metrics }: BookkeepingDeps) {
  return {
    /**
     * Applies a stored webhook by topic; idempotent (orders upsert, statuses only move forward). A malformed payload
     * marks the row failed and fails non-retryably, so neither a retry nor the inbound sweep takes it up again.
     */
    async processShopifyWebhook({
      webhookId,
    }: {
      webhookId: string;
    }): Promise<ShopifyWebhookResult & { production?: ProductionWorkflowInput[] }> {
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
          const production: ProductionWorkflowInput[] = [];
          for (const c of active) {
            const productIds = [...new Set(o.lineItems.flatMap((li) => li.shopifyProductId ?? []))];
            const linked = new Map(
              (await publishedByShopifyIds(sql, c.id, productIds)).map((p) => [p.shopifyProductId, p.id]),
            );
            const orderId = await upsertOrder(sql, {
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
              shipToName: o.shipToName,
            });
            // a paid order with items of published products goes to production (docs/production.md)
            if (w.topic === 'orders/paid' && linked.size > 0) production.push({ orderId, accountId: c.userId });
          }
          return { ...(await done(active.length ? 'processed' : 'ignored')), production };
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
  };
}
