// Bulk renders (issue 35): the bulk's row and its items (written in the statement that records and charges the
// items' generations: db/generation-inserts.ts insertAndChargeGenerations `bulk`), the reads of GET /generate/bulk/<id> and
// of the `bulk` workflow, cancel (refunds what was not rendered) and the close of a finished bulk. Every change moves
// a row only from the states it may leave, so a step that runs twice changes nothing the second time.
import type { BulkItem, BulkStatus } from '../lib/bulk/types';
import type { RenderJob } from '../lib/generation/types';
import type { Sql, Tx } from './client';
import { failAndRefund, type GenerationRow } from './generations';

export interface BulkRow {
  id: string;
  userId: string;
  livemode: boolean;
  status: BulkStatus;
  total: number;
  tokensCharged: number;
  webhookUrl: string | null;
  /** each item's generation.completed/failed goes to webhookUrl too */
  itemWebhooks: boolean;
  archiveKey: string | null;
  createdAt: Date;
  canceledAt: Date | null;
  finishedAt: Date | null;
}

/** Where the items of a bulk stand: counts by generation status, and the tokens still charged for them. */
export interface BulkCounts {
  completed: number;
  failed: number;
  /** pending or processing */
  running: number;
  /** the tokens the items still hold (a failed item's was refunded) */
  tokensHeld: number;
}

export interface NewBulkItem {
  generationId: string;
  /** null on a template */
  garmentId: string | null;
  entryName: string;
  job: RenderJob;
}

const columns = (sql: Sql | Tx) => sql`
  id, user_id as "userId", livemode, status, total, tokens_charged as "tokensCharged", webhook_url as "webhookUrl",
  item_webhooks as "itemWebhooks", archive_key as "archiveKey", created_at as "createdAt", canceled_at as "canceledAt", finished_at as "finishedAt"`;

/** A bulk as POST /generate/bulk records it, with its items, in the statement that records and charges them. */
export interface NewBulk {
  id: string;
  userId: string;
  apiKeyId: string | null;
  livemode: boolean;
  tokensCharged: number;
  webhookUrl: string | null;
  itemWebhooks: boolean;
  items: NewBulkItem[];
}

/**
 * The bulk's row and its items by column, as db/generation-inserts.ts insertAndChargeGenerations writes them (in the
 * statement that records and charges the items' generations: generations_record_and_charge).
 */
export function bulkRecords(b: NewBulk) {
  return {
    row: {
      id: b.id,
      user_id: b.userId,
      api_key_id: b.apiKeyId,
      livemode: b.livemode,
      total: b.items.length,
      tokens_charged: b.tokensCharged,
      webhook_url: b.webhookUrl,
      item_webhooks: b.itemWebhooks,
    },
    items: b.items.map((it, position) => ({
      bulk_id: b.id,
      position,
      generation_id: it.generationId,
      entry_name: it.entryName,
      garment_id: it.garmentId,
      job: it.job,
    })),
  };
}

/** One of the account's bulks (of the given mode, when one is given). */
export async function getBulk(sql: Sql, userId: string, id: string, livemode?: boolean): Promise<BulkRow | undefined> {
  const [row] = await sql<BulkRow[]>`
    select ${columns(sql)} from bulk_jobs
    where id = ${id} and user_id = ${userId} ${livemode === undefined ? sql`` : sql`and livemode = ${livemode}`}`;
  return row;
}

/** A bulk by id, whoever owns it (the workflow's activities). */
export async function getBulkById(sql: Sql, id: string): Promise<BulkRow | undefined> {
  const [row] = await sql<BulkRow[]>`select ${columns(sql)} from bulk_jobs where id = ${id}`;
  return row;
}

/** How the items of a bulk stand. */
export async function bulkCounts(sql: Sql | Tx, bulkId: string): Promise<BulkCounts> {
  const [row] = await sql<BulkCounts[]>`
    select count(*) filter (where g.status = 'completed')::int as completed,
           count(*) filter (where g.status = 'failed')::int as failed,
           count(*) filter (where g.status in ('pending', 'processing'))::int as running,
           coalesce(sum(g.tokens_used), 0)::int as "tokensHeld"
    from bulk_items i join generations g on g.id = i.generation_id
    where i.bulk_id = ${bulkId}`;
  return row ?? { completed: 0, failed: 0, running: 0, tokensHeld: 0 };
}

/** A page of the bulk's generations in the order of the expansion, after `afterPosition` (exclusive). */
export function bulkGenerations(sql: Sql, bulkId: string, afterPosition: number, limit: number) {
  return sql<(GenerationRow & { position: number; entryName: string })[]>`
    select i.position, i.entry_name as "entryName", g.id, g.status, g.mockup_key as "mockupKey",
           g.thumbnail_key as "thumbnailKey", g.tokens_used as "tokensUsed", g.created_at as "createdAt",
           g.completed_at as "completedAt", g.error, g.garment_id as "garmentId", g.color, g.zone,
           g.template_id as "templateId", g.designs, g.placement,
           g.apply_texture as "applyTexture", g.design_url as "designUrl", g.print_area_px as "printAreaPx",
           g.design_box as "designBox", g.placement_basis as "placementBasis", g.livemode, g.warnings
    from bulk_items i join generations g on g.id = i.generation_id
    where i.bulk_id = ${bulkId} and i.position > ${afterPosition}
    order by i.position
    limit ${limit}`;
}

