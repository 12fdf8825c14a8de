// Uploads and the storage they take: deduplication by SHA-256 within an account, the
// per-account storage total with race-safe reservations, and the retention of prepared levels.
import type { Sql } from './client';

export interface UploadRow {
  id: string;
  storageKey: string;
  thumbnailKey: string;
  mimeType: string;
  sizeBytes: number;
  width: number;
  height: number;
  name: string;
  createdAt: Date;
}

export interface NewUpload extends Omit<UploadRow, 'createdAt'> {
  userId: string;
  livemode: boolean;
  sha256: Buffer;
  thumbnailBytes: number;
  levelsBytes: number;
}

/** The columns of an UploadRow. */
export const UPLOAD_COLUMNS = `id, storage_key as "storageKey", thumbnail_key as "thumbnailKey", mime_type as "mimeType",
  size_bytes as "sizeBytes", width, height, name, created_at as "createdAt"`;

/**
 * An account's upload of the given bytes in one mode that is not deleted (the oldest, should there be several from
 * before deduplication).
 */
const FIND_BY_SHA = `
  select ${UPLOAD_COLUMNS}
  from uploads where user_id = $1 and sha256 = $2 and livemode = $3 and deleted_at is null
  order by created_at limit 1`;

/** The account's earlier upload of the same bytes in this mode (the oldest), and the bytes the account stores now. */
export async function uploadPrecheck(
  sql: Sql,
  userId: string,
  sha256: Buffer,
  livemode: boolean,
): Promise<{ existing: UploadRow | null; usedBytes: number }> {
  const [[existing], usedBytes] = await Promise.all([
    sql.unsafe<UploadRow[]>(FIND_BY_SHA, [userId, sha256, livemode]),
    storageUsed(sql, userId),
  ]);
  return { existing: existing ?? null, usedBytes };
}

/**
 * Adds `bytes` to the account's total if the result stays within `limit`, in one conditional statement: concurrent
 * reservations are serialised on the account's row, so together they never pass the limit. `usedBytes` is the
 * total after the reservation, or the total that refused it.
 */
export async function reserveStorage(
  sql: Sql,
  userId: string,
  bytes: number,
  limit: number,
): Promise<{ ok: boolean; usedBytes: number }> {
  const [row] = await sql<{ usedBytes: number }[]>`
    insert into storage_usage as s (user_id, used_bytes)
    select ${userId}, ${bytes}::bigint where ${bytes}::bigint <= ${limit}::bigint
    on conflict (user_id) do update set used_bytes = s.used_bytes + excluded.used_bytes, updated_at = now()
      where s.used_bytes + excluded.used_bytes <= ${limit}::bigint
    returning used_bytes as "usedBytes"`;
  if (row) return { ok: true, usedBytes: row.usedBytes };
  return { ok: false, usedBytes: await storageUsed(sql, userId) };
}

/** Gives back a reservation (an upload that failed or turned out to be a duplicate). */
export async function releaseStorage(sql: Sql, userId: string, bytes: number): Promise<void> {
  if (bytes <= 0) return;
  await sql`
    update storage_usage set used_bytes = greatest(0, used_bytes - ${bytes}::bigint), updated_at = now()
    where user_id = ${userId}`;
}

/**
 * Records an upload whose files are stored and whose bytes are reserved, unless the account already has an upload
 * of the same bytes (two identical uploads racing): then nothing is written and that upload is returned. The check
 * and the insert hold a transaction-scoped advisory lock on (account, hash).
 */
