// Generation rows: reads for the API, the all-or-nothing insert-and-charge, and the state changes of the generation
// workflow (begin, complete, fail-and-refund). Every change is keyed by the generation id and moves a row only from
// the states it may leave, so a step that runs twice changes nothing the second time.
//
// Insert-and-charge (POST /generate is a batch of one, POST /generate/batch up to 25): one transaction records
// every generation row and takes one token per generation (one debit each, reference = the generation id), or
// records and charges nothing. Same ledger rules as debitTokens in ./ledger: the account row is locked so concurrent
// debits serialize, grants that expire soonest are spent first, expired grants do not count. Each debit keeps its
// own allocations, so a refund (reference refund:<generation id>) gives back one generation's token.
import { GENERATION_FINISHED_CHANNEL, type GenerationStatus, type Placement } from '../lib/generation/types';
import type { Sql } from './client';
import { recordRecoveryPoint, type IdempotencyRef } from './idempotency';
import { refundDebitIn, spendableGrants } from './ledger';

export interface GenerationRow {
  id: string;
  status: GenerationStatus;
  mockupKey: string | null;
  thumbnailKey: string | null;
  tokensUsed: number;
  createdAt: Date;
  completedAt: Date | null;
  error: string | null;
  garmentId: string;
  color: string;
  zone: string;
  placement: Placement;
  applyTexture: boolean;
  designUrl: string;
  /** false for a test-mode generation (no token, watermarked mockup) */
  livemode: boolean;
}

const columns = (sql: Sql) => sql`
  id, status, mockup_key as "mockupKey", thumbnail_key as "thumbnailKey", tokens_used as "tokensUsed",
  created_at as "createdAt", completed_at as "completedAt", error, garment_id as "garmentId", color, zone, placement,
  apply_texture as "applyTexture", design_url as "designUrl", livemode`;

/** `and livemode = …` when a mode is given: test credentials see only test generations, live ones only live. */
const inMode = (sql: Sql, livemode: boolean | undefined) =>
  livemode === undefined ? sql`` : sql`and livemode = ${livemode}`;

/** One of the account's generations (of the given mode, when one is given). */
export async function getGeneration(
  sql: Sql,
  userId: string,
  id: string,
  livemode?: boolean,
): Promise<GenerationRow | undefined> {
  const [row] = await sql<GenerationRow[]>`
    select ${columns(sql)} from generations where id = ${id} and user_id = ${userId} ${inMode(sql, livemode)}`;
  return row;
}

