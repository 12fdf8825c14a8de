// The design library (issue 35): an account's uploads of one mode listed, read, renamed and deleted, their latest
// analysis, and what a generate needs to know about a design URL (deleted? whose? its inks). A deleted upload keeps
// its row as a tombstone (deleted_at) with its files erased and its bytes given back to the storage total.
import type { KeptAnalysis } from '../lib/analysis';
import type { Sql } from './client';
import { UPLOAD_COLUMNS, type UploadRow } from './uploads';

/**
 * The stored analysis of an upload: what lib/analysis's analysisToKeep makes (the analysis resource and the inks the
 * contrast checks read), as read back from its JSON column: `version` and `quantity` are absent on analyses kept
 * before they were.
 */
export type StoredAnalysis = Omit<KeptAnalysis, 'result' | 'version' | 'quantity'> & {
  result: unknown;
  version?: number;
  quantity?: number;
};

export interface LibraryRow extends UploadRow {
  analysis: StoredAnalysis | null;
  analyzedAt: Date | null;
}

const LIBRARY_COLUMNS = `${UPLOAD_COLUMNS}, analysis, analyzed_at as "analyzedAt"`;

/** `%`, `_` and `\` taken literally in a LIKE pattern. */
const likeLiteral = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/** A page of the account's uploads of one mode, newest first, optionally whose name contains `q` (any case). */
export function listUploads(
  sql: Sql,
  userId: string,
  opts: { livemode: boolean; q?: string | undefined; after?: { c: string; i: string } | undefined; limit: number },
): Promise<LibraryRow[]> {
  const { after, q } = opts;
  return sql<LibraryRow[]>`
    select ${sql.unsafe(LIBRARY_COLUMNS)} from uploads
    where user_id = ${userId} and livemode = ${opts.livemode} and deleted_at is null
      ${q ? sql`and name ilike '%' || ${likeLiteral(q)} || '%'` : sql``}
      ${after ? sql`and (created_at, id) < (${after.c}::timestamptz, ${after.i})` : sql``}
    order by created_at desc, id desc
    limit ${opts.limit}`;
}

/** The account's upload of this mode that is not deleted, or undefined. */
export async function getUpload(sql: Sql, userId: string, id: string, livemode: boolean) {
  const [row] = await sql.unsafe<LibraryRow[]>(
    `select ${LIBRARY_COLUMNS} from uploads
     where id = $1 and user_id = $2 and livemode = $3 and deleted_at is null`,
    [id, userId, livemode],
  );
  return row;
}

/** Renames the account's upload; undefined when there is none (of this mode, not deleted). */
export async function renameUpload(sql: Sql, userId: string, id: string, livemode: boolean, name: string) {
  const [row] = await sql.unsafe<LibraryRow[]>(
    `update uploads set name = $4
     where id = $1 and user_id = $2 and livemode = $3 and deleted_at is null
     returning ${LIBRARY_COLUMNS}`,
    [id, userId, livemode, name],
  );
  return row;
}

/** The files of a deleted upload, to erase. */
export interface DeletedUpload {
  storageKey: string;
  thumbnailKey: string;
  /** bytes given back to the account's storage total */
  releasedBytes: number;
}

/**
 * Marks the account's upload deleted and gives the bytes of its files back to the storage total, in one statement;
 * undefined when there is no such upload (of this mode, not already deleted). The caller then erases the files.
 */
export async function deleteUpload(
  sql: Sql,
  userId: string,
  id: string,
  livemode: boolean,
): Promise<DeletedUpload | undefined> {
  const [row] = await sql<DeletedUpload[]>`
    with gone as (
      select id, size_bytes::bigint + thumbnail_bytes + levels_bytes as bytes from uploads
      where id = ${id} and user_id = ${userId} and livemode = ${livemode} and deleted_at is null
      for update
    ), marked as (
      update uploads u set deleted_at = now(), thumbnail_bytes = 0, levels_bytes = 0
      from gone where u.id = gone.id
      returning u.storage_key, u.thumbnail_key, gone.bytes
    ), released as (
      update storage_usage s set used_bytes = greatest(0, s.used_bytes - m.bytes), updated_at = now()
      from marked m where s.user_id = ${userId}
      returning 1
    )
    select storage_key as "storageKey", thumbnail_key as "thumbnailKey", bytes::bigint as "releasedBytes"
    from marked`;
  return row
    ? { storageKey: row.storageKey, thumbnailKey: row.thumbnailKey, releasedBytes: row.releasedBytes }
    : undefined;
}

/** What a generate needs to know about the upload stored under a key (its original or its thumbnail). */
export interface DesignUpload {
  id: string;
  userId: string;
  name: string;
  deleted: boolean;
  livemode: boolean;
  analysis: StoredAnalysis | null;
}

/**
 * The uploads stored under these keys (originals or thumbnails), deleted ones included. One key (a generate's design,
 * an analysis by URL) is an equality on each unique key column, whose plan PostgreSQL keeps for the connection after
 * its first five calls; the join over a key array is planned again on every call (its generic plan, estimated for ten
 * keys, never looks cheaper than the custom one for the keys given): ~0.2 ms of planning per generate (issue 34).
 */
export function uploadsByKeys(sql: Sql, keys: string[]): Promise<(DesignUpload & { key: string })[]> {
  if (keys.length === 1)
    return sql<(DesignUpload & { key: string })[]>`
      select ${keys[0]!}::text as key, u.id, u.user_id as "userId", u.name, u.deleted_at is not null as deleted,
        u.livemode, u.analysis
      from uploads u where u.storage_key = ${keys[0]!} or u.thumbnail_key = ${keys[0]!}`;
  return sql<(DesignUpload & { key: string })[]>`
    select k.key, u.id, u.user_id as "userId", u.name, u.deleted_at is not null as deleted, u.livemode, u.analysis
    from unnest(${keys}::text[]) as k(key)
    join uploads u on u.storage_key = k.key or u.thumbnail_key = k.key`;
}

/**
 * Records an upload's latest analysis (the account's own upload stored under `storageKey`). `first`: only when it has
 * none yet (a new upload's analysis in the worker does not replace one an ask kept meanwhile); false when not kept.
 */
export async function saveUploadAnalysis(
  sql: Sql,
  userId: string,
  storageKey: string,
  analysis: StoredAnalysis,
  opts: { first?: boolean } = {},
): Promise<boolean> {
  const done = await sql`
    update uploads set analysis = ${sql.json(analysis as never)}, analyzed_at = now()
    where storage_key = ${storageKey} and user_id = ${userId} and deleted_at is null
      and (${!opts.first} or analysis is null)`;
  return done.count > 0;
}
