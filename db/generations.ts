// Generation rows: reads for the API and the state changes of the generation workflow (begin, complete,
// fail-and-refund). Every change is keyed by the generation id and moves a row only from the states it may leave, so a
// step that runs twice changes nothing the second time. Recording and charging new ones: db/generation-inserts.ts.
import {
  GENERATION_FINISHED_CHANNEL,
  type GenerationStatus,
  type Placement,
  type PixelBox,
  type PlacementBasis,
  type CompletedFiles,
  type TemplateDesign,
} from '../lib/generation/types';
import { RENDER_WARNING_CODES, type GenerationWarning } from '../lib/generation/warnings';
import type { Sql } from './client';
import { refundDebitIn } from './ledger';

export interface GenerationRow {
  id: string;
  status: GenerationStatus;
  mockupKey: string | null;
  thumbnailKey: string | null;
  tokensUsed: number;
  createdAt: Date;
  completedAt: Date | null;
  error: string | null;
  /** the garment, its colour and zone; null on a generation on a template (templateId and designs instead) */
  garmentId: string | null;
  color: string | null;
  zone: string | null;
  templateId: string | null;
  designs: TemplateDesign[] | null;
  placement: Placement;
  applyTexture: boolean;
  designUrl: string;
  /** the print zone used and where the design landed (blank pixels), and what the zone was placed relative to;
   * null until completed (and for generations completed before these were recorded) */
  printAreaPx: PixelBox | null;
  designBox: PixelBox | null;
  placementBasis: PlacementBasis | null;
  /** false for a test-mode generation (no token, watermarked mockup) */
  livemode: boolean;
  /** what the service noticed without refusing (lib/generation/warnings.ts); [] when nothing */
  warnings: GenerationWarning[];
}

const columns = (sql: Sql) => sql`
  id, status, mockup_key as "mockupKey", thumbnail_key as "thumbnailKey", tokens_used as "tokensUsed",
  created_at as "createdAt", completed_at as "completedAt", error, garment_id as "garmentId", color, zone,
  template_id as "templateId", designs, placement,
  apply_texture as "applyTexture", design_url as "designUrl", print_area_px as "printAreaPx",
  design_box as "designBox", placement_basis as "placementBasis", livemode, warnings`;

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

/** What the render step checks beside the render (markGenerationProcessing): may it complete, or is it done? */
export interface GenerationStart {
  status: GenerationStatus;
  /** whether the generation's token is taken (a debit with its id exists), or it needs none (test mode) */
  charged: boolean;
  /** the files of an earlier run that completed it (a re-run after a crash) */
  completed: CompletedFiles | null;
  /** the account's deletion was asked for: nothing is stored for it (docs/accounts.md#deletion) */
  accountDeleted: boolean;
}

/**
 * Marks the generation processing (if pending) and reads where it stands and whether its token is taken, in one
 * statement. Undefined when there is no such generation.
 */
export async function markGenerationProcessing(sql: Sql, generationId: string): Promise<GenerationStart | undefined> {
  const [row] = await sql<
    (Omit<GenerationStart, 'completed'> & {
      mockupKey: string | null;
      thumbnailKey: string | null;
      completedAt: Date | null;
    })[]
  >`
    with started as (
      update generations set status = 'processing', started_at = coalesce(started_at, now())
      where id = ${generationId} and status = 'pending'
      returning id
    )
    select case when g.status = 'pending' and exists (select 1 from started) then 'processing' else g.status end as status,
           (not g.livemode or exists (select 1 from token_debits d where d.reference = g.id)) as charged,
           exists (select 1 from users u where u.id = g.user_id and u.deleted_at is not null) as "accountDeleted",
           g.mockup_key as "mockupKey", g.thumbnail_key as "thumbnailKey", g.completed_at as "completedAt"
    from generations g
    where g.id = ${generationId}`;
  if (!row) return undefined;
  const { status, charged, accountDeleted, mockupKey, thumbnailKey, completedAt } = row;
  const done = status === 'completed' && mockupKey && thumbnailKey && completedAt;
  return {
    status,
    charged,
    accountDeleted,
    completed: done ? { mockupKey, thumbnailKey, completedAt: completedAt.toISOString() } : null,
  };
}

