// Orders from the connected stores, and what a customer's or a shop's redaction request erases of them.
import type postgres from 'postgres';
import type { Sql, Tx } from './client';
import { forgetWebhookSubscriptions } from './storefront';

export interface LineItem {
  /** Shopify's line item id (absent in orders recorded before issue 36) */
  lineItemId?: string | null;
  title: string;
  variantTitle: string | null;
  quantity: number;
  price: string;
  shopifyProductId: string | null;
  publishedProductId: string | null;
}

export interface OrderRow {
  id: string;
  connectionId: string;
  userId: string;
  shopDomain: string;
  shopifyOrderId: string;
  name: string;
  customerId: string | null;
  customerName: string | null;
  customerEmail: string | null;
  lineItems: LineItem[];
  total: string;
  currency: string;
  status: 'open' | 'paid' | 'fulfilled';
  fulfillmentId: string | null;
  tracking: unknown;
  createdAt: Date;
}

const orderColumns = (sql: Sql) => sql`
  id, connection_id as "connectionId", user_id as "userId", shop_domain as "shopDomain",
  shopify_order_id as "shopifyOrderId", name, customer_id as "customerId", customer_name as "customerName",
  customer_email as "customerEmail", line_items as "lineItems", total, currency, status,
  fulfillment_id as "fulfillmentId", tracking, created_at as "createdAt"`;

/**
 * Records an order from orders/create or orders/paid. A second delivery of the same order changes nothing but
 * the status, which only moves forward (open → paid → fulfilled): a late orders/create does not undo a payment.
 */
export async function upsertOrder(
  sql: Sql,
  o: Omit<OrderRow, 'fulfillmentId' | 'tracking' | 'createdAt' | 'status'> & {
    status: 'open' | 'paid';
    shipToName?: string | null;
  },
): Promise<string> {
  const [row] = await sql<{ id: string }[]>`
    insert into shopify_orders (id, connection_id, user_id, shop_domain, shopify_order_id, name, customer_id,
      customer_name, customer_email, line_items, total, currency, status, ship_to_name)
    values (${o.id}, ${o.connectionId}, ${o.userId}, ${o.shopDomain}, ${o.shopifyOrderId}, ${o.name}, ${o.customerId},
      ${o.customerName}, ${o.customerEmail}, ${sql.json(o.lineItems as never)}, ${o.total}, ${o.currency}, ${o.status},
      ${o.shipToName ?? null})
    on conflict (connection_id, shopify_order_id) do update set
      status = case when shopify_orders.status = 'open' and excluded.status = 'paid' then 'paid' else shopify_orders.status end,
      updated_at = now()
    returning id`;
  return row!.id;
}

export async function getOrder(sql: Sql, id: string, userId?: string) {
  const [row] = await sql<OrderRow[]>`select ${orderColumns(sql)} from shopify_orders
    where id = ${id} ${userId ? sql`and user_id = ${userId}` : sql``}`;
  return row;
}

export function listOrders(sql: Sql, userId: string) {
  return sql<OrderRow[]>`select ${orderColumns(sql)} from shopify_orders where user_id = ${userId}
    order by created_at desc, id desc limit 200`;
}

export async function markOrderFulfilled(sql: Sql, id: string, fulfillmentId: string, tracking: unknown) {
  await sql`update shopify_orders set status = 'fulfilled', fulfillment_id = ${fulfillmentId},
    tracking = ${sql.json(tracking as never)}, updated_at = now() where id = ${id}`;
}

/**
 * customers/data_request: what one connection holds about a customer of its shop (the orders it took for its own
 * user, never another account's).
 */
export function customerOrders(
  sql: Sql,
  connectionId: string,
  customer: { id?: string; email?: string },
  orderIds: string[],
) {
  return sql<OrderRow[]>`select ${orderColumns(sql)} from shopify_orders where connection_id = ${connectionId} and (
      ${customer.id ? sql`customer_id = ${customer.id}` : sql`false`}
      or ${customer.email ? sql`lower(customer_email) = lower(${customer.email})` : sql`false`}
      or ${orderIds.length ? sql`shopify_order_id in ${sql(orderIds)}` : sql`false`})
    order by created_at, id`;
}

/**
 * customers/redact: erases a customer's name, email and id from the shop's orders, and the stored webhooks that
 * carry them: the raw bodies of order webhooks for those orders or that customer, and earlier compliance requests
 * (and data_request exports) naming the customer. `exceptWebhookId` is the redact request itself, erased when it is
 * finished (finishWebhook) so that a retried step still has its body.
 */
export async function redactCustomer(
  sql: Sql,
  shopDomain: string,
  customer: { id?: string; email?: string },
  orderIds: string[],
  exceptWebhookId: string,
) {
  return sql.begin(async (tx) => {
    const rows =
      await tx`update shopify_orders set customer_id = null, customer_name = null, customer_email = null, ship_to_name = null,
        updated_at = now()
      where shop_domain = ${shopDomain} and (
        ${customer.id ? tx`customer_id = ${customer.id}` : tx`false`}
        or ${customer.email ? tx`lower(customer_email) = lower(${customer.email})` : tx`false`}
        or ${orderIds.length ? tx`shopify_order_id in ${tx(orderIds)}` : tx`false`})
      returning id`;
    const email = customer.email?.toLowerCase();
    const webhooks = await eraseWebhookData(
      tx,
      shopDomain,
      exceptWebhookId,
      tx`(
        ${customer.id ? tx`body->'customer'->>'id' = ${customer.id}` : tx`false`}
        or ${email ? tx`strpos(lower(body::text), ${email}) > 0 or strpos(lower(result::text), ${email}) > 0` : tx`false`}
        or ${
          orderIds.length
            ? tx`(topic like 'orders/%' and (body->>'admin_graphql_api_id' in ${tx(orderIds)}
                or ('gid://shopify/Order/' || (body->>'id')) in ${tx(orderIds)}))`
            : tx`false`
        })`,
    );
    return { orders: rows.length, webhooks };
  });
}

/**
 * Erases the body and result of the shop's stored webhooks that still hold data and match `which`, but the
 * redaction request's own (finishWebhook erases that one) and other redaction requests still waiting to run (each
 * needs its body, and erases it when done); returns how many.
 */
async function eraseWebhookData(
  tx: Tx,
  shopDomain: string,
  exceptWebhookId: string,
  which: postgres.PendingQuery<postgres.Row[]>,
) {
  const rows = await tx`update shopify_webhooks set body = null, result = null
    where shop_domain = ${shopDomain} and id <> ${exceptWebhookId} and (body is not null or result is not null)
      and not (status = 'received' and topic in ('customers/redact', 'shop/redact'))
      and ${which}
    returning id`;
  return rows.length;
}

/**
 * shop/redact: erases everything held about a shop's customers (its orders, the bodies and results of its stored
 * webhooks but the request's own, which finishWebhook erases) and drops its tokens.
 */
export async function redactShop(sql: Sql, shopDomain: string, exceptWebhookId: string) {
  return sql.begin(async (tx) => {
    const orders = await tx`delete from shopify_orders where shop_domain = ${shopDomain} returning id`;
    const webhooks = await eraseWebhookData(tx, shopDomain, exceptWebhookId, tx`true`);
    await tx`update shopify_connections set status = 'disconnected', access_token_enc = null, updated_at = now()
      where shop_domain = ${shopDomain}`;
    await forgetWebhookSubscriptions(tx, shopDomain);
    return { orders: orders.length, webhooks };
  });
}
