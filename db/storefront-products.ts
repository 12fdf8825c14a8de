// Published products (009_storefront.sql, 016_published_chat_mockups.sql): a mockup published to a connected store.
import type { Sql } from './client';

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
