// Idempotency keys of Part A's POST routes (api/middleware/idempotency.ts). A row per (account, key) holds the
// request's fingerprint, the lock of the request running with the key, its recovery point (what it created, written
// in the transaction that charged) and, once answered, the stored answer. Every change of a held key is conditional
// on the holder's lock token, so a request whose lock was taken over changes nothing.
import { randomUUID } from 'node:crypto';
import { jsonParam, type Sql, type Tx } from './client';

/** A key held by one running request. */
export interface IdempotencyRef {
  accountId: string;
  key: string;
  token: string;
  /** how long the request holds the key from each claim or renewal (config.idempotency.lockMs) */
  lockMs: number;
}

/** What a request created before it answered: enough to rebuild its answer if it never stored one. */
export interface RecoveryPoint {
  generationIds: string[];
  batchId?: string | null;
  /** The design chat's render job (POST /api/chat): its answer is the job's, as GET /api/chat/jobs/<id> gives it. */
  chatJobId?: string;
}

export interface StoredAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

export type Claim =
  /** The key is this request's: run it (or, with a recovery point, rebuild the answer of the request that died). */
  | { kind: 'acquired'; ref: IdempotencyRef; recovery: RecoveryPoint | null }
  | { kind: 'replay'; answer: StoredAnswer }
  /** The key was used for another request (method, path or body) within its lifetime. */
  | { kind: 'conflict' }
  /** Another request with the key is running. */
  | { kind: 'in_flight' };

/** The transaction that charged found the key held by another request (its lock had expired and was taken over). */
export class IdempotencyKeyLost extends Error {
  constructor(key: string) {
    super(`Idempotency key ${key} was taken over by another request`);
    this.name = 'IdempotencyKeyLost';
  }
}

interface ExistingRow {
  fingerprint: Buffer;
  status: number | null;
  headers: Record<string, string> | null;
  body: Buffer | null;
  lockToken: string | null;
  locked: boolean;
}

/**
 * Claims `key` for a request with this fingerprint. A new key, or one past its lifetime, is inserted (or reset)
 * locked; an existing one answers replay, conflict or in_flight; an unanswered one whose lock has run out (its API
 * died, or its request failed after charging) is taken over with its recovery point. Races are settled by the row:
 * the insert-or-reset and the takeover are each one conditional statement, retried when the row changed between
 * reading it and claiming it.
 */
export async function claimIdempotencyKey(
  sql: Sql,
  opts: { accountId: string; key: string; fingerprint: Buffer; ttlMs: number; lockMs: number },
): Promise<Claim> {
  const { accountId, key, fingerprint, ttlMs, lockMs } = opts;
  for (let attempt = 0; ; attempt++) {
    const token = randomUUID();
    const inserted = await sql`
      insert into idempotency_keys as k (account_id, key, fingerprint, expires_at, lock_token, locked_until)
      values (${accountId}, ${key}, ${fingerprint}, now() + ${ttlMs} * interval '1 millisecond', ${token},
              now() + ${lockMs} * interval '1 millisecond')
      on conflict (account_id, key) do update set
        fingerprint = excluded.fingerprint, created_at = now(), expires_at = excluded.expires_at,
        lock_token = excluded.lock_token, locked_until = excluded.locked_until,
        recovery = null, status = null, headers = null, body = null
      where k.expires_at <= now()
      returning 1`;
    if (inserted.length > 0) return { kind: 'acquired', ref: { accountId, key, token, lockMs }, recovery: null };

    const [row] = await sql<ExistingRow[]>`
      select fingerprint, status, headers, body, lock_token as "lockToken",
             coalesce(locked_until > now(), false) as locked
      from idempotency_keys where account_id = ${accountId} and key = ${key} and expires_at > now()`;
    if (row) {
      if (!row.fingerprint.equals(fingerprint)) return { kind: 'conflict' };
      if (row.status !== null) {
        return { kind: 'replay', answer: { status: row.status, headers: row.headers ?? {}, body: row.body! } };
      }
      if (row.locked) return { kind: 'in_flight' };
      const [taken] = await sql<{ recovery: RecoveryPoint | null }[]>`
        update idempotency_keys set lock_token = ${token}, locked_until = now() + ${lockMs} * interval '1 millisecond'
        where account_id = ${accountId} and key = ${key} and status is null
          and lock_token is not distinct from ${row.lockToken}::uuid
          and (locked_until is null or locked_until <= now())
        returning recovery`;
      if (taken) return { kind: 'acquired', ref: { accountId, key, token, lockMs }, recovery: taken.recovery };
    }
    // the row changed (answered, released, deleted or expired) between the statements: look again
    if (attempt >= 4) throw new Error(`could not claim idempotency key ${key}: the row keeps changing`);
  }
}

