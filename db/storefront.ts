// Storefront tables (009_storefront.sql): Shopify connections, OAuth states, published products, orders and the
// webhooks received. Every change is keyed so a step that runs twice changes nothing the second time.
import type postgres from 'postgres';
import type { Sql, Tx } from './client';

export type ConnectionStatus = 'pending' | 'active' | 'disconnected';

export interface ConnectionRow {
  id: string;
  userId: string;
  shopDomain: string;
  shopName: string | null;
  status: ConnectionStatus;
  accessTokenEnc: Buffer | null;
  installedAt: Date | null;
}

const connectionColumns = (sql: Sql) => sql`
  id, user_id as "userId", shop_domain as "shopDomain", shop_name as "shopName", status,
  access_token_enc as "accessTokenEnc", installed_at as "installedAt"`;

export async function insertOAuthState(sql: Sql, s: { state: string; userId: string; shop: string; ttlMs: number }) {
  await sql`
    insert into shopify_oauth_states (state, user_id, shop, expires_at)
    values (${s.state}, ${s.userId}, ${s.shop}, now() + ${s.ttlMs} * interval '1 millisecond')`;
}

/**
 * Uses a state once, and only for the user it was issued to: true when it exists, was issued to `userId` for this
 * shop, is unused and unexpired. Another user's callback leaves it untouched.
 */
export async function consumeOAuthState(sql: Sql, state: string, shop: string, userId: string): Promise<boolean> {
  const rows = await sql`
    update shopify_oauth_states set used_at = now()
    where state = ${state} and shop = ${shop} and user_id = ${userId} and used_at is null and expires_at > now()
    returning state`;
  return rows.length === 1;
}

/** The user's connection to a shop, created (pending) if there is none: a reconnect reuses the row. */
export async function upsertConnection(sql: Sql, c: { id: string; userId: string; shopDomain: string }) {
  const [row] = await sql<ConnectionRow[]>`
    insert into shopify_connections (id, user_id, shop_domain) values (${c.id}, ${c.userId}, ${c.shopDomain})
    on conflict (user_id, shop_domain) do update set updated_at = now()
    returning ${connectionColumns(sql)}`;
  return row!;
}

export async function storeConnectionToken(sql: Sql, id: string, tokenEnc: Buffer, scopes: string) {
  await sql`update shopify_connections set access_token_enc = ${tokenEnc}, scopes = ${scopes}, updated_at = now()
    where id = ${id}`;
}

export async function activateConnection(sql: Sql, id: string, shopName: string) {
  await sql`update shopify_connections
    set status = 'active', shop_name = ${shopName}, installed_at = now(), updated_at = now() where id = ${id}`;
}

export async function getConnection(sql: Sql, id: string, userId?: string): Promise<ConnectionRow | undefined> {
  const [row] = await sql<ConnectionRow[]>`
    select ${connectionColumns(sql)} from shopify_connections
    where id = ${id} ${userId ? sql`and user_id = ${userId}` : sql``}`;
  return row;
}

export function listConnections(sql: Sql, userId: string) {
  return sql<ConnectionRow[]>`select ${connectionColumns(sql)} from shopify_connections
    where user_id = ${userId} and status <> 'pending' order by created_at, id`;
}

/** The connections of a shop (one per user who connected it). */
export function connectionsOfShop(sql: Sql, shopDomain: string) {
  return sql<ConnectionRow[]>`select ${connectionColumns(sql)} from shopify_connections
    where shop_domain = ${shopDomain} order by created_at, id`;
}

/** Disconnects (a user's DELETE or the shop's app/uninstalled): the token is dropped, a reconnect gets a new one. */
export async function disconnect(sql: Sql, where: { id: string; userId: string } | { shopDomain: string }) {
  return sql<{ id: string }[]>`
    update shopify_connections set status = 'disconnected', access_token_enc = null, updated_at = now()
    where ${'id' in where ? sql`id = ${where.id} and user_id = ${where.userId}` : sql`shop_domain = ${where.shopDomain}`}
    returning id`;
}

export interface WebhookSubscriptionRow {
  subscriptionId: string;
  topic: string;
  callbackUrl: string;
}

/** Records a subscription webhookSubscriptionCreate made (its id, a GID as text). */
export async function recordWebhookSubscription(
  sql: Sql,
  s: { shopDomain: string; subscriptionId: string; topic: string; callbackUrl: string },
) {
  await sql`insert into shopify_webhook_subscriptions (shop_domain, subscription_id, topic, callback_url)
    values (${s.shopDomain}, ${s.subscriptionId}, ${s.topic}, ${s.callbackUrl}) on conflict do nothing`;
}

