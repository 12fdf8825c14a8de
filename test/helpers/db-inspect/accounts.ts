// Accounts: users, sessions, API keys, the links mailed to users, the mail outbox, idempotency keys, and how many rows
// an account holds.
import { ago, sql } from './sql';

/** A user row with no password to sign in with, made directly (created at `createdAt`, if given). */
export async function insertUser(id: string, createdAt?: Date): Promise<string> {
  await sql()`insert into users (id, email, password_hash, created_at)
    values (${id}, ${`${id}@example.test`}, 'x', ${createdAt ?? sql()`now()`})`;
  return id;
}

export interface UserRow {
  email: string;
  plan: string;
  passwordHash: string;
  erasedAt: Date | null;
}

/** A user's row, or undefined once it is gone. */
export async function userRow(id: string): Promise<UserRow | undefined> {
  const [row] = await sql()<UserRow[]>`select email, plan, password_hash as "passwordHash", erased_at as "erasedAt"
    from users where id = ${id}`;
  return row;
}

/** The id of the user signed up with `email` (a journey knows the address it typed, not the id). */
export async function userIdByEmail(email: string): Promise<string> {
  const [row] = await sql()<{ id: string }[]>`select id from users where email = ${email}`;
  if (!row) throw new Error(`no user ${email}`);
  return row.id;
}

/** Whether each of a user's API keys is revoked. */
export async function apiKeysRevoked(userId: string): Promise<boolean[]> {
  const rows = await sql()<{ revoked: boolean }[]>`
    select revoked_at is not null as revoked from api_keys where user_id = ${userId}`;
  return rows.map((r) => r.revoked);
}

/** The stored hashes of a user's sessions. */
export async function sessionTokenHashes(userId: string): Promise<Buffer[]> {
  const rows = await sql()<{ hash: Buffer }[]>`select token_hash as hash from sessions where user_id = ${userId}`;
  return rows.map((r) => Buffer.from(r.hash));
}

/** Lets every session of a user run out (their expiry a second ago). */
export async function expireSessions(userId: string): Promise<void> {
  await sql()`update sessions set expires_at = ${ago('1 second')} where user_id = ${userId}`;
}

/** An API key's stored row as text (every column), and its stored hash. */
export async function apiKeyStored(id: string): Promise<{ text: string; keyHash: Buffer }> {
  const [row] = await sql()<{ text: string; keyHash: Buffer }[]>`
    select row_to_json(k)::text as text, k.key_hash as "keyHash" from api_keys k where id = ${id}`;
  if (!row) throw new Error(`no api key ${id}`);
  return { text: row.text, keyHash: Buffer.from(row.keyHash) };
}

/** Lets an API key run out (its expiry a minute ago). */
export async function expireApiKey(id: string): Promise<void> {
  await sql()`update api_keys set expires_at = ${ago('1 minute')} where id = ${id}`;
}

export interface AccountTokenRow {
  tokenHash: Buffer;
  purpose: string;
  /** expires_at - created_at, in seconds */
  ttlSeconds: number;
}

/** The links (account tokens) issued to a user, of one purpose if given. */
export async function accountTokens(userId: string, purpose?: string): Promise<AccountTokenRow[]> {
  const rows = await sql()<AccountTokenRow[]>`select token_hash as "tokenHash", purpose,
      extract(epoch from expires_at - created_at)::float8 as "ttlSeconds"
    from account_tokens where user_id = ${userId} ${purpose ? sql()`and purpose = ${purpose}` : sql()``}`;
  return rows.map((r) => ({ ...r, tokenHash: Buffer.from(r.tokenHash) }));
}

/** Lets a user's links of one purpose run out (their expiry a second ago). */
export async function expireAccountTokens(userId: string, purpose: string): Promise<void> {
  await sql()`update account_tokens set expires_at = ${ago('1 second')} where user_id = ${userId} and purpose = ${purpose}`;
}

/** Stores a link as if issued earlier; times are Postgres intervals from now (negative: in the past). */
export async function insertAccountToken(t: {
  tokenHash: Buffer;
  userId: string;
  purpose: string;
  email: string;
  created: string;
  expires: string;
  used: string | null;
}): Promise<void> {
  await sql()`insert into account_tokens (token_hash, user_id, purpose, email, created_at, expires_at, used_at)
    values (${t.tokenHash}, ${t.userId}, ${t.purpose}, ${t.email}, now() + ${t.created}::interval,
      now() + ${t.expires}::interval, now() + ${t.used}::interval)`;
}