/** Several of the account's generations, in the order of `ids` (unknown ids are left out). */
export async function getGenerations(
  sql: Sql,
  userId: string,
  ids: string[],
  livemode?: boolean,
): Promise<GenerationRow[]> {
  if (ids.length === 0) return [];
  const rows = await sql<GenerationRow[]>`
    select ${columns(sql)} from generations where id in ${sql(ids)} and user_id = ${userId} ${inMode(sql, livemode)}`;
  const byId = new Map(rows.map((g) => [g.id, g]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

/** The account's generations of one mode, newest first, after the keyset position `after` (exclusive). */
export function listGenerations(
  sql: Sql,
  userId: string,
  opts: { after?: { c: string; i: string }; limit: number; livemode?: boolean },
) {
  const { after, limit } = opts;
  return sql<GenerationRow[]>`
    select ${columns(sql)} from generations
    where user_id = ${userId} ${inMode(sql, opts.livemode ?? true)}
      ${after ? sql`and (created_at, id) < (${after.c}::timestamptz, ${after.i})` : sql``}
    order by created_at desc, id desc
    limit ${limit}`;
}

export interface BatchGenerationRow {
  id: string;
  garmentId: string;
  color: string;
  zone: string;
  placement: Placement;
  applyTexture: boolean;
  designUrl: string;
  garmentImageUrl: string;
  blankKey: string;
  webhookUrl: string | null;
}

export type BatchChargeResult =
  | { ok: true; balance: number }
  | { ok: false; required: number; available: number }
  /** test mode: the account's test generations of the last 24 hours would pass `limit` */
  | { ok: false; testLimit: { limit: number; used: number; retryAfterSeconds: number } };

export async function insertAndChargeGenerations(
  sql: Sql,
  opts: {
    userId: string;
    apiKeyId: string | null;
    /** the batch's workflow id; null for a single generation */ batchId: string | null;
    rows: BatchGenerationRow[];
    /**
     * Test mode: record the rows with `livemode = false` and charge nothing; instead the account's test generations
     * of the last 24 hours (these included) must stay within `perDay`.
     */
    test?: { perDay: number };
    /**
     * The request's Idempotency-Key: the generation ids are recorded on it in this transaction (its recovery
     * point), and nothing is charged when another request has taken the key over.
     */
    idempotency?: { ref: IdempotencyRef; lockMs: number };
  },
): Promise<BatchChargeResult> {
  const { userId, apiKeyId, batchId, rows, idempotency, test } = opts;
  if (rows.length === 0) throw new Error('a batch needs at least one generation');
  return sql.begin(async (tx): Promise<BatchChargeResult> => {
    const [user] = await tx`select id from users where id = ${userId} for update`;
    if (!user) throw new Error(`unknown user ${userId}`);
    const grants = await spendableGrants(tx, userId);
    const available = grants.reduce((s, g) => s + g.remaining, 0);
    const required = rows.length;
    if (test) {
      // The account row lock above serializes this count with every other insert of the account.
      const [day] = await tx<{ used: number; oldest: Date | null }[]>`
        select count(*)::int as used, min(created_at) as oldest from generations
        where user_id = ${userId} and livemode = false and created_at > now() - interval '24 hours'`;
      const used = day?.used ?? 0;
      if (used + required > test.perDay) {
        const freesAt = day?.oldest ? day.oldest.getTime() + 86_400_000 : Date.now();
        const retryAfterSeconds = Math.max(1, Math.ceil((freesAt - Date.now()) / 1000));
        return { ok: false as const, testLimit: { limit: test.perDay, used, retryAfterSeconds } };
      }
    } else if (available < required) return { ok: false as const, required, available };
    if (idempotency) {
      const point = { generationIds: rows.map((r) => r.id), batchId };
      await recordRecoveryPoint(tx, idempotency.ref, point, idempotency.lockMs);
    }

    await tx`insert into generations ${tx(
      rows.map((r) => ({
        id: r.id,
        user_id: userId,
        api_key_id: apiKeyId,
        garment_id: r.garmentId,
        color: r.color,
        zone: r.zone,
        placement: tx.json(r.placement as unknown as Parameters<typeof tx.json>[0]),
        apply_texture: r.applyTexture,
        design_url: r.designUrl,
        garment_image_url: r.garmentImageUrl,
        blank_key: r.blankKey,
        webhook_url: r.webhookUrl,
        batch_id: batchId,
        livemode: !test,
        tokens_used: test ? 0 : 1,
      })),
    )}`;
    // Test mode spends nothing: no debit, the balance stays as it is.
    if (test) return { ok: true as const, balance: available };
    const debits = await tx<{ id: number; reference: string }[]>`
      insert into token_debits ${tx(rows.map((r) => ({ user_id: userId, amount: 1, reference: r.id })))}
      returning id, reference`;
    const debitOf = new Map(debits.map((d) => [d.reference, d.id]));
    // One token per debit, taken from the grants in spending order.
    const allocations: { debit_id: number; grant_id: number; amount: number }[] = [];
    let g = 0;
    let left = grants[0]!.remaining;
    for (const r of rows) {
      while (left === 0) left = grants[++g]!.remaining;
      allocations.push({ debit_id: debitOf.get(r.id)!, grant_id: grants[g]!.id, amount: 1 });
      left--;
    }
    await tx`insert into token_allocations ${tx(allocations)}`;
    return { ok: true as const, balance: available - required };
  });
}

/** What beginGeneration reads in one round trip. */
export interface BegunGeneration {
  userId: string;
  designUrl: string;
  blankKey: string;
  status: GenerationStatus;
  placement: Placement;
  applyTexture: boolean;
  mockupKey: string | null;
  thumbnailKey: string | null;
  completedAt: Date | null;
  zx: number | null;
  zy: number | null;
  zw: number | null;
  zh: number | null;
  /** whether the generation's token is taken (a debit with its id exists), or it needs none (test mode) */
  charged: boolean;
  livemode: boolean;
}

/**
 * Marks the generation processing (if pending) and reads it with its print zone and whether its token is taken,
 * in one statement. Undefined when there is no such generation.
 */
export async function beginGeneration(sql: Sql, generationId: string): Promise<BegunGeneration | undefined> {
  const [row] = await sql<BegunGeneration[]>`
    with started as (
      update generations set status = 'processing', started_at = coalesce(started_at, now())
      where id = ${generationId} and status = 'pending'
      returning id
    )
    select g.user_id as "userId", g.design_url as "designUrl", g.blank_key as "blankKey",
           case when g.status = 'pending' and exists (select 1 from started) then 'processing' else g.status end as status,
           g.placement, g.apply_texture as "applyTexture", g.mockup_key as "mockupKey",
           g.thumbnail_key as "thumbnailKey", g.completed_at as "completedAt",
           z.rect_x as zx, z.rect_y as zy, z.rect_w as zw, z.rect_h as zh,
           (not g.livemode or exists (select 1 from token_debits d where d.reference = g.id)) as charged,
           g.livemode
    from generations g left join print_zones z on z.garment_id = g.garment_id and z.zone_id = g.zone
    where g.id = ${generationId}`;
  return row;
}

/**
 * Marks the generation completed with its files, once, and sends the finished notice when that commits (a waiting
 * synchronous request answers without waiting for the workflow to close: api/generation-notices.ts). Undefined when
 * the generation had already failed.
 */
export async function completeGeneration(
  sql: Sql,
  generationId: string,
  files: { mockupKey: string; thumbnailKey: string },
): Promise<{ completedAt: Date } | undefined> {
  const [row] = await sql<{ completedAt: Date }[]>`
    with done as (
      update generations set status = 'completed', mockup_key = ${files.mockupKey}, thumbnail_key = ${files.thumbnailKey},
             completed_at = coalesce(completed_at, now()), error = null
      where id = ${generationId} and status <> 'failed'
      returning completed_at
    )
    select completed_at as "completedAt", pg_notify(${GENERATION_FINISHED_CHANNEL}, ${generationId}) from done`;
  return row;
}

/** Where a generation stands after failAndRefund: failed by this call or an earlier one, or completed after all. */
export type GenerationOutcome =
  | { id: string; status: 'failed'; error: string; completedAt: Date; refunded: boolean }
  | { id: string; status: 'completed'; mockupKey: string; completedAt: Date }
  | { id: string; status: 'missing' };

/**
 * Fails generations and gives their tokens back, in one transaction: a row moves to `failed` only from `pending`
 * or `processing`, and only a row this call moved is refunded. A generation that completed in the meantime (a
 * render that committed after its step timed out) stays completed and keeps its token; one that already failed is
 * reported as it is. The finished notice goes out for each moved row. Used by the workflow's failure path, the API
 * when a workflow cannot be started, and the maintenance sweep.
 */
export async function failAndRefund(sql: Sql, ids: string[], error: string): Promise<GenerationOutcome[]> {
  if (ids.length === 0) return [];
  return sql.begin(async (tx) => {
    const moved = await tx<{ id: string }[]>`
      update generations set status = 'failed', error = coalesce(error, ${error.slice(0, 1000)}), tokens_used = 0,
             completed_at = coalesce(completed_at, now())
      where id in ${tx(ids)} and status in ('pending', 'processing')
      returning id`;
    const movedIds = new Set(moved.map((m) => m.id));
    const refunded = new Set<string>();
    for (const id of movedIds) {
      if (await refundDebitIn(tx, id)) refunded.add(id);
      await tx`select pg_notify(${GENERATION_FINISHED_CHANNEL}, ${id})`;
    }
    const rows = await tx<
      {
        id: string;
        status: GenerationStatus;
        error: string | null;
        mockupKey: string | null;
        completedAt: Date | null;
      }[]
    >`select id, status, error, mockup_key as "mockupKey", completed_at as "completedAt" from generations where id in ${tx(ids)}`;
    const byId = new Map(rows.map((r) => [r.id, r]));
    return ids.map((id): GenerationOutcome => {
      const r = byId.get(id);
      if (!r) return { id, status: 'missing' };
      if (r.status === 'completed' && r.mockupKey && r.completedAt) {
        return { id, status: 'completed', mockupKey: r.mockupKey, completedAt: r.completedAt };
      }
      return {
        id,
        status: 'failed',
        error: r.error ?? error,
        completedAt: r.completedAt ?? new Date(),
        refunded: refunded.has(id),
      };
    });
  });
}

/**
 * Generations still `pending` or `processing` `olderThanMs` after they were created or started, with the id of the
 * workflow that should be running them (a batch item's is its batch's).
 */
export function staleUnfinishedGenerations(sql: Sql, olderThanMs: number) {
  return sql<{ id: string; status: GenerationStatus; workflowId: string }[]>`
    select id, status, coalesce(batch_id, id) as "workflowId" from generations
    where status in ('pending', 'processing')
      and coalesce(started_at, created_at) < now() - make_interval(secs => ${olderThanMs / 1000})`;
}
