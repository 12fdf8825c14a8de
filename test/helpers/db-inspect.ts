// What tests read (and age) in the database directly, where no route shows it: small typed functions, one place for
// the test suite's SQL. Tests act and check through HTTP; these look behind the answer (a stored row, what a sweep
// left) or move a row's clock back so a sweep or an expiry applies now.
import { testSql } from './stack';

const sql = () => testSql();

// ---------------------------------------------------------------------------------------------------- storefront

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

// ---------------------------------------------------------------------------------------------------- production

/** The print files production recorded for an order's lines, by line position. */
export async function productionFiles(
  orderId: string,
): Promise<{ position: number; printFileId: string; createdAt: Date; source: string; size: string }[]> {
  return sql()<{ position: number; printFileId: string; createdAt: Date; source: string; size: string }[]>`
    select f.position, f.print_file_id as "printFileId", f.created_at as "createdAt", p.source, p.size
    from production_files f join print_files p on p.id = f.print_file_id
    where f.order_id = ${orderId} order by f.position`;
}

/** The statuses of an order's production jobs. */
export async function productionJobStatuses(orderId: string): Promise<string[]> {
  const rows = await sql()<{ status: string }[]>`select status from production_jobs where order_id = ${orderId}`;
  return rows.map((r) => r.status);
}

// ---------------------------------------------------------------------------------------------------- tokens

/** The amounts debited under a reference (a generation, a chat job, ...). */
export async function debitAmounts(reference: string): Promise<number[]> {
  const rows = await sql()<{ amount: number }[]>`select amount from token_debits where reference = ${reference}`;
  return rows.map((r) => r.amount);
}

/** The amounts given back for a job or generation (grants with the reference `refund:<id>`). */
export async function refundAmounts(id: string): Promise<number[]> {
  const rows = await sql()<{ amount: number }[]>`select amount from token_grants where reference = ${`refund:${id}`}`;
  return rows.map((r) => r.amount);
}

// ---------------------------------------------------------------------------------------------------- design chat

export interface RenderJobRow {
  id: string;
  status: string;
  provider: string | null;
  model: string;
  attempts: any[];
  failure: string | null;
  error: string | null;
  timings: Record<string, number>;
  tokensSpent: number;
}

const renderJobColumns = (s: ReturnType<typeof sql>) =>
  s`id, status, provider, model, attempts, failure, error, timings, tokens_spent as "tokensSpent"`;

/** A design-chat job's row. */
export async function renderJob(id: string): Promise<RenderJobRow | undefined> {
  const [row] = await sql()<RenderJobRow[]>`select ${renderJobColumns(sql())} from render_jobs where id = ${id}`;
  return row;
}

/** A user's latest design-chat job. */
export async function latestRenderJob(userId: string): Promise<RenderJobRow | undefined> {
  const [row] = await sql()<RenderJobRow[]>`select ${renderJobColumns(sql())} from render_jobs
    where user_id = ${userId} order by created_at desc limit 1`;
  return row;
}

/** The design-chat jobs of a thread. */
export async function renderJobsOfThread(threadId: string): Promise<RenderJobRow[]> {
  return sql()<RenderJobRow[]>`select ${renderJobColumns(sql())} from render_jobs where thread_id = ${threadId}`;
}

/** How many design-chat jobs a user has. */
export async function renderJobCount(userId: string): Promise<number> {
  const [row] = await sql()<{ n: number }[]>`select count(*)::int as n from render_jobs where user_id = ${userId}`;
  return row!.n;
}

/** A design-chat job row as a dead API process would have left it: running, no workflow, made `age` ago. */
export async function insertOrphanRenderJob(o: { id: string; userId: string; prompt: string; age?: string }) {
  await sql()`insert into render_jobs (id, user_id, model, prompt, request, created_at)
    values (${o.id}, ${o.userId}, 'nano-banana', ${o.prompt}, '{}', now() - ${o.age ?? '0 seconds'}::interval)`;
}

/** Ends a design-chat job row as failed (with `failure`, if given). */
export async function failRenderJob(id: string, failure?: string): Promise<void> {
  await sql()`update render_jobs set status = 'failed', failure = ${failure ?? null}, completed_at = now()
    where id = ${id}`;
}

/** Makes a design-chat job created `interval` ago (a Postgres interval), so that the chat-jobs sweep looks at it. */
export async function backdateRenderJob(id: string, interval: string): Promise<void> {
  await sql()`update render_jobs set created_at = now() - ${interval}::interval where id = ${id}`;
}