/**
 * Records what the holder of `ref` created, inside the transaction that created and charged it, and renews the
 * lock for `ref.lockMs`. When the key is no longer this request's, throws IdempotencyKeyLost so that the transaction rolls back:
 * a request never charges under a key another request holds.
 */
export async function recordRecoveryPoint(tx: Tx, ref: IdempotencyRef, point: RecoveryPoint): Promise<void> {
  const rows = await tx`
    update idempotency_keys
    set recovery = ${jsonParam(tx, point)},
        locked_until = greatest(locked_until, now() + ${ref.lockMs} * interval '1 millisecond')
    where account_id = ${ref.accountId} and key = ${ref.key} and lock_token = ${ref.token}
    returning 1`;
  if (rows.length === 0) throw new IdempotencyKeyLost(ref.key);
}

/**
 * Forgets the recovery point of the holder of `ref` (what it created charged nothing and was undone), so that
 * releasing the key deletes it and a retry runs the request again.
 */
export async function forgetRecoveryPoint(sql: Sql, ref: IdempotencyRef): Promise<void> {
  await sql`update idempotency_keys set recovery = null
    where account_id = ${ref.accountId} and key = ${ref.key} and lock_token = ${ref.token}`;
}

/** Stores the answer of the holder of `ref` and unlocks the key. False when the key was no longer its. */
export async function storeIdempotentAnswer(sql: Sql, ref: IdempotencyRef, answer: StoredAnswer): Promise<boolean> {
  const rows = await sql`
    update idempotency_keys
    set status = ${answer.status}, headers = ${sql.json(answer.headers)}, body = ${answer.body},
        lock_token = null, locked_until = null
    where account_id = ${ref.accountId} and key = ${ref.key} and lock_token = ${ref.token}
    returning 1`;
  return rows.length > 0;
}

/**
 * The holder of `ref` answered with an error that is not stored. A key with no recovery point is deleted (nothing
 * was created: the client may retry, with this body or another); one with a recovery point (the request charged,
 * then failed) is unlocked, so the next request with the key rebuilds the answer from what was created.
 */
export async function releaseIdempotencyKey(sql: Sql, ref: IdempotencyRef): Promise<void> {
  await sql`
    with gone as (
      delete from idempotency_keys
      where account_id = ${ref.accountId} and key = ${ref.key} and lock_token = ${ref.token} and recovery is null
      returning 1
    )
    update idempotency_keys set lock_token = null, locked_until = null
    where account_id = ${ref.accountId} and key = ${ref.key} and lock_token = ${ref.token}
      and not exists (select 1 from gone)`;
}

/** Deletes keys past their lifetime, in pages; returns how many. */
export async function deleteExpiredIdempotencyKeys(sql: Sql, pageSize = 5000): Promise<number> {
  let total = 0;
  for (;;) {
    const res = await sql`
      delete from idempotency_keys where ctid = any(array(
        select ctid from idempotency_keys where expires_at <= now() limit ${pageSize}))`;
    total += res.count;
    if (res.count < pageSize) return total;
  }
}