/** The subscriptions on record for a shop (optionally only a topic's at an address). */
export function webhookSubscriptionsOf(sql: Sql, shopDomain: string, only?: { topic: string; callbackUrl: string }) {
  return sql<WebhookSubscriptionRow[]>`
    select subscription_id as "subscriptionId", topic, callback_url as "callbackUrl"
    from shopify_webhook_subscriptions where shop_domain = ${shopDomain}
      ${only ? sql`and topic = ${only.topic} and callback_url = ${only.callbackUrl}` : sql``}
    order by created_at, subscription_id`;
}

/** Forgets subscriptions: deleted at Shopify, gone there already, or dropped with the app (uninstall, redact). */
export async function forgetWebhookSubscriptions(sql: Tx, shopDomain: string, subscriptionIds?: string[]) {
  if (subscriptionIds && subscriptionIds.length === 0) return;
  await sql`delete from shopify_webhook_subscriptions where shop_domain = ${shopDomain}
    ${subscriptionIds ? sql`and subscription_id in ${sql(subscriptionIds)}` : sql``}`;
}

/**
 * A user's DELETE: the connection disconnected and its token erased (null) in one statement, whatever Shopify says
 * afterwards; with the token it held (to delete the webhook subscriptions with, in memory only) and whether another
 * user's connection to the shop is still active (then the shop's subscriptions are theirs too and stay).
 */
export async function disconnectForUser(sql: Sql, id: string, userId: string) {
  return sql.begin(async (tx) => {
    const [before] = await tx<{ shopDomain: string; status: ConnectionStatus; accessTokenEnc: Buffer | null }[]>`
      select shop_domain as "shopDomain", status, access_token_enc as "accessTokenEnc" from shopify_connections
      where id = ${id} and user_id = ${userId} for update`;
    if (!before) return undefined;
    await tx`update shopify_connections set status = 'disconnected', access_token_enc = null, updated_at = now()
      where id = ${id}`;
    const [other] = await tx`select 1 from shopify_connections
      where shop_domain = ${before.shopDomain} and id <> ${id} and status = 'active' limit 1`;
    return { ...before, othersActive: Boolean(other) };
  });
}

export interface PublishedProductRow {
  id: string;
  userId: string;
  /** the source: a generation, or a design-chat job's mockup (chatJobId + mockupIndex); exactly one */
  generationId: string | null;
  chatJobId: string | null;
  mockupIndex: number | null;
  /** the catalogue garment the mockup is on (null: a chat mockup on a foreign blank) */
  garmentId: string | null;
  connectionId: string;
  title: string;
  description: string | null;
  sizes: string[];
  basePriceCents: number;
  /** the print cost from the print file (lib/print/cost.ts), USD cents; null: the spec's flat rate */
  printCostCents: number | null;
  status: 'publishing' | 'published' | 'failed';
  shopifyProductId: string | null;
  shopifyHandle: string | null;
  error: string | null;
  createdAt: Date;
  publishedAt: Date | null;
  shopDomain: string;
  /** the garment's current catalogue basePrice (numeric text), null without a garment */
  blankPrice: string | null;
}

const productColumns = (sql: Sql) => sql`
  p.id, p.user_id as "userId", p.generation_id as "generationId", p.chat_job_id as "chatJobId",
  p.mockup_index as "mockupIndex", p.garment_id as "garmentId", p.connection_id as "connectionId", p.title,
  p.description, p.sizes, p.base_price_cents as "basePriceCents",
  p.print_cost_cents as "printCostCents", p.status, p.shopify_product_id as "shopifyProductId",
  p.shopify_handle as "shopifyHandle", p.error, p.created_at as "createdAt", p.published_at as "publishedAt",
  c.shop_domain as "shopDomain", g.base_price::text as "blankPrice"`;

const productFrom = (sql: Sql) => sql`published_products p
  join shopify_connections c on c.id = p.connection_id
  left join garments g on g.id = p.garment_id`;

