// What the owner of an account does against an intruder who has its password (docs/security.md#account-takeover):
// "This wasn't me" from the notice of a change of email, signing out API clients, signing out every other session.
import { rotateSigningSecret } from './webhook-secrets';
import { begin, cancelOutstandingTokens, issueToken, mail, sha256, type LinkFor, type Queued } from './account-tokens';
import type { Sql, Tx } from './client';

/**
 * Signs out the account's API clients: every API key revoked, the webhook signing secret replaced with no grace
 * period (the intruder may have read the old one). Returns the keys revoked.
 */
export async function revokeApiClients(tx: Tx, userId: string): Promise<number> {
  const res = await tx`update api_keys set revoked_at = now() where user_id = ${userId} and revoked_at is null`;
  const [secret] = await tx`select 1 from webhook_signing_secrets where user_id = ${userId}`;
  if (secret) await rotateSigningSecret(tx as Sql, userId, 0);
  return res.count;
}

/** Ends every session of the account but `keepToken`'s. Returns how many ended. */
export async function endOtherSessions(sql: Sql, userId: string, keepToken: string | undefined): Promise<number> {
  const res = await sql`delete from sessions where user_id = ${userId}
    and token_hash <> ${keepToken ? sha256(keepToken) : Buffer.alloc(0)}`;
  return res.count;
}

export type NotMeResult =
  ({ status: 'cancelled' | 'restored'; email: string } & Queued) | { status: 'invalid' } | { status: 'address_taken' };

/**
 * "This wasn't me" (the link in the notice to the old address, 7 days): cancels a pending change of email, or
 * restores the old address when the change was made; ends every session, cancels the account's other links, and
 * requires a password reset before the next sign-in. A reset link is mailed to the (restored) address at once.
 * `address_taken`: the change was made and another account has taken the old address since; the account is still
 * locked (sessions ended, reset required) but its email cannot go back.
 */
export async function undoEmailChange(sql: Sql, token: string, linkFor: LinkFor): Promise<NotMeResult> {
  return begin(sql, async (tx): Promise<NotMeResult> => {
    const q: Queued = { mailIds: [] };
    const [t] = await tx<{ userId: string; email: string }[]>`
      update account_tokens set used_at = now()
      where token_hash = ${sha256(token)} and used_at is null and expires_at > now()
        and purpose = 'undo_email_change'
      returning user_id as "userId", email`;
    if (!t) return { status: 'invalid' };
    const [u] = await tx<{ email: string }[]>`
      select email from users where id = ${t.userId} and deleted_at is null for update`;
    if (!u) return { status: 'invalid' };
    await cancelOutstandingTokens(tx, t.userId);
    await tx`delete from sessions where user_id = ${t.userId}`;
    await tx`update users set password_reset_required = true where id = ${t.userId}`;
    const changed = u.email.toLowerCase() !== t.email.toLowerCase();
    if (changed) {
      const [taken] = await tx`
        select 1 from users where lower(email) = ${t.email.toLowerCase()} and id <> ${t.userId}`;
      if (taken) return { status: 'address_taken' };
      await tx`update users set email = ${t.email}, email_verified_at = now() where id = ${t.userId}`;
    }
    const reset = await issueToken(tx, t.userId, 'reset_password', t.email);
    await mail(tx, q, t.userId, t.email, { kind: 'password_reset', link: linkFor('reset_password', reset) });
    return { status: changed ? 'restored' : 'cancelled', email: t.email, ...q };
  });
}
