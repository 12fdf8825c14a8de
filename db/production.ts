// Production of paid orders (issue 36, docs/production.md): one job per order, one file per line item (keyed by the
// line item id), and what the API answers about them (the `production` of an order, the production queue).
import type { StoredPrintFile } from '../lib/print/make';
import type { PreflightReport } from '../lib/print/preflight';
import type { Sql } from './client';
import type { LineItem, OrderRow } from './storefront-orders';

export type ProductionStatus = 'queued' | 'ready' | 'failed';

/** A line item's id: Shopify's, or its position for an order recorded without ids. */
export const lineItemIdOf = (li: LineItem, index: number) => li.lineItemId ?? `line-${index + 1}`;

export interface ProductionOrder {
  order: OrderRow & { shipToName: string | null };
  /** the printable lines: items of published products, with their product's source */
  lines: {
    lineItemId: string;
    position: number;
    item: LineItem;
    generationId: string | null;
    chatJobId: string | null;
    mockupIndex: number | null;
  }[];
}

/** The order and its lines of published products (undefined: no such order). */
export async function productionOrder(sql: Sql, orderId: string): Promise<ProductionOrder | undefined> {
  const [order] = await sql<(OrderRow & { shipToName: string | null })[]>`
    select id, connection_id as "connectionId", user_id as "userId", shop_domain as "shopDomain",
      shopify_order_id as "shopifyOrderId", name, customer_id as "customerId", customer_name as "customerName",
      customer_email as "customerEmail", line_items as "lineItems", total, currency, status,
      fulfillment_id as "fulfillmentId", tracking, created_at as "createdAt", ship_to_name as "shipToName"
    from shopify_orders where id = ${orderId}`;
  if (!order) return undefined;
  const productIds = [...new Set(order.lineItems.flatMap((li) => li.publishedProductId ?? []))];
  const products = productIds.length
    ? await sql<{ id: string; generationId: string | null; chatJobId: string | null; mockupIndex: number | null }[]>`
        select id, generation_id as "generationId", chat_job_id as "chatJobId", mockup_index as "mockupIndex"
        from published_products where id in ${sql(productIds)}`
    : [];
  const byId = new Map(products.map((p) => [p.id, p]));
  const lines: ProductionOrder['lines'] = [];
  order.lineItems.forEach((item, index) => {
    const p = item.publishedProductId ? byId.get(item.publishedProductId) : undefined;
    if (!p || item.quantity < 1) return;
    lines.push({
      lineItemId: lineItemIdOf(item, index),
      position: index,
      item,
      generationId: p.generationId,
      chatJobId: p.chatJobId,
      mockupIndex: p.mockupIndex,
    });
  });
  return { order, lines };
}

/** Opens the order's production job (queued) once; a re-run finds it as it is. */
export async function openProductionJob(sql: Sql, orderId: string, userId: string): Promise<void> {
  await sql`insert into production_jobs (order_id, user_id) values (${orderId}, ${userId})
    on conflict (order_id) do nothing`;
}

export async function productionFile(sql: Sql, orderId: string, lineItemId: string) {
  const [row] = await sql<{ printFileId: string }[]>`
    select print_file_id as "printFileId" from production_files
    where order_id = ${orderId} and line_item_id = ${lineItemId}`;
  return row;
}

/** Records a line's file once (the first record of the line wins). */
export async function recordProductionFile(
  sql: Sql,
  f: { orderId: string; lineItemId: string; position: number; printFileId: string; quantity: number },
): Promise<void> {
  await sql`insert into production_files (order_id, line_item_id, position, print_file_id, quantity)
    values (${f.orderId}, ${f.lineItemId}, ${f.position}, ${f.printFileId}, ${f.quantity})
    on conflict (order_id, line_item_id) do nothing`;
}

export async function markProductionReady(sql: Sql, orderId: string, jobSheetKey: string, archiveKey: string) {
  await sql`update production_jobs set status = 'ready', job_sheet_key = ${jobSheetKey}, archive_key = ${archiveKey},
    error = null, ready_at = coalesce(ready_at, now()), updated_at = now() where order_id = ${orderId}`;
}

export async function markProductionFailed(sql: Sql, orderId: string, error: string) {
  await sql`update production_jobs set status = 'failed', error = ${error}, updated_at = now()
    where order_id = ${orderId} and status <> 'ready'`;
}

export interface ProductionFileView extends StoredPrintFile {
  lineItemId: string;
  position: number;
  quantity: number;
  size: string;
  color: string;
  zone: string;
  preflight: PreflightReport;
}

export interface ProductionView {
  orderId: string;
  status: ProductionStatus;
  jobSheetKey: string | null;
  archiveKey: string | null;
  error: string | null;
  files: ProductionFileView[];
}

/** The production of these orders (absent for orders without one), files in line order. */
export async function productionOf(sql: Sql, orderIds: string[]): Promise<Map<string, ProductionView>> {
  const out = new Map<string, ProductionView>();
  if (orderIds.length === 0) return out;
  const jobs = await sql<Omit<ProductionView, 'files'>[]>`
    select order_id as "orderId", status, job_sheet_key as "jobSheetKey", archive_key as "archiveKey", error
    from production_jobs where order_id in ${sql(orderIds)}`;
  for (const j of jobs) out.set(j.orderId, { ...j, files: [] });
  if (jobs.length === 0) return out;
  const files = await sql<(ProductionFileView & { orderId: string })[]>`
    select f.order_id as "orderId", f.line_item_id as "lineItemId", f.position, f.quantity,
      p.storage_key as "storageKey", p.underbase_key as "underbaseKey", p.width_px as "widthPx",
      p.height_px as "heightPx", p.dpi, p.width_in::float8 as "widthIn", p.height_in::float8 as "heightIn", p.size,
      p.color, p.zone, p.preflight
    from production_files f join print_files p on p.id = f.print_file_id
    where f.order_id in ${sql(jobs.map((j) => j.orderId))}
    order by f.order_id, f.position`;
  for (const { orderId, ...f } of files) out.get(orderId)!.files.push(f);
  return out;
}

/** The production queue: the user's paid, unfulfilled orders with a production, oldest first. */
export function productionQueue(sql: Sql, userId: string, limit = 200) {
  return sql<{ id: string }[]>`
    select o.id from shopify_orders o join production_jobs j on j.order_id = o.id
    where o.user_id = ${userId} and o.status = 'paid'
    order by o.created_at, o.id limit ${limit}`;
}
