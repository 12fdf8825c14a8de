// One order and the production queue (issue 36, docs/production.md), presented as every storefront order is.
import { productionQueue } from '../../db/production';
import { getOrder, type OrderRow } from '../../db/storefront-orders';
import type { AppDeps } from '../context';
import { notFound } from '../errors';
import { orders } from './storefront/orders';

/** GET /storefront/orders/<id>: one of the user's orders, with its production. */
export async function oneOrder(deps: AppDeps, userId: string, orderId: string) {
  const row = await getOrder(deps.sql, orderId, userId);
  if (!row) throw notFound('Order not found');
  return (await orders(deps, userId, [row]))[0]!;
}

/** GET /storefront/production-queue: the user's paid, unfulfilled orders in production, oldest first. */
export async function queue(deps: AppDeps, userId: string) {
  const ids = (await productionQueue(deps.sql, userId)).map((r) => r.id);
  const rows = (await Promise.all(ids.map((id) => getOrder(deps.sql, id, userId)))).filter(
    (o): o is OrderRow => o !== undefined,
  );
  return orders(deps, userId, rows);
}
