// The account lifecycle (docs/accounts.md): signup with email verification, one-time links (verify, reset, change
// of email), password changes, and the start of an account's deletion. Every mail is written to the outbox in the
// same transaction as the change that causes it; the caller starts its mail-<id> workflow after the commit.
import { grantFreeAllowance } from './accounts';
import {
  begin,
  cancelOutstandingTokens,
  issueToken,
  mail,
  sha256,
  wasCancelled,
  type LinkFor,
  type Queued,
  type TokenPurpose,
} from './account-tokens';
import { revokeApiClients } from './account-safety';
import type { Sql, Tx } from './client';

export type { LinkFor, Queued, TokenPurpose } from './account-tokens';

export interface AccountRow {
  id: string;
  email: string;
  plan: string;
  createdAt: Date;
}

/**
 * Creates an account on the Free plan and mails its verification link. With `verification` `off` the first
 * allowance is granted now; with `required` it waits for the verified email (free_grant_pending). Null when the
 * email is taken: then the owner is mailed instead (at most once an hour per address), and nothing else changes.
 */
export async function signUp(
  sql: Sql,
  u: { id: string; email: string; passwordHash: string; verification: 'required' | 'off'; linkFor: LinkFor },
  forgotLink: string,
): Promise<({ user: AccountRow } & Queued) | ({ user: null } & Queued)> {
  return begin(sql, async (tx) => {
    const q: Queued = { mailIds: [] };
    const [row] = await tx<AccountRow[]>`
      insert into users (id, email, password_hash, free_grant_pending)
      values (${u.id}, ${u.email}, ${u.passwordHash}, ${u.verification === 'required'})
      on conflict do nothing
      returning id, email, plan, created_at as "createdAt"`;
    if (!row) {
      const [owner] = await tx<{ id: string; email: string }[]>`
        select id, email from users where lower(email) = ${u.email.toLowerCase()} and deleted_at is null`;
      if (owner && (await firstInHour(tx, `mail-signup-attempt:${owner.id}`)))
        await mail(tx, q, owner.id, owner.email, { kind: 'signup_attempt', forgotLink });
      return { user: null, ...q };
    }
    if (u.verification === 'off') await grantFreeAllowance(tx as Sql, row, row.createdAt);
    const token = await issueToken(tx, row.id, 'verify_email', row.email);
    await mail(tx, q, row.id, row.email, { kind: 'verify_email', link: u.linkFor('verify_email', token) });
    return { user: row, ...q };
  });
}

/** True for the first call with `key` in its hour (rate_limit_hit's fixed window). */
async function firstInHour(tx: Tx, key: string): Promise<boolean> {
  const [r] = await tx<{ out_hits: number }[]>`
    select out_hits from rate_limit_hit(${[key]}::text[], ${[3600_000]}::int[], ${[1]}::int[])`;
  return (r?.out_hits ?? 1) <= 1;
}

/** Whether the account's email is verified, and whether its first Free allowance waits for that. */
export async function verificationState(
  sql: Tx,
  userId: string,
): Promise<{ emailVerified: boolean; freeGrantPending: boolean; pendingEmail: string | null }> {
  const [row] = await sql<{ emailVerified: boolean; freeGrantPending: boolean; pendingEmail: string | null }[]>`
    select u.email_verified_at is not null as "emailVerified", u.free_grant_pending as "freeGrantPending",
           (select t.email from account_tokens t
            where t.user_id = u.id and t.purpose = 'change_email' and t.used_at is null and t.expires_at > now()
            order by t.created_at desc limit 1) as "pendingEmail"
    from users u where u.id = ${userId}`;
  return row ?? { emailVerified: false, freeGrantPending: false, pendingEmail: null };
}

/** A new verification link for an account whose email is not verified; false when it is verified already. */
export async function resendVerification(
  sql: Sql,
  userId: string,
  linkFor: LinkFor,
): Promise<({ sent: boolean } & Queued) | null> {
  return begin(sql, async (tx) => {
    const q: Queued = { mailIds: [] };
    const [u] = await tx<{ email: string; verified: boolean }[]>`
      select email, email_verified_at is not null as verified from users where id = ${userId} and deleted_at is null`;
    if (!u) return null;
    if (u.verified) return { sent: false, ...q };
    const token = await issueToken(tx, userId, 'verify_email', u.email);
    await mail(tx, q, userId, u.email, { kind: 'verify_email', link: linkFor('verify_email', token) });
    return { sent: true, ...q };
  });
}

