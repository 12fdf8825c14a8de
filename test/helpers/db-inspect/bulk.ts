// Bulk renders: the bulk's row and its items.
import { sql } from './sql';

/** How many bulk renders a user has. */
export async function bulkCount(userId: string): Promise<number> {
  const [row] = await sql()<{ n: number }[]>`select count(*)::int as n from bulk_jobs where user_id = ${userId}`;
  return row!.n;
}

/** The render job stored for each item of a bulk, in item order. */
export async function bulkItemJobs(bulkId: string): Promise<any[]> {
  const rows = await sql()<{ job: any }[]>`select job from bulk_items where bulk_id = ${bulkId} order by position`;
  return rows.map((r) => r.job);
}

/** A bulk's archive key and finish time as stored. */
export async function bulkArchive(bulkId: string): Promise<{ archiveKey: string | null; finishedAt: Date | null }> {
  const [row] = await sql()<{ archiveKey: string | null; finishedAt: Date | null }[]>`
    select archive_key as "archiveKey", finished_at as "finishedAt" from bulk_jobs where id = ${bulkId}`;
  if (!row) throw new Error(`no bulk ${bulkId}`);
  return row;
}

/** Puts a finished bulk back to the moment before its last step: running, no archive, not finished. */
export async function reopenBulk(bulkId: string): Promise<void> {
  await sql()`update bulk_jobs set status = 'running', archive_key = null, finished_at = null where id = ${bulkId}`;
}