export async function insertPublishedProduct(
  sql: Sql,
  p: Pick<
    PublishedProductRow,
    | 'id'
    | 'userId'
    | 'generationId'
    | 'chatJobId'
    | 'mockupIndex'
    | 'garmentId'
    | 'connectionId'
    | 'title'
    | 'description'
    | 'sizes'
    | 'basePriceCents'
    | 'printCostCents'
  >,
) {
  await sql`insert into published_products
    (id, user_id, generation_id, chat_job_id, mockup_index, garment_id, connection_id, title, description, sizes,
      base_price_cents, print_cost_cents)
    values (${p.id}, ${p.userId}, ${p.generationId}, ${p.chatJobId}, ${p.mockupIndex}, ${p.garmentId},
      ${p.connectionId}, ${p.title}, ${p.description}, ${sql.array(p.sizes)}, ${p.basePriceCents},
      ${p.printCostCents})`;
}

export async function getPublishedProduct(sql: Sql, id: string, userId?: string) {
  const [row] = await sql<PublishedProductRow[]>`
    select ${productColumns(sql)} from ${productFrom(sql)}
    where p.id = ${id} ${userId ? sql`and p.user_id = ${userId}` : sql``}`;
  return row;
}

export function listPublishedProducts(sql: Sql, userId: string) {
  return sql<PublishedProductRow[]>`
    select ${productColumns(sql)} from ${productFrom(sql)}
    where p.user_id = ${userId} order by p.created_at desc, p.id desc limit 200`;
}

/**
 * The storage key of the product's media: its generation's mockup (once completed), or its chat job's mockup at
 * `mockupIndex` (once the job completed). Null when there is none.
 */
export async function productMediaKey(
  sql: Sql,
  p: Pick<PublishedProductRow, 'generationId' | 'chatJobId' | 'mockupIndex'>,
): Promise<string | null> {
  if (p.generationId) {
    const [gen] = await sql<{ key: string | null }[]>`
      select mockup_key as key from generations where id = ${p.generationId} and status = 'completed'`;
    return gen?.key ?? null;
  }
  if (!p.chatJobId || p.mockupIndex === null) return null;
  const [asset] = await sql<{ key: string }[]>`
    select a.storage_key as key from render_assets a join render_jobs j on j.id = a.job_id
    where a.job_id = ${p.chatJobId} and a.kind = 'mockup' and a.position = ${p.mockupIndex}
      and j.status = 'completed'`;
  return asset?.key ?? null;
}

export async function markPublished(sql: Sql, id: string, productId: string, handle: string) {
  await sql`update published_products
    set status = 'published', shopify_product_id = ${productId}, shopify_handle = ${handle}, error = null,
      published_at = coalesce(published_at, now())
    where id = ${id} and status <> 'published'`;
}

export async function markPublishFailed(sql: Sql, id: string, error: string) {
  await sql`update published_products set status = 'failed', error = ${error} where id = ${id} and status = 'publishing'`;
}

/** Published products of a connection by Shopify product id (GID), for linking order line items. */
export function publishedByShopifyIds(sql: Sql, connectionId: string, productIds: string[]) {
  if (productIds.length === 0) return Promise.resolve([] as { id: string; shopifyProductId: string }[]);
  return sql<{ id: string; shopifyProductId: string }[]>`
    select id, shopify_product_id as "shopifyProductId" from published_products
    where connection_id = ${connectionId} and shopify_product_id in ${sql(productIds)}`;
}

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

export interface StoredWebhook {
  id: string;
  topic: string;
  shopDomain: string;
  /** null once erased (a redaction, or the retention sweep) */
  body: Record<string, unknown> | null;
  status: 'received' | 'processed' | 'ignored' | 'failed';
  receivedAt: Date;
}

/**
 * Stores a webhook delivery unless it was stored before: the same webhook id (Shopify's retry), the same dedup key
 * (its X-Shopify-Event-Id, or without one the hash of topic + body) or, for an order topic, the same topic + body
 * hash (018_shopify_webhook_replay.sql). `inserted` false: a duplicate, and `id` is the delivery stored first.
 */
