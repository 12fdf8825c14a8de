// The orders from the connected stores with their production, fulfillment tracking sent to the store (workflow
// fulfillment-<order id>), and customers' data requests.
import { productionByOrder, type ProductionMap } from '../production';
import type { z } from 'zod';
import type { dataRequestResource, orderResource } from '../../http/resources';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { getConnection } from '../../../db/storefront';
import { getOrder, listOrders, type OrderRow } from '../../../db/storefront-orders';
import { listDataRequests } from '../../../db/shopify-webhooks';
import { type Tracking } from '../../../lib/storefront/types';
import { within } from '../../../lib/wait';
import { fulfillment } from '../../../workflows';
import type { AppDeps } from '../../context';
import { ApiError, conflict, notFound } from '../../errors';
import { configured, NOT_CONNECTED } from './common';

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