export type ConfirmResult =
  | { status: 'verified' | 'email_changed'; user: AccountRow; granted: boolean }
  | { status: 'invalid' }
  | { status: 'cancelled' }
  | { status: 'email_taken' };

/**
 * Uses a verification link (verify_email or change_email): once, before it expires, and only while the address it
 * was sent to is still the one it verifies. Verifying grants the first Free allowance when it was waiting.
 */
export async function confirmEmailToken(sql: Sql, token: string): Promise<ConfirmResult> {
  return begin(sql, async (tx): Promise<ConfirmResult> => {
    const [t] = await tx<{ userId: string; purpose: TokenPurpose; email: string }[]>`
      update account_tokens set used_at = now()
      where token_hash = ${sha256(token)} and used_at is null and expires_at > now()
        and purpose in ('verify_email', 'change_email')
      returning user_id as "userId", purpose, email`;
    if (!t) return (await wasCancelled(tx, token)) ? { status: 'cancelled' } : { status: 'invalid' };
    let user: AccountRow | undefined;
    if (t.purpose === 'verify_email') {
      [user] = await tx<AccountRow[]>`
        update users set email_verified_at = coalesce(email_verified_at, now())
        where id = ${t.userId} and email = ${t.email} and deleted_at is null
        returning id, email, plan, created_at as "createdAt"`;
    } else {
      const [taken] = await tx`select 1 from users where lower(email) = ${t.email.toLowerCase()} and id <> ${t.userId}`;
      if (taken) return { status: 'email_taken' };
      [user] = await tx<AccountRow[]>`
        update users set email = ${t.email}, email_verified_at = now()
        where id = ${t.userId} and deleted_at is null
        returning id, email, plan, created_at as "createdAt"`;
    }
    if (!user) return { status: 'invalid' };
    const [pending] = await tx<{ pending: boolean }[]>`
      update users set free_grant_pending = false where id = ${user.id} and free_grant_pending
      returning true as pending`;
    const granted = pending ? await grantFreeAllowance(tx as Sql, user) : false;
    return { status: t.purpose === 'verify_email' ? 'verified' : 'email_changed', user, granted };
  });
}

/** Mails a reset link to the account with this email, if there is one (the caller answers the same either way). */
export async function requestPasswordReset(sql: Sql, email: string, linkFor: LinkFor): Promise<Queued> {
  return begin(sql, async (tx) => {
    const q: Queued = { mailIds: [] };
    const [u] = await tx<{ id: string; email: string }[]>`
      select id, email from users where lower(email) = ${email.toLowerCase()} and deleted_at is null`;
    if (!u) return q;
    const token = await issueToken(tx, u.id, 'reset_password', u.email);
    await mail(tx, q, u.id, u.email, { kind: 'password_reset', link: linkFor('reset_password', token) });
    return q;
  });
}

/**
 * Uses a reset link: sets the password, ends every session of the account, cancels its other outstanding links
 * (pending changes of email among them), lifts a lock of "This wasn't me" and mails "your password was changed".
 * With `revokeKeys` every API key is revoked and the webhook signing secret replaced at once. `invalid` when the
 * link is unknown, used, expired, or was sent to an address that is no longer the account's; `cancelled` when an
 * earlier reset or change cancelled it.
 */
export async function resetPassword(
  sql: Sql,
  token: string,
  passwordHash: string,
  opts: { forgotLink: string; revokeKeys: boolean },
): Promise<
  | ({ status: 'reset'; userId: string; sessionsEnded: number; keysRevoked: number } & Queued)
  | { status: 'invalid' | 'cancelled' }
