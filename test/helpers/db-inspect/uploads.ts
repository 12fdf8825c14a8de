// Uploads: the sizes recorded for them and their prepared levels, the storage total, the quota migration.
import type { UploadRow as StoredUploadRow } from '../../../db/uploads';
import { ago, sql } from './sql';

export interface UploadSizes {
  id: string;
  sizeBytes: number;
  thumbnailBytes: number;
  levelsBytes: number;
  levelsUsedAt: Date | null;
}

const uploadColumns = () =>
  sql()`id, size_bytes as "sizeBytes", thumbnail_bytes as "thumbnailBytes", levels_bytes as "levelsBytes",
    levels_used_at as "levelsUsedAt"`;

/** The sizes recorded for a user's uploads, oldest first. */
export async function uploadSizes(userId: string): Promise<UploadSizes[]> {
  return sql()<UploadSizes[]>`select ${uploadColumns()} from uploads where user_id = ${userId} order by created_at`;
}

/** The sizes recorded for one upload. */
export async function uploadSize(id: string): Promise<UploadSizes> {
  const [row] = await sql()<UploadSizes[]>`select ${uploadColumns()} from uploads where id = ${id}`;
  if (!row) throw new Error(`no upload ${id}`);
  return row;
}

/** The service's upload row (db/uploads.ts) with its owner and hash, without its library fields. */
export type UploadRow = Omit<StoredUploadRow, 'id' | 'name' | 'createdAt'> & { userId: string; sha256: Buffer };

/** What is recorded for one upload, or undefined when there is no such upload. */
export async function uploadRow(id: string): Promise<UploadRow | undefined> {
  const [row] = await sql()<UploadRow[]>`select user_id as "userId", storage_key as "storageKey",
      thumbnail_key as "thumbnailKey", mime_type as "mimeType", size_bytes as "sizeBytes", width, height, sha256
    from uploads where id = ${id}`;
  return row && { ...row, sha256: Buffer.from(row.sha256) };
}

/** The storage keys of a user's uploads, oldest first. */
export async function uploadKeys(userId: string): Promise<string[]> {
  const rows = await sql()<{ key: string }[]>`
    select storage_key as key from uploads where user_id = ${userId} order by created_at`;
  return rows.map((r) => r.key);
}

/** Makes an upload `created` old and, if given, its prepared levels last used `levelsUsed` ago (intervals). */
export async function backdateUpload(id: string, ages: { created: string; levelsUsed?: string }): Promise<void> {
  await sql()`update uploads set created_at = ${ago(ages.created)},
      levels_used_at = coalesce(now() - ${ages.levelsUsed ?? null}::interval, levels_used_at)
    where id = ${id}`;
}

/** Makes an account's storage total wrong by `bytes`, as a crash between reservation and row leaves it; last
 *  changed `changed` ago (an interval), if given. */
export async function skewStorageUsage(userId: string, bytes: number, changed?: string): Promise<void> {
  await sql()`update storage_usage set used_bytes = used_bytes + ${bytes},
      updated_at = coalesce(now() - ${changed ?? null}::interval, updated_at)
    where user_id = ${userId}`;
}

/**
 * Runs a migration's backfill statement in a transaction that is rolled back, and returns the uploads of `userIds`
 * whose levels_bytes it would change, and how many of them have levels.
 */
export async function levelsBackfillDryRun(
  backfill: string,
  userIds: string[],
): Promise<{ changed: unknown[]; withLevels: number }> {
  const rollback = new Error('rollback');
  let out: { changed: unknown[]; withLevels: number } | undefined;
  await sql()
    .begin(async (tx) => {
      await tx`create temp table before_backfill on commit drop as select id, levels_bytes from uploads`;
      await tx.unsafe(backfill);
      const changed = await tx`
        select u.id, b.levels_bytes as recorded, u.levels_bytes as computed, u.width, u.height
        from uploads u join before_backfill b using (id)
        where u.user_id = any(${userIds}::text[]) and u.levels_bytes <> b.levels_bytes`;
      const [n] = await tx<{ n: number }[]>`
        select count(*)::int as n from uploads where user_id = any(${userIds}::text[]) and levels_bytes > 0`;
      out = { changed: [...changed], withLevels: n!.n };
      throw rollback;
    })
    .catch((err: unknown) => {
      if (err !== rollback) throw err;
    });
  return out!;
}

/** Makes an upload's stored analysis look like one made before analyses carried their version. */
export async function dropAnalysisVersion(id: string): Promise<void> {
  await sql()`update uploads set analysis = analysis - 'version' where id = ${id} and analysis is not null`;
}
