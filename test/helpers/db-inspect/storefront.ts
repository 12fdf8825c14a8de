// The storefront (Shopify) tables: webhook deliveries, store connections, OAuth states, orders, published products.
import { sql } from './sql';

export interface ShopifyWebhookRow {
  id: string;
  status: string;
  topic: string;
  shopDomain: string;
  result: any;
  hasBody: boolean;
  hasResult: boolean;
  triggeredAt: Date | null;
}

/** A stored Shopify webhook delivery, or undefined when none was stored under that id. */
export async function shopifyWebhook(id: string): Promise<ShopifyWebhookRow | undefined> {
  const [row] = await sql()<ShopifyWebhookRow[]>`
    select id, status, topic, shop_domain as "shopDomain", result, body is not null as "hasBody",
      result is not null as "hasResult", triggered_at as "triggeredAt"
    from shopify_webhooks where id = ${id}`;
  return row;
}

/** The stored deliveries among `ids`, by id. */
export async function shopifyWebhooks(ids: string[]): Promise<Map<string, ShopifyWebhookRow>> {
  const found = await Promise.all(ids.map((id) => shopifyWebhook(id)));
  return new Map(found.filter((r) => r !== undefined).map((r) => [r.id, r]));
}

/** Makes a stored delivery's received_at (or processed_at) `interval` ago (a Postgres interval: '1 minute'). */
export async function backdateShopifyWebhook(
  id: string,
  interval: string,
  column: 'received_at' | 'processed_at' = 'received_at',
): Promise<void> {
  await sql()`update shopify_webhooks set ${sql()(column)} = now() - ${interval}::interval where id = ${id}`;
}

/** The stored row of a store connection as text (every column), and its encrypted access token. */
export async function shopifyConnectionStored(id: string): Promise<{ text: string; enc: Buffer }> {
  const [row] = await sql()<{ text: string; enc: Buffer }[]>`
    select row_to_json(c)::text as text, c.access_token_enc as enc from shopify_connections c where id = ${id}`;
  if (!row) throw new Error(`no shopify connection ${id}`);
  return row;
}

/** The ids of the store connections to a shop, any user's. */
export async function shopifyConnectionIds(shopDomain: string): Promise<string[]> {
  const rows = await sql()<{ id: string }[]>`select id from shopify_connections where shop_domain = ${shopDomain}`;
  return rows.map((r) => r.id);
}

/** The user an unused OAuth state for `shop` was issued to, if there is one. */
export async function openOAuthStateOwner(state: string | null, shop: string): Promise<string | undefined> {
  const [row] = await sql()<{ userId: string }[]>`select user_id as "userId" from shopify_oauth_states
    where state = ${state} and shop = ${shop} and used_at is null`;
  return row?.userId;
}

/** Lets an OAuth state run out (its expiry a second ago). */
export async function expireOAuthState(state: string | null): Promise<void> {
  await sql()`update shopify_oauth_states set expires_at = now() - interval '1 second' where state = ${state}`;
}

/** Rows of the storefront tables whose text contains `needle` (case-insensitive), as `table: row`. */
export async function storefrontRowsHolding(needle: string): Promise<string[]> {
  const rows = await sql()<{ t: string; text: string }[]>`
    select 'shopify_webhooks' as t, row_to_json(x)::text as text from shopify_webhooks x
    union all select 'shopify_orders', row_to_json(x)::text from shopify_orders x
    union all select 'shopify_connections', row_to_json(x)::text from shopify_connections x
    union all select 'shopify_oauth_states', row_to_json(x)::text from shopify_oauth_states x
    union all select 'published_products', row_to_json(x)::text from published_products x`;
  return rows.filter((r) => r.text.toLowerCase().includes(needle.toLowerCase())).map((r) => `${r.t}: ${r.text}`);
}

/** The deliveries of a shop that still hold a raw body or an export. */
export async function shopifyWebhooksHoldingData(shopDomain: string): Promise<string[]> {
  const rows = await sql()<{ id: string }[]>`select id from shopify_webhooks
    where shop_domain = ${shopDomain} and (body is not null or (result is not null and result ? 'exports'))`;
  return rows.map((r) => r.id);
}

/** The ids of the products published through a store connection, or by a user. */
export async function publishedProductIds(by: { connectionId: string } | { userId: string }): Promise<string[]> {
  const rows =
    'connectionId' in by
      ? await sql()<{ id: string }[]>`select id from published_products where connection_id = ${by.connectionId}`
      : await sql()<{ id: string }[]>`select id from published_products where user_id = ${by.userId}`;
  return rows.map((r) => r.id);
}

/** The ids of the stored deliveries from these shops (of one topic, if given), in the order they were stored. */
export async function shopifyWebhookIds(shops: string[], topic?: string): Promise<string[]> {
  const rows = await sql()<{ id: string }[]>`select id from shopify_webhooks
    where shop_domain in ${sql()(shops)} ${topic ? sql()`and topic = ${topic}` : sql()``} order by received_at, id`;
  return rows.map((r) => r.id);
}

/** Our record of a shop's webhook subscriptions: [topic, subscription id], in the order they were made. */
export async function shopifySubscriptionsOnRecord(shopDomain: string): Promise<[string, string][]> {
  const rows = await sql()<{ topic: string; id: string }[]>`select topic, subscription_id as id
    from shopify_webhook_subscriptions where shop_domain = ${shopDomain} order by created_at, subscription_id`;
  return rows.map((r) => [r.topic, r.id]);
}

/** A store connection's status and its encrypted access token (null once erased). */
export async function shopifyConnection(id: string): Promise<{ status: string; token: Buffer | null } | undefined> {
  const [row] = await sql()<{ status: string; token: Buffer | null }[]>`
    select status, access_token_enc as token from shopify_connections where id = ${id}`;
  return row;
}

/** The Shopify ids the stored orders of a shop carry (as text: they pass 2^53). */
export async function shopifyOrderIds(shopDomain: string): Promise<{ orderId: string; customerId: string }[]> {
  return sql()<{ orderId: string; customerId: string }[]>`
    select shopify_order_id as "orderId", customer_id as "customerId" from shopify_orders
    where shop_domain = ${shopDomain}`;
}

/** The order id and customer id in a stored delivery's raw body, as their digits. */
export async function shopifyWebhookBodyIds(id: string): Promise<{ id: string; customer: string } | undefined> {
  const [row] = await sql()<{ id: string; customer: string }[]>`
    select body->>'id' as id, body->'customer'->>'id' as customer from shopify_webhooks where id = ${id}`;
  return row;
}