> {
  return begin(sql, async (tx) => {
    const q: Queued = { mailIds: [] };
    const [t] = await tx<{ userId: string; email: string }[]>`
      update account_tokens set used_at = now()
      where token_hash = ${sha256(token)} and used_at is null and expires_at > now() and purpose = 'reset_password'
      returning user_id as "userId", email`;
    if (!t) return { status: (await wasCancelled(tx, token)) ? ('cancelled' as const) : ('invalid' as const) };
    const [u] = await tx<{ id: string; email: string }[]>`
      update users set password_hash = ${passwordHash}, password_reset_required = false
      where id = ${t.userId} and email = ${t.email} and deleted_at is null returning id, email`;
    if (!u) return { status: 'invalid' as const };
    const ended = await tx`delete from sessions where user_id = ${u.id}`;
    await cancelOutstandingTokens(tx, u.id);
    const keysRevoked = opts.revokeKeys ? await revokeApiClients(tx, u.id) : 0;
    await mail(tx, q, u.id, u.email, { kind: 'password_changed', forgotLink: opts.forgotLink });
    return { status: 'reset' as const, userId: u.id, sessionsEnded: ended.count, keysRevoked, ...q };
  });
}

/** The stored password hash of a live account (for the checks that ask for the current password). */
export async function passwordHashOf(sql: Tx, userId: string): Promise<string | null> {
  const [u] = await sql<{ hash: string }[]>`
    select password_hash as hash from users where id = ${userId} and deleted_at is null`;
  return u?.hash ?? null;
}

/**
 * Sets a new password, ends the account's other sessions (not `keepSessionToken`), cancels its outstanding links
 * (pending changes of email among them) and mails the owner.
 */
export async function changePassword(
  sql: Sql,
  userId: string,
  passwordHash: string,
  keepSessionToken: string | undefined,
  forgotLink: string,
): Promise<Queued> {
  return begin(sql, async (tx) => {
    const q: Queued = { mailIds: [] };
    const [u] = await tx<{ email: string }[]>`
      update users set password_hash = ${passwordHash} where id = ${userId} and deleted_at is null returning email`;
    if (!u) return q;
    await tx`delete from sessions where user_id = ${userId}
             and token_hash <> ${keepSessionToken ? sha256(keepSessionToken) : Buffer.alloc(0)}`;
    await cancelOutstandingTokens(tx, userId);
    await mail(tx, q, userId, u.email, { kind: 'password_changed', forgotLink });
    return q;
  });
}

/**
 * Asks to change the account's email: a link to the new address (24 h) that makes the change when opened, and a
 * notice to the current address with a "This wasn't me" link (7 days). When another account has the new address
 * nothing is changed and its owner is mailed instead (at most once an hour): the caller answers the same either way.
 */
export async function requestEmailChange(
  sql: Sql,
  userId: string,
  newEmail: string,
  links: { linkFor: LinkFor; forgotLink: string },
): Promise<({ status: 'sent' } & Queued) | { status: 'same' | 'gone' }> {
  return begin(sql, async (tx) => {
    const q: Queued = { mailIds: [] };
    const [u] = await tx<{ email: string }[]>`select email from users where id = ${userId} and deleted_at is null`;
    if (!u) return { status: 'gone' as const };
    if (u.email.toLowerCase() === newEmail.toLowerCase()) return { status: 'same' as const };
    const [owner] = await tx<{ id: string; email: string; deleted: boolean }[]>`
      select id, email, deleted_at is not null as deleted from users where lower(email) = ${newEmail.toLowerCase()}`;
    if (owner) {
      if (!owner.deleted && (await firstInHour(tx, `mail-email-change-attempt:${owner.id}`)))
        await mail(tx, q, owner.id, owner.email, { kind: 'email_change_attempt', forgotLink: links.forgotLink });
      return { status: 'sent' as const, ...q };
    }
    const token = await issueToken(tx, userId, 'change_email', newEmail);
    await mail(tx, q, userId, newEmail, {
      kind: 'email_change_verify',
      link: links.linkFor('change_email', token),
      newEmail,
    });
    const undo = await issueToken(tx, userId, 'undo_email_change', u.email, { replace: false });
    await mail(tx, q, userId, u.email, {
      kind: 'email_change_notice',
      newEmail,
      notMeLink: links.linkFor('undo_email_change', undo),
    });
    return { status: 'sent' as const, ...q };
  });
}
