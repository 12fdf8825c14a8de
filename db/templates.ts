// Template rows (docs/templates.md): the API records an import (processing) and reads, lists and deletes templates;
// the import workflow's activities complete or fail one. Every change is keyed by the template id and moves a row
// only from `processing`, so an activity that runs twice changes nothing the second time.
import type { Storage } from '../lib/storage';
import { outputsRefresher, type PreparedAgainHook } from '../lib/template-import/refresh';
import type { Sql } from './client';

export type TemplateStatus = 'processing' | 'ready' | 'failed';

/** JSON columns as the activities record them (the engine's plain data, lib/templates/types.ts). */
export interface TemplateSmartObject {
  id: string;
  name: string;
  width: number;
  height: number;
  quad: [[number, number], [number, number], [number, number], [number, number]];
  warp: string;
  blendMode: string;
  /** absent on templates imported before print sizes were read */
  printSize?: { widthIn: number; heightIn: number; ppi: number } | null;
}

export interface TemplateRow {
  id: string;
  userId: string;
  livemode: boolean;
  name: string;
  status: TemplateStatus;
  sourceKey: string;
  sourceBytes: number;
  format: 'psd' | 'psb';
  width: number;
  height: number;
  previewKey: string | null;
  thumbnailKey: string | null;
  preparedKey: string | null;
  smartObjects: TemplateSmartObject[];
  fidelity: { psnr: number; comparedTo: 'photoshop-composite' } | null;
  unsupported: { layer: string; feature: string }[];
  error: string | null;
  createdAt: Date;
  completedAt: Date | null;
}

const COLUMNS = `
  id, user_id as "userId", livemode, name, status, source_key as "sourceKey", source_bytes::float8 as "sourceBytes",
  format, width, height, preview_key as "previewKey", thumbnail_key as "thumbnailKey", prepared_key as "preparedKey",
  smart_objects as "smartObjects", fidelity, unsupported, error, created_at as "createdAt",
  completed_at as "completedAt"`;
const columns = (sql: Pick<Sql, 'unsafe'>) => sql.unsafe(COLUMNS);

export type NewTemplate = Pick<
  TemplateRow,
  'id' | 'userId' | 'livemode' | 'name' | 'sourceKey' | 'sourceBytes' | 'format' | 'width' | 'height'
>;

/**
 * Records a template being imported, unless the account already holds `maxPerAccount` templates (of both modes):
 * the count and the insert hold the account's row lock, so concurrent imports cannot pass the limit.
 */
export async function insertTemplate(
  sql: Sql,
  t: NewTemplate,
  maxPerAccount: number,
): Promise<{ inserted: true; row: TemplateRow } | { inserted: false; count: number }> {
  return sql.begin(async (tx) => {
    await tx`select id from users where id = ${t.userId} for update`;
    const [counted] = await tx<{ count: number }[]>`
      select count(*)::int as count from templates where user_id = ${t.userId}`;
    const count = counted?.count ?? 0;
    if (count >= maxPerAccount) return { inserted: false as const, count };
    const [row] = await tx<TemplateRow[]>`
      insert into templates (id, user_id, livemode, name, source_key, source_bytes, format, width, height)
      values (${t.id}, ${t.userId}, ${t.livemode}, ${t.name}, ${t.sourceKey}, ${t.sourceBytes}, ${t.format},
              ${t.width}, ${t.height})
      returning ${columns(tx)}`;
    return { inserted: true as const, row: row! };
  }) as Promise<{ inserted: true; row: TemplateRow } | { inserted: false; count: number }>;
}

/** One of the account's templates, of the given mode. */
export async function getTemplate(
  sql: Sql,
  userId: string,
  id: string,
  livemode: boolean,
): Promise<TemplateRow | undefined> {
  const [row] = await sql<TemplateRow[]>`
    select ${columns(sql)} from templates where id = ${id} and user_id = ${userId} and livemode = ${livemode}`;
  return row;
}

/** A template by id alone (the worker's activities, which act for the account that started them). */
export async function templateById(sql: Sql, id: string): Promise<TemplateRow | undefined> {
  const [row] = await sql<TemplateRow[]>`select ${columns(sql)} from templates where id = ${id}`;
  return row;
}

/** A page of the account's templates of one mode, newest first, after the cursor's position. */
export function listTemplates(
  sql: Sql,
  userId: string,
  opts: { after?: { c: string; i: string }; limit: number; livemode: boolean },
) {
  const { after, limit } = opts;
  return sql<TemplateRow[]>`
    select ${columns(sql)} from templates
    where user_id = ${userId} and livemode = ${opts.livemode}
      ${after ? sql`and (created_at, id) < (${after.c}::timestamptz, ${after.i})` : sql``}
    order by created_at desc, id desc
    limit ${limit}`;
}

