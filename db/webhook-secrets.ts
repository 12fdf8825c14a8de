// Per-account webhook signing secrets in PostgreSQL. Created lazily (first read or first delivery), rotated on
// request with a grace period during which the previous secret also signs.
import type { Sql } from './client';
import { generateSigningSecret } from '../lib/webhooks/signature';

export interface SigningSecretRow {
  secret: string;
  createdAt: Date;
  /** Set while the previous secret is still in its grace period. */
  previousExpiresAt: Date | null;
}

/** The account's secret, creating it on first use. Safe under concurrent first calls (one insert wins). */
export async function ensureSigningSecret(sql: Sql, userId: string): Promise<SigningSecretRow> {
  await sql`insert into webhook_signing_secrets (user_id, secret) values (${userId}, ${generateSigningSecret()})
            on conflict (user_id) do nothing`;
  const [row] = await sql<SigningSecretRow[]>`
    select secret, created_at as "createdAt",
           case when previous_expires_at > now() then previous_expires_at end as "previousExpiresAt"
    from webhook_signing_secrets where user_id = ${userId}`;
  if (!row) throw new Error(`signing secret for ${userId} vanished (account deleted?)`);
  return row;
}

/**
 * Replaces the secret; the one replaced keeps signing for `graceMs`. A rotation during a grace period drops the
 * older previous secret at once: only the two most recent secrets ever sign.
 */
export async function rotateSigningSecret(sql: Sql, userId: string, graceMs: number): Promise<SigningSecretRow> {
  const [row] = await sql<SigningSecretRow[]>`
    insert into webhook_signing_secrets as s (user_id, secret) values (${userId}, ${generateSigningSecret()})
    on conflict (user_id) do update set
      previous_secret = s.secret,
      previous_expires_at = now() + ${graceMs}::bigint * interval '1 millisecond',
      secret = excluded.secret,
      created_at = now()
    returning secret, created_at as "createdAt",
              case when previous_expires_at > now() then previous_expires_at end as "previousExpiresAt"`;
  return row!;
}

/** The secrets a delivery is signed with right now: the current one first, then the previous one during grace. */
export async function activeSigningSecrets(sql: Sql, userId: string): Promise<string[]> {
  await sql`insert into webhook_signing_secrets (user_id, secret) values (${userId}, ${generateSigningSecret()})
            on conflict (user_id) do nothing`;
  const [row] = await sql<{ secret: string; previous: string | null }[]>`
    select secret, case when previous_expires_at > now() then previous_secret end as previous
    from webhook_signing_secrets where user_id = ${userId}`;
  if (!row) throw new Error(`signing secret for ${userId} vanished (account deleted?)`);
  return row.previous ? [row.secret, row.previous] : [row.secret];
}
