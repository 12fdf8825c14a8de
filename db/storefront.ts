// Storefront tables (009_storefront.sql): Shopify connections, OAuth states and the webhook subscriptions on record.
// Published products are in storefront-products.ts, orders in storefront-orders.ts, the webhooks received in
// shopify-webhooks.ts. Every change is keyed so a step that runs twice changes nothing the second time.
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
