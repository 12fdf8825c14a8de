// The Shopify webhooks received (stored once, then processed by their workflow), their retention, and the
// customers' data requests made from them.
import type { Sql } from './client';

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