/** The workflow's page of items to render: after `afterPosition`, in order. */
export function bulkItemsPage(sql: Sql, bulkId: string, afterPosition: number, limit: number) {
  return sql<BulkItem[]>`
    select position, generation_id as "generationId", garment_id as "garmentId", job
    from bulk_items where bulk_id = ${bulkId} and position > ${afterPosition}
    order by position limit ${limit}`;
}

/** The completed mockups of a bulk, in order, for its archive. */
export function bulkArchiveEntries(sql: Sql, bulkId: string) {
  return sql<{ entryName: string; mockupKey: string }[]>`
    select i.entry_name as "entryName", g.mockup_key as "mockupKey"
    from bulk_items i join generations g on g.id = i.generation_id
    where i.bulk_id = ${bulkId} and g.status = 'completed' and g.mockup_key is not null
    order by i.position`;
}

/** The bulk's items still pending (not yet begun by a render). */
async function pendingItemIds(sql: Sql | Tx, bulkId: string): Promise<string[]> {
  const rows = await sql<{ id: string }[]>`
    select g.id from bulk_items i join generations g on g.id = i.generation_id
    where i.bulk_id = ${bulkId} and g.status = 'pending' order by i.position`;
  return rows.map((r) => r.id);
}

export const CANCELED_ITEM_ERROR = 'Canceled: the bulk render was canceled before this item was rendered';

/**
 * POST /generate/bulk/<id>/cancel: marks a running bulk canceled and fails and refunds every item not yet begun (a
 * render in flight finishes). Returns the row as it now stands (unchanged when it had ended already), or undefined
 * when the account has no such bulk.
 */
export async function cancelBulk(
  sql: Sql,
  userId: string,
  id: string,
  livemode: boolean,
): Promise<{ row: BulkRow; refunded: number } | undefined> {
  const [row] = await sql<BulkRow[]>`
    update bulk_jobs set status = 'canceled', canceled_at = now()
    where id = ${id} and user_id = ${userId} and livemode = ${livemode} and status = 'running'
    returning ${columns(sql)}`;
  if (!row) {
    const existing = await getBulk(sql, userId, id, livemode);
    return existing && { row: existing, refunded: 0 };
  }
  return { row, refunded: await failPendingItems(sql, id) };
}

/** Fails and refunds the items of a bulk not yet begun; how many were refunded. */
export async function failPendingItems(sql: Sql, bulkId: string): Promise<number> {
  const ids = await pendingItemIds(sql, bulkId);
  if (ids.length === 0) return 0;
  const outcomes = await failAndRefund(sql, ids, CANCELED_ITEM_ERROR);
  return outcomes.filter((o) => o.status === 'failed' && o.refunded).length;
}

/**
 * Closes a bulk whose items have all finished: records its archive, and moves it to `completed` (a canceled one
 * stays canceled); finished_at is set once. Returns the row as it then stands, or undefined when there is no such
 * bulk or its account's deletion was asked for: the owner's row is read FOR SHARE (as completeGeneration does), so a
 * deletion committing at the same moment is waited for and seen. An archive recorded here is listed by the
 * deletion's file step (accountFileKeys); one refused here is the caller's to delete.
 */
export async function closeBulk(sql: Sql, bulkId: string, archiveKey: string | null): Promise<BulkRow | undefined> {
  const [row] = await sql<BulkRow[]>`
    with owner as (
      select u.deleted_at is null as live from bulk_jobs b join users u on u.id = b.user_id
      where b.id = ${bulkId}
      for share of u
    )
    update bulk_jobs set
      status = case when status = 'running' then 'completed' else status end,
      archive_key = coalesce(archive_key, ${archiveKey}),
      finished_at = coalesce(finished_at, now())
    where id = ${bulkId} and coalesce((select live from owner), false)
    returning ${columns(sql)}`;
  return row;
}

/** Bulks still running `olderThanMs` after they were created (the recovery sweep asks whether their workflow runs). */
export async function staleRunningBulks(sql: Sql, olderThanMs: number): Promise<string[]> {
  const rows = await sql<{ id: string }[]>`
    select id from bulk_jobs
    where status = 'running' and created_at < now() - make_interval(secs => ${olderThanMs / 1000})`;
  return rows.map((r) => r.id);
}

/** The account that owns a bulk, or undefined (no such bulk, or its account's deletion was asked for). */
export async function bulkAccount(sql: Sql, bulkId: string): Promise<string | undefined> {
  const [row] = await sql<{ userId: string }[]>`
    select b.user_id as "userId" from bulk_jobs b join users u on u.id = b.user_id
    where b.id = ${bulkId} and u.deleted_at is null`;
  return row?.userId;
}
