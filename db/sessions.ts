// Browser sessions. A session is stored as the SHA-256 of its cookie token (api/auth/sessions.ts makes and hashes
// tokens), so a copy of the table signs no one in.
import type { Sql } from './client';

export async function insertSession(
  sql: Sql,
  s: { tokenHash: Buffer; userId: string; expiresAt: Date },
): Promise<void> {
  await sql`insert into sessions (token_hash, user_id, expires_at) values (${s.tokenHash}, ${s.userId}, ${s.expiresAt})`;
}

export async function deleteSession(sql: Sql, tokenHash: Buffer): Promise<void> {
  await sql`delete from sessions where token_hash = ${tokenHash}`;
}

export interface SessionUserRow {
  id: string;
  email: string;
  plan: string;
  createdAt: Date;
  /** when the session was last recorded as active (sessionSeen) */
  lastSeenAt: Date;
}

/** The user of the unexpired session whose token hashes to `tokenHash`, or undefined. */
export async function sessionUserByHash(sql: Sql, tokenHash: Buffer): Promise<SessionUserRow | undefined> {
  const [row] = await sql<SessionUserRow[]>`
    select u.id, u.email, u.plan, u.created_at as "createdAt", s.last_seen_at as "lastSeenAt"
    from sessions s join users u on u.id = s.user_id
    where s.token_hash = ${tokenHash} and s.expires_at > now()`;
  return row;
}

/** Records that the session was active now. */
export async function sessionSeen(sql: Sql, tokenHash: Buffer): Promise<void> {
  await sql`update sessions set last_seen_at = now() where token_hash = ${tokenHash}`;
}

export async function deleteExpiredSessions(sql: Sql): Promise<number> {
  const res = await sql`delete from sessions where expires_at <= now()`;
  return res.count;
}