export async function insertUpload(
  sql: Sql,
  u: NewUpload,
): Promise<{ inserted: true; createdAt: Date } | { inserted: false; existing: UploadRow }> {
  return sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(hashtextextended(${u.userId} || ':' || encode(${u.sha256}::bytea, 'hex'), 11))`;
    const [existing] = await tx.unsafe<UploadRow[]>(FIND_BY_SHA, [u.userId, u.sha256, u.livemode]);
    if (existing) return { inserted: false as const, existing };
    const [row] = await tx<{ createdAt: Date }[]>`
      insert into uploads (id, user_id, storage_key, thumbnail_key, mime_type, size_bytes, width, height, sha256,
                           thumbnail_bytes, levels_bytes, name, livemode)
      values (${u.id}, ${u.userId}, ${u.storageKey}, ${u.thumbnailKey}, ${u.mimeType}, ${u.sizeBytes}, ${u.width},
              ${u.height}, ${u.sha256}, ${u.thumbnailBytes}, ${u.levelsBytes}, ${u.name}, ${u.livemode})
      returning created_at as "createdAt"`;
    return { inserted: true as const, createdAt: row!.createdAt };
  });
}

/**
 * Marks the upload stored under `storageKey` as used by a generation now, for the retention of its prepared levels.
 * Written at most once a day per upload, so most generations cost an index lookup and no write.
 */
export async function touchUploadLevels(sql: Sql, storageKey: string): Promise<void> {
  await sql`
    update uploads set levels_used_at = now()
    where storage_key = ${storageKey} and levels_bytes > 0
      and (levels_used_at is null or levels_used_at < now() - interval '1 day')`;
}

export interface ExpiredLevels {
  id: string;
  storageKey: string;
}

/**
 * A page of uploads whose prepared levels were last used (or, never used, made) more than `olderThanMs` ago, in
 * the order of that time. `after` is the cursor returned with the previous page (null: from the start).
 */
export async function expiredLevelsPage(
  sql: Sql,
  opts: { olderThanMs: number; after: string | null; limit: number },
): Promise<{ rows: ExpiredLevels[]; next: string | null }> {
  const after = opts.after ? (JSON.parse(opts.after) as { t: string; id: string }) : null;
  const rows = await sql<(ExpiredLevels & { t: string })[]>`
    select id, storage_key as "storageKey", coalesce(levels_used_at, created_at)::text as t from uploads
    where levels_bytes > 0
      and coalesce(levels_used_at, created_at) < now() - ${opts.olderThanMs} * interval '1 millisecond'
      ${after ? sql`and (coalesce(levels_used_at, created_at), id) > (${after.t}::timestamptz, ${after.id})` : sql``}
    order by coalesce(levels_used_at, created_at), id
    limit ${opts.limit}`;
  const last = rows.at(-1);
  return {
    rows: rows.map(({ id, storageKey }) => ({ id, storageKey })),
    next: last && rows.length === opts.limit ? JSON.stringify({ t: last.t, id: last.id }) : null,
  };
}

/**
 * After their files are deleted: records the uploads' prepared levels as gone and gives their bytes back to the
 * accounts, in one statement. An upload whose levels are already recorded as gone is skipped, so a repeated call
 * releases nothing twice. Returns how many uploads and bytes were released.
 */
export async function releaseExpiredLevels(sql: Sql, ids: string[]): Promise<{ uploads: number; bytes: number }> {
  if (ids.length === 0) return { uploads: 0, bytes: 0 };
  const [row] = await sql<{ uploads: number; bytes: number }[]>`
    with gone as (
      select id, user_id, levels_bytes from uploads where id = any(${ids}::text[]) and levels_bytes > 0 for update
    ), cleared as (
      update uploads u set levels_bytes = 0 from gone where u.id = gone.id returning gone.user_id, gone.levels_bytes
    ), per_account as (
      select user_id, sum(levels_bytes)::bigint as bytes from cleared group by user_id
    ), released as (
      update storage_usage s set used_bytes = greatest(0, s.used_bytes - p.bytes), updated_at = now()
      from per_account p where s.user_id = p.user_id returning 1
    )
    select (select count(*) from cleared)::int as uploads,
           (select coalesce(sum(levels_bytes), 0) from cleared)::bigint as bytes,
           (select count(*) from released)::int as accounts`;
  return { uploads: row?.uploads ?? 0, bytes: row?.bytes ?? 0 };
}

/**
 * Sets each account's total to the sum of its uploads' files and its templates' PSD/PSB files, for a page of accounts quiet for `quietMs` (no
 * reservation, release or retention in that time, so no upload of theirs is in flight). It corrects a total left
 * too high by a process that died between reserving and recording an upload. Returns the accounts corrected and
 * the cursor of the next page (null: done).
 */
export async function reconcileStorageUsagePage(
  sql: Sql,
  opts: { afterUserId: string | null; limit: number; quietMs: number },
): Promise<{ corrected: number; next: string | null }> {
  const [row] = await sql<{ corrected: number; last: string | null; n: number }[]>`
    with page as (
      select user_id from storage_usage
      ${opts.afterUserId ? sql`where user_id > ${opts.afterUserId}` : sql``}
      order by user_id limit ${opts.limit}
    ), actual as (
      select p.user_id,
             (coalesce((select sum(u.size_bytes::bigint + u.thumbnail_bytes + u.levels_bytes)
                        from uploads u where u.user_id = p.user_id and u.deleted_at is null), 0)
              + coalesce((select sum(t.source_bytes) from templates t where t.user_id = p.user_id), 0))::bigint
               as bytes
      from page p
    ), corrected as (
      update storage_usage s set used_bytes = a.bytes, updated_at = now()
      from actual a
      where s.user_id = a.user_id and s.used_bytes <> a.bytes
        and s.updated_at < now() - ${opts.quietMs} * interval '1 millisecond'
      returning 1
    )
    select (select count(*) from corrected)::int as corrected, (select max(user_id) from page) as last,
           (select count(*) from page)::int as n`;
  return { corrected: row?.corrected ?? 0, next: row && row.n === opts.limit ? row.last : null };
}

/** Bytes the account stores (0 when it has never uploaded). */
export async function storageUsed(sql: Sql, userId: string): Promise<number> {
  const [row] = await sql<{ usedBytes: number }[]>`
    select used_bytes as "usedBytes" from storage_usage where user_id = ${userId}`;
  return row?.usedBytes ?? 0;
}