/** A chat thread's messages in order: [role, content, tokens spent]. */
export async function chatMessages(threadId: string): Promise<[string, string | null, number][]> {
  const rows = await sql()<{ role: string; content: string | null; tokensSpent: number }[]>`
    select role, content, tokens_spent as "tokensSpent" from chat_messages where thread_id = ${threadId} order by seq`;
  return rows.map((m) => [m.role, m.content, m.tokensSpent]);
}

/** The files a design-chat job made (graphic, print, mockups): [kind, position, placement, garment URL]. */
export async function renderAssets(
  by: { jobId: string } | { messageId: string; kind: string },
): Promise<[string, number, string | null, string | null][]> {
  const rows =
    'jobId' in by
      ? await sql()<{ kind: string; position: number; placement: string | null; garmentUrl: string | null }[]>`
          select kind, position, placement, garment_url as "garmentUrl" from render_assets
          where job_id = ${by.jobId} order by kind, position`
      : await sql()<{ kind: string; position: number; placement: string | null; garmentUrl: string | null }[]>`
          select kind, position, placement, garment_url as "garmentUrl" from render_assets
          where kind = ${by.kind} and message_id = ${by.messageId} order by position`;
  return rows.map((a) => [a.kind, a.position, a.placement, a.garmentUrl]);
}

/** The token usage recorded for a design-chat job. */
export async function tokenUsageOfJob(
  jobId: string,
): Promise<{ tokens: number; model: string; debitReference: string }[]> {
  return [
    ...(await sql()<{ tokens: number; model: string; debitReference: string }[]>`
      select tokens, model, debit_reference as "debitReference" from token_usage where job_id = ${jobId}`),
  ];
}

/** The ids of a user's chat threads. */
export async function chatThreadIds(userId: string): Promise<string[]> {
  const rows = await sql()<{ id: string }[]>`select id from chat_threads where user_id = ${userId}`;
  return rows.map((r) => r.id);
}

/** What a design-chat job left: threads and jobs of its user, messages, files and usage of the job. */
export async function chatRecordCounts(userId: string, jobId: string) {
  const [row] = await sql()<{ threads: number; messages: number; assets: number; usage: number; jobs: number }[]>`
    select
      (select count(*)::int from chat_threads where user_id = ${userId}) as threads,
      (select count(*)::int from chat_messages where job_id = ${jobId}) as messages,
      (select count(*)::int from render_assets where job_id = ${jobId}) as assets,
      (select count(*)::int from token_usage where job_id = ${jobId}) as usage,
      (select count(*)::int from render_jobs where user_id = ${userId}) as jobs`;
  return row!;
}

// ---------------------------------------------------------------------------------------------------- payments

/** A user's token grants other than the free ones, in order. */
export async function paidGrants(
  userId: string,
): Promise<{ source: string; amount: number; reference: string; expiresAt: Date | null }[]> {
  return sql()<{ source: string; amount: number; reference: string; expiresAt: Date | null }[]>`
    select source, amount, reference, expires_at as "expiresAt" from token_grants
    where user_id = ${userId} and source <> 'free' order by id`;
}

/** The subscriptions a user's plan grants name (distinct). */
export async function planGrantSubscriptions(userId: string): Promise<(string | null)[]> {
  const rows = await sql()<{ subscriptionId: string | null }[]>`select distinct subscription_id as "subscriptionId"
    from token_grants where user_id = ${userId} and source = 'plan'`;
  return rows.map((r) => r.subscriptionId);
}

/** What a user's tokens were taken for other than spending (refunds, disputes), in order. */
export async function takenBack(
  userId: string,
): Promise<{ reason: string; amount: number; owed: number; reference: string }[]> {
  return sql()<{ reason: string; amount: number; owed: number; reference: string }[]>`
    select reason, amount, owed, reference from token_debits where user_id = ${userId} and reason <> 'spend'
    order by id`;
}

/** The Stripe customer ids stored for a user. */
export async function stripeCustomerIds(userId: string): Promise<string[]> {
  const rows = await sql()<{ customerId: string }[]>`
    select customer_id as "customerId" from stripe_customers where user_id = ${userId}`;
  return rows.map((r) => r.customerId);
}

/** A stored Stripe event, or undefined when none was stored under that id. */
export async function stripeEvent(id: string): Promise<{ status: string; result: any } | undefined> {
  const [row] = await sql()<
    { status: string; result: any }[]
  >`select status, result from stripe_events where id = ${id}`;
  return row;
}
