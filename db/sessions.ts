import type { Sql } from './client';

export async function deleteExpiredSessions(sql: Sql): Promise<number> {
  const res = await sql`delete from sessions where expires_at <= now()`;
  return res.count;
}