/** Which of these link hashes are still stored. */
export async function storedAccountTokens(hashes: Buffer[]): Promise<Buffer[]> {
  const rows = await sql()<{ hash: Buffer }[]>`
    select token_hash as hash from account_tokens where token_hash in ${sql()(hashes)}`;
  return rows.map((r) => Buffer.from(r.hash));
}

/** The tables holding an account's rows, with the column naming the account. */
const OWNER_COLUMN = {
  generations: 'user_id',
  uploads: 'user_id',
  token_grants: 'user_id',
  token_debits: 'user_id',
  api_keys: 'user_id',
  api_request_log: 'user_id',
  idempotency_keys: 'account_id',
  templates: 'user_id',
  print_files: 'user_id',
  render_jobs: 'user_id',
  chat_messages: 'user_id',
} as const;

/** How many rows an account has in each of `tables`. */
export async function ownedRowCounts<T extends keyof typeof OWNER_COLUMN>(
  userId: string,
  tables: T[],
): Promise<Record<T, number>> {
  const counts = await Promise.all(
    tables.map(async (t) => {
      const table: string = t;
      const owner: string = OWNER_COLUMN[t];
      const [row] = await sql()<{ n: number }[]>`
        select count(*)::int as n from ${sql()(table)} where ${sql()(owner)} = ${userId}`;
      return [t, row!.n] as const;
    }),
  );
  return Object.fromEntries(counts) as Record<T, number>;
}

/** Makes a user's unsent outbox mails `interval` old (the accounts sweep leaves younger ones to their workflow). */
export async function backdateUnsentMail(userId: string, interval = '1 minute'): Promise<void> {
  await sql()`update mail_outbox set created_at = ${ago(interval)} where user_id = ${userId} and sent_at is null`;
}

/** An outbox row as a request that died before starting its mail's workflow leaves it; returns its id. */
export async function insertUnstartedMail(m: { userId: string; kind: string; to: string; subject: string }) {
  const [row] = await sql()<{ id: number }[]>`
    insert into mail_outbox (user_id, kind, to_address, subject, text_body, html_body)
    values (${m.userId}, ${m.kind}, ${m.to}, ${m.subject}, 'text', '<p>html</p>') returning id`;
  return row!.id;
}

/** An outbox mail's delivery state (`message`: whether it still holds the message it is rendered from). */
export async function outboxMail(id: number) {
  const [row] = await sql()<
    { sentAt: Date | null; textBody: string | null; attempts: number; subject: string | null; message: boolean }[]
  >`
    select sent_at as "sentAt", text_body as "textBody", attempts, subject, message is not null as message
    from mail_outbox where id = ${id}`;
  return row;
}

/** The ids of a user's outbox mails of one kind (tokens_low, verify_email, ...), sent or not. */
export async function outboxMailIds(userId: string, kind: string): Promise<number[]> {
  const rows = await sql()<{ id: number }[]>`
    select id from mail_outbox where user_id = ${userId} and kind = ${kind} order by id`;
  return rows.map((r) => r.id);
}

// ---------------------------------------------------------------------------------------------------- idempotency

/** Stores an idempotency key with no answer yet, expiring in a day. */
export async function insertIdempotencyKey(accountId: string, key: string): Promise<void> {
  await sql()`insert into idempotency_keys (account_id, key, fingerprint, expires_at)
    values (${accountId}, ${key}, ${Buffer.from('x')}, now() + interval '1 day')`;
}

/** Moves an idempotency key's clocks back: each given time becomes that long ago (a Postgres interval). */
export async function backdateIdempotencyKey(
  accountId: string,
  key: string,
  ages: { created?: string; expires?: string; lockedUntil?: string },
): Promise<void> {
  await sql()`update idempotency_keys set created_at = coalesce(now() - ${ages.created ?? null}::interval, created_at),
      expires_at = coalesce(now() - ${ages.expires ?? null}::interval, expires_at),
      locked_until = coalesce(now() - ${ages.lockedUntil ?? null}::interval, locked_until)
    where account_id = ${accountId} and key = ${key}`;
}

/** Whether an idempotency key is stored. */
export async function idempotencyKeyStored(accountId: string, key: string): Promise<boolean> {
  const rows = await sql()`select 1 from idempotency_keys where account_id = ${accountId} and key = ${key}`;
  return rows.length > 0;
}