export async function storeWebhook(
  sql: Sql,
  w: {
    id: string;
    topic: string;
    shopDomain: string;
    apiVersion: string | null;
    body: unknown;
    dedupKey: string;
    bodySha256: string;
    eventId: string | null;
    triggeredAt: Date | null;
  },
): Promise<{ inserted: boolean; id: string; status: StoredWebhook['status'] }> {
  const [ins] = await sql<{ id: string; status: StoredWebhook['status'] }[]>`
    insert into shopify_webhooks (id, topic, shop_domain, api_version, body, dedup_key, body_sha256, event_id,
      triggered_at)
    values (${w.id}, ${w.topic}, ${w.shopDomain}, ${w.apiVersion}, ${sql.json(w.body as never)}, ${w.dedupKey},
      ${w.bodySha256}, ${w.eventId}, ${w.triggeredAt})
    on conflict do nothing returning id, status`;
  if (ins) return { inserted: true, ...ins };
  // A conflict: the earlier delivery (committed by now; a concurrent insert made this one wait for it).
  const [prior] = await sql<{ id: string; status: StoredWebhook['status'] }[]>`
    select id, status from shopify_webhooks
    where id = ${w.id} or dedup_key = ${w.dedupKey}
      ${w.topic.startsWith('orders/') ? sql`or (topic like 'orders/%' and body_sha256 = ${w.bodySha256})` : sql``}
    order by received_at limit 1`;
  if (!prior) throw new Error(`shopify webhook ${w.id}: conflict without a stored delivery`);
  return { inserted: false, ...prior };
}

export async function getWebhook(sql: Sql, id: string) {
  const [row] = await sql<StoredWebhook[]>`select id, topic, shop_domain as "shopDomain", body, status,
      received_at as "receivedAt"
    from shopify_webhooks where id = ${id}`;
  return row;
}

/** Records the outcome of a webhook still `received`; `eraseBody` drops its raw body (a redaction request). */
export async function finishWebhook(
  sql: Sql,
  id: string,
  status: 'processed' | 'ignored' | 'failed',
  result: unknown,
  opts: { eraseBody?: boolean } = {},
) {
  await sql`update shopify_webhooks set status = ${status}, result = ${result === null ? null : sql.json(result as never)},
    processed_at = now() ${opts.eraseBody ? sql`, body = null` : sql``} where id = ${id} and status = 'received'`;
}

/**
 * Retention: erases the raw body of webhooks processed (or failed, or ignored) more than `bodyMs` ago and the
 * export of customers/data_request webhooks processed more than `exportMs` ago (other results hold counts and ids).
 */
export async function eraseExpiredWebhookData(sql: Sql, bodyMs: number, exportMs: number, limit: number) {
  const bodies = await sql`update shopify_webhooks set body = null where id in (
      select id from shopify_webhooks where body is not null and status <> 'received'
        and processed_at < now() - ${bodyMs} * interval '1 millisecond' limit ${limit})
    returning id`;
  const exports = await sql`update shopify_webhooks set result = null where id in (
      select id from shopify_webhooks where result is not null and topic = 'customers/data_request'
        and processed_at < now() - ${exportMs} * interval '1 millisecond' limit ${limit})
    returning id`;
  return { bodies: bodies.length, exports: exports.length };
}

export interface DataRequestRow {
  id: string;
  shopDomain: string;
  customer: { id: string | null; email: string | null } | null;
  ordersRequested: string[] | null;
  /** the export made for this user: their own orders naming the customer */
  orders: unknown[];
  receivedAt: Date;
  processedAt: Date | null;
}

/**
 * The exports made for the user by customers/data_request webhooks (not yet erased), newest first. An export is
 * made per connection active at the shop when the request was received (activities/storefront.ts), from that
 * connection's orders and kept under its user in `result.exports`: a user sees no request received before they
 * connected or after they disconnected, and no other account's orders.
 */
export function listDataRequests(sql: Sql, userId: string) {
  return sql<DataRequestRow[]>`
    select w.id, w.shop_domain as "shopDomain", w.result->'customer' as customer,
      w.result->'ordersRequested' as "ordersRequested", w.result->'exports'->${userId}::text as orders,
      w.received_at as "receivedAt", w.processed_at as "processedAt"
    from shopify_webhooks w
    where w.topic = 'customers/data_request' and w.status = 'processed'
      and jsonb_typeof(w.result->'exports'->${userId}::text) = 'array'
    order by w.received_at desc, w.id desc limit 200`;
}

/**
 * Webhooks stored but still `received` after `olderThanSeconds`: their workflow was never started (the API died
 * after answering, or Temporal was unreachable) or is still working. With the account of the shop's first connection.
 */
export function waitingWebhooks(sql: Sql, olderThanSeconds: number, limit: number) {
  return sql<{ id: string; userId: string | null }[]>`
    select w.id, c.user_id as "userId" from shopify_webhooks w
    left join lateral (select user_id from shopify_connections where shop_domain = w.shop_domain
      order by created_at, id limit 1) c on true
    where w.status = 'received' and w.received_at < now() - make_interval(secs => ${olderThanSeconds})
    order by w.received_at limit ${limit}`;
}
