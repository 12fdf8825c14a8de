// The API-key lookup of Part A authentication (api/auth/api-keys.ts requireApiKey): the key by the SHA-256 of its
// secret, its account, and the account's spendable balance (for X-Tokens-Remaining), in one round trip.
import type { Sql } from './client';
import { balanceOf } from './ledger';

export interface AuthKeyRow {
  id: string;
  userId: string;
  keyHash: Buffer;
  revokedAt: Date | null;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
  email: string;
  plan: string;
  createdAt: Date;
  /** the account's spendable balance (db/ledger.ts tokenBalance) */
  balance: number;
}

export async function findKeyForAuth(sql: Sql, keyHash: Buffer): Promise<AuthKeyRow | undefined> {
  const [row] = await sql<AuthKeyRow[]>`
    select k.id, k.user_id as "userId", k.key_hash as "keyHash", k.revoked_at as "revokedAt", k.expires_at as "expiresAt",
           k.last_used_at as "lastUsedAt", u.email, u.plan, u.created_at as "createdAt",
           ${balanceOf(sql, sql`k.user_id`)} as balance
    from api_keys k join users u on u.id = k.user_id
    where k.key_hash = ${keyHash}`;
  return row;
}

/** lastUsedAt is advisory: the caller writes it at most once a minute per key. */
export async function touchKey(sql: Sql, id: string): Promise<void> {
  await sql`update api_keys set last_used_at = now() where id = ${id}`;
}