/** Deletes one of the account's templates; returns the row it was (its files are then the caller's to delete). */
export async function deleteTemplate(
  sql: Sql,
  userId: string,
  id: string,
  livemode: boolean,
): Promise<TemplateRow | undefined> {
  const [row] = await sql<TemplateRow[]>`
    delete from templates where id = ${id} and user_id = ${userId} and livemode = ${livemode}
    returning ${columns(sql)}`;
  return row;
}

/**
 * The template's owner row FOR SHARE, as a CTE `owner(live)` for a statement that writes the template: an account
 * whose deletion was asked for (or commits now) gets nothing written (`coalesce((select live from owner), false)`).
 */
const liveOwner = (sql: Sql, id: string) => sql`
    with owner as (
      select u.deleted_at is null as live from templates t join users u on u.id = t.user_id
      where t.id = ${id}
      for share of u
    )`;

export interface CompletedImport {
  previewKey: string;
  thumbnailKey: string;
  preparedKey: string;
  smartObjects: TemplateSmartObject[];
  fidelity: TemplateRow['fidelity'];
  unsupported: TemplateRow['unsupported'];
}

/**
 * Marks an import ready. False when the row is no longer processing (already completed by an earlier attempt, or
 * deleted meanwhile): the caller then deletes the files it stored, unless they are the row's own.
 */
export async function completeTemplateImport(
  sql: Sql,
  id: string,
  c: CompletedImport,
): Promise<TemplateRow | undefined> {
  // the owner's row FOR SHARE: an account whose deletion was asked for (or commits now) gets nothing completed
  const [row] = await sql<TemplateRow[]>`
    ${liveOwner(sql, id)}
    update templates set status = 'ready', preview_key = ${c.previewKey}, thumbnail_key = ${c.thumbnailKey},
      prepared_key = ${c.preparedKey}, smart_objects = ${sql.json(c.smartObjects as never)},
      fidelity = ${c.fidelity ? sql.json(c.fidelity) : null}, unsupported = ${sql.json(c.unsupported)},
      completed_at = now()
    where id = ${id} and status = 'processing' and coalesce((select live from owner), false)
    returning ${columns(sql)}`;
  return row;
}

/**
 * A ready template's preview, thumbnail and fidelity made again by this engine (its prepared data prepared again,
 * lib/template-import/refresh.ts): one statement, so the resource shows the old outputs or the new, never half.
 * Returns the keys the row named before (the row locked first, so of two racing refreshes the second sees the
 * first's keys), for the caller to delete those it no longer names. A row deleted, not ready, or of an account
 * whose deletion began is left as it is (undefined).
 */
export async function refreshTemplateOutputs(
  sql: Sql,
  id: string,
  c: Pick<CompletedImport, 'previewKey' | 'thumbnailKey' | 'fidelity'>,
): Promise<{ previewKey: string | null; thumbnailKey: string | null } | undefined> {
  const [row] = await sql<{ previewKey: string | null; thumbnailKey: string | null }[]>`
    ${liveOwner(sql, id)},
    old as (select id, preview_key, thumbnail_key from templates where id = ${id} for update)
    update templates t set preview_key = ${c.previewKey}, thumbnail_key = ${c.thumbnailKey},
      fidelity = ${c.fidelity ? sql.json(c.fidelity) : null}
    from old
    where t.id = old.id and t.status = 'ready' and coalesce((select live from owner), false)
    returning old.preview_key as "previewKey", old.thumbnail_key as "thumbnailKey"`;
  return row;
}

/** Marks an import failed with the reason a client can act on; a row no longer processing is left as it is. */
export async function failTemplateImport(sql: Sql, id: string, error: string): Promise<TemplateRow | undefined> {
  const [row] = await sql<TemplateRow[]>`
    update templates set status = 'failed', error = ${error.slice(0, 1000)}, completed_at = now()
    where id = ${id} and status = 'processing'
    returning ${columns(sql)}`;
  return row;
}

/** The prepared-template caches' hook (the worker's and the API's): a template prepared again by a newer engine has
 * its preview and thumbnail made again and saved on its row (refreshTemplateOutputs). */
export function templateOutputsRefresher(sql: Sql, storage: Storage): PreparedAgainHook {
  return outputsRefresher(storage, (id, o) => refreshTemplateOutputs(sql, id, o));
}
