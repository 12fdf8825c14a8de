// One-time links of the account mails (docs/accounts.md#links): stored as a SHA-256 of the token, used once, before
// they expire. A password reset or change cancels the outstanding ones (docs/security.md#account-takeover); the
// maintenance sweep deletes the used and expired ones after ACCOUNT_TOKENS_KEPT_MS.
import { createHash, randomBytes } from 'node:crypto';
import type { MailMessage } from '../lib/mail/templates';
import type { Sql, Tx } from './client';
import { enqueueMail } from './mail-outbox';

export type TokenPurpose = 'verify_email' | 'reset_password' | 'change_email' | 'undo_email_change';

/** How long each kind of link works. */
export const TOKEN_TTL_MS: Record<TokenPurpose, number> = {
  verify_email: 24 * 3600_000,
  change_email: 24 * 3600_000,
  reset_password: 3600_000,
  // "This wasn't me" in the notice to the old address
  undo_email_change: 7 * 24 * 3600_000,
};

/** A used, cancelled or expired link is deleted by the maintenance sweep this long after (1 day). */
export const ACCOUNT_TOKENS_KEPT_MS = 24 * 3600_000;

export const sha256 = (s: string) => createHash('sha256').update(s).digest();

/** Mails written by one change: their outbox ids (to start after the commit) and their accounts. */
export interface Queued {
  mailIds: { id: string; userId: string | null }[];
}

/** Builds a link to a dashboard page carrying a one-time token. */
export type LinkFor = (purpose: TokenPurpose, token: string) => string;

/**
 * A new one-time token for `purpose`, stored as its SHA-256. With `replace` (the default) earlier unused tokens of the
 * same purpose of the account stop working; "This wasn't me" links never replace each other (each notice keeps its
 * own). Returns the token itself (it goes into the mail, nowhere else).
 */
export async function issueToken(
  tx: Tx,
  userId: string,
  purpose: TokenPurpose,
  email: string,
  opts: { replace?: boolean } = {},
): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  if (opts.replace !== false)
    await tx`update account_tokens set used_at = now()
             where user_id = ${userId} and purpose = ${purpose} and used_at is null`;
  await tx`insert into account_tokens (token_hash, user_id, purpose, email, expires_at)
           values (${sha256(token)}, ${userId}, ${purpose}, ${email},
                   now() + make_interval(secs => ${TOKEN_TTL_MS[purpose] / 1000}))`;
  return token;
}

/**
 * Cancels the account's outstanding one-time links (a password reset or change, "This wasn't me"): pending changes of
 * email, verification and reset links. The "This wasn't me" links stay: they are the owner's way back, sent only to
 * an address that was the account's, and an intruder who changed the password must not be able to cancel them.
 */
export async function cancelOutstandingTokens(tx: Tx, userId: string): Promise<number> {
  const res = await tx`update account_tokens set used_at = now(), cancelled_at = now()
    where user_id = ${userId} and used_at is null and purpose <> 'undo_email_change'`;
  return res.count;
}

/** Whether `token` is a link that a password reset or change cancelled (it answers "This link is no longer valid"). */
export async function wasCancelled(tx: Tx, token: string): Promise<boolean> {
  const [row] = await tx`select 1 from account_tokens where token_hash = ${sha256(token)} and cancelled_at is not null`;
  return !!row;
}

export async function mail(tx: Tx, q: Queued, userId: string | null, to: string, message: MailMessage): Promise<void> {
  q.mailIds.push({ id: await enqueueMail(tx, { userId, to, message }), userId });
}

export const begin = <T>(sql: Sql, fn: (tx: Tx) => Promise<T>): Promise<T> => sql.begin((tx) => fn(tx)) as Promise<T>;

/**
 * Deletes the links used (or cancelled) and those expired more than ACCOUNT_TOKENS_KEPT_MS ago (the maintenance
 * sweep). Until then a used link still answers as used, not as unknown.
 */
export async function purgeAccountTokens(sql: Tx): Promise<number> {
  const res = await sql`delete from account_tokens
    where expires_at < now() - make_interval(secs => ${ACCOUNT_TOKENS_KEPT_MS / 1000})
       or used_at < now() - make_interval(secs => ${ACCOUNT_TOKENS_KEPT_MS / 1000})`;
  return res.count;
}