/**
 * Marks the generation completed with its files, once, and sends the finished notice when that commits (a waiting
 * synchronous request answers without waiting for the workflow to close: api/generation-notices.ts). Undefined when
 * the generation had already failed, no longer exists, or its account's deletion was asked for: the owner's row is
 * read FOR SHARE, so a deletion committing at the same moment is waited for and seen (db/account-deletion.ts
 * beginAccountDeletion updates that row). A generation completed before the deletion has its files listed by the
 * deletion's file step; one refused here has its files deleted by the caller (docs/accounts.md#deletion).
 */
export async function completeGeneration(
  sql: Sql,
  generationId: string,
  files: { mockupKey: string; thumbnailKey: string },
  landed?: { printArea: PixelBox; designBox: PixelBox; placementBasis: PlacementBasis },
  /** the render's warnings (garment_not_found, zone_clipped): they replace any of those codes already stored (a
   * re-run writes the same ones once), the others (low_contrast) stay */
  renderWarnings: GenerationWarning[] = [],
): Promise<{ completedAt: Date } | undefined> {
  const codes = RENDER_WARNING_CODES as readonly string[];
  const [row] = await sql<{ completedAt: Date }[]>`
    with owner as (
      select u.deleted_at is null as live from generations g join users u on u.id = g.user_id
      where g.id = ${generationId}
      for share of u
    ), done as (
      update generations set status = 'completed', mockup_key = ${files.mockupKey}, thumbnail_key = ${files.thumbnailKey},
             completed_at = coalesce(completed_at, now()), error = null,
             print_area_px = ${landed ? sql.json({ ...landed.printArea }) : null},
             design_box = ${landed ? sql.json({ ...landed.designBox }) : null},
             placement_basis = ${landed?.placementBasis ?? null},
             warnings = coalesce((select jsonb_agg(e) from jsonb_array_elements(warnings) e
                                  where e->>'code' <> all(${codes as string[]}::text[])), '[]'::jsonb)
                        || ${sql.json(renderWarnings as never)}::jsonb
      where id = ${generationId} and status <> 'failed' and coalesce((select live from owner), false)
      returning completed_at
    )
    select completed_at as "completedAt", pg_notify(${GENERATION_FINISHED_CHANNEL}, ${generationId}) from done`;
  return row;
}

/** Whether the generation's account is being (or was) deleted, or the generation is gone with its data. */
export async function generationAccountGone(sql: Sql, generationId: string): Promise<boolean> {
  const [row] = await sql<{ gone: boolean }[]>`
    select coalesce((select u.deleted_at is not null from generations g join users u on u.id = g.user_id
                     where g.id = ${generationId}), true) as gone`;
  return row!.gone;
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

/**
 * The account a generation belongs to; undefined when there is no such generation, or its account's deletion was
 * asked for (an account being deleted owns nothing any more: no callback is sent for it).
 */
export async function generationAccount(sql: Sql, generationId: string): Promise<string | undefined> {
  const [row] = await sql<{ userId: string }[]>`
    select g.user_id as "userId" from generations g join users u on u.id = g.user_id
    where g.id = ${generationId} and u.deleted_at is null`;
  return row?.userId;
}

/**
 * Calls `onFinished(generationId)` for each generation recorded finished from now on (the pg_notify of
 * completeGeneration and the failure path, channel GENERATION_FINISHED_CHANNEL); resolves once listening.
 */
export function listenForFinishedGenerations(sql: Sql, onFinished: (generationId: string) => void): Promise<unknown> {
  return sql.listen(GENERATION_FINISHED_CHANNEL, onFinished);
}
