// API keys (Part A credentials). Stored as the SHA-256 of the key with its last four characters; the key itself is
// shown once and never stored (api/auth/api-keys.ts makes and hashes keys).
import type { Sql, Tx } from './client';
import { balanceOf } from './ledger';

/** A key as the account's key management sees it. */
export interface ApiKeyRow {
  id: string;
  name: string;
  lastFour: string;
  createdAt: Date;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  /** `live` or `test` (docs/test-mode.md) */
  mode: KeyMode;
}

/** A key's environment: `test` keys spend no tokens and see only test data (docs/test-mode.md). */
export type KeyMode = 'live' | 'test';

const keyColumns = (sql: Tx) => sql`
  id, name, last_four as "lastFour", created_at as "createdAt", expires_at as "expiresAt",
  last_used_at as "lastUsedAt", revoked_at as "revokedAt", mode`;

/**
 * Inserts a key unless the account already holds `maxActive` active (not revoked, not expired) keys of its mode (test
 * keys never use up the live ones): null then. Key creation is serialized per account (the user's row is locked) so the cap holds under parallel requests.
 */
export function createApiKey(
  sql: Sql,
  k: {
    id: string;
    userId: string;
    name: string;
    keyHash: Buffer;
    lastFour: string;
    expiresAt: Date | null;
    mode: KeyMode;
  },
  maxActive: number,
): Promise<ApiKeyRow | null> {
  return sql.begin(async (tx) => {
    await tx`select id from users where id = ${k.userId} for update`;
    const [active] = await tx<{ n: number }[]>`
      select count(*)::int as n from api_keys
      where user_id = ${k.userId} and mode = ${k.mode} and revoked_at is null
        and (expires_at is null or expires_at > now())`;
    if ((active?.n ?? 0) >= maxActive) return null;
    const [created] = await tx<ApiKeyRow[]>`
      insert into api_keys (id, user_id, name, key_hash, last_four, expires_at, mode)
      values (${k.id}, ${k.userId}, ${k.name}, ${k.keyHash}, ${k.lastFour}, ${k.expiresAt}, ${k.mode})
      returning ${keyColumns(tx)}`;
    return created!;
  });
}

/** The account's keys, newest first. */
export function listApiKeys(sql: Sql, userId: string): Promise<ApiKeyRow[]> {
  return sql<ApiKeyRow[]>`
    select ${keyColumns(sql)} from api_keys where user_id = ${userId} order by created_at desc, id desc`;
}

/**
 * Revokes the account's key; undefined when it has no such key. coalesce keeps the first revocation time: revoking
 * twice is harmless and changes nothing.
 */
export async function revokeApiKey(sql: Sql, userId: string, id: string): Promise<ApiKeyRow | undefined> {
  const [row] = await sql<ApiKeyRow[]>`
    update api_keys set revoked_at = coalesce(revoked_at, now()) where id = ${id} and user_id = ${userId}
    returning ${keyColumns(sql)}`;
  return row;
}

/** Deletes the account's key for good; false when it has no such key. */
export async function deleteApiKey(sql: Sql, userId: string, id: string): Promise<boolean> {
  const deleted = await sql`delete from api_keys where id = ${id} and user_id = ${userId} returning id`;
  return deleted.length > 0;
}

/** A key found by its hash, with its account and its balance: what authenticating a request needs. */
export interface KeyAuthRow {
  id: string;
  userId: string;
  keyHash: Buffer;
  revokedAt: Date | null;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
  /** `test` keys spend no tokens and see only test data (docs/test-mode.md) */
  mode: KeyMode;
  email: string;
  plan: string;
  createdAt: Date;
  /** the account's spendable balance (db/ledger.ts tokenBalance), for X-Tokens-Remaining */
  balance: number;
}

/**
 * The key whose SHA-256 is `keyHash` (an indexed equality lookup), its account and the account's balance, in one
 * round trip; or undefined.
 */
export async function apiKeyByHash(sql: Sql, keyHash: Buffer): Promise<KeyAuthRow | undefined> {
  const [row] = await sql<KeyAuthRow[]>`
    select k.id, k.user_id as "userId", k.key_hash as "keyHash", k.revoked_at as "revokedAt", k.expires_at as "expiresAt",
           k.last_used_at as "lastUsedAt", k.mode, u.email, u.plan, u.created_at as "createdAt",
           ${balanceOf(sql, sql`k.user_id`)} as balance
    from api_keys k join users u on u.id = k.user_id
    where k.key_hash = ${keyHash}`;
  return row;
}

/** Records that the key was used now (advisory: the caller writes it at most once a minute per key). */
export async function touchApiKey(sql: Sql, id: string): Promise<void> {
  await sql`update api_keys set last_used_at = now() where id = ${id}`;
}
