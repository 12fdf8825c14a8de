// Limits of the account mails (docs/accounts.md#limits), counted in PostgreSQL like the sign-in limits
// (db/auth-throttle.ts) so every API instance shares them. Emails are keyed by their SHA-256.
import { createHash } from 'node:crypto';
import type { Sql } from './client';
import { hitWindows as hit, type Throttle } from './auth-throttle';

export const HOUR_MS = 3600_000;

const emailHash = (email: string) => createHash('sha256').update(email.toLowerCase()).digest('hex');

/** POST /api/auth/verify/resend: per account per hour. */
export function countVerifyResend(sql: Sql, opts: { userId: string; perHour: number }): Promise<Throttle> {
  return hit(sql, [{ key: `auth-verify-resend:${opts.userId}`, ms: HOUR_MS, limit: opts.perHour }]);
}

/** POST /api/auth/password/forgot: per email and per client IP per hour, whether or not the account exists. */
export function countResetRequest(
  sql: Sql,
  opts: { email: string; ip: string; perEmail: number; perIp: number },
): Promise<Throttle> {
  return hit(sql, [
    { key: `auth-reset-email:${emailHash(opts.email)}`, ms: HOUR_MS, limit: opts.perEmail },
    { key: `auth-reset-ip:${opts.ip}`, ms: HOUR_MS, limit: opts.perIp },
  ]);
}

/** POST /api/auth/password/reset: per client IP per hour (the same budget as reset requests). */
export function countResetAttempt(sql: Sql, opts: { ip: string; perIp: number }): Promise<Throttle> {
  return hit(sql, [{ key: `auth-reset-ip:${opts.ip}`, ms: HOUR_MS, limit: opts.perIp }]);
}

/** The account changes limited per account and per client IP per hour (AUTH_*_PER_HOUR). */
export type AccountChange = 'emailChange' | 'passwordChange' | 'deletion' | 'export';

const changeKeys = (change: AccountChange, userId: string, ip: string) => [
  `auth-${change}-user:${userId}`,
  `auth-${change}-ip:${ip}`,
];

/** Counts one account change for the account and the client IP; refuses when either is over `perHour`. */
export function countAccountChange(
  sql: Sql,
  change: AccountChange,
  opts: { userId: string; ip: string; perHour: number },
): Promise<Throttle> {
  return hit(
    sql,
    changeKeys(change, opts.userId, opts.ip).map((key) => ({ key, ms: HOUR_MS, limit: opts.perHour })),
  );
}

/** A change-password attempt succeeded: like a sign-in, its count is taken back, so only failures add up. */
export async function forgiveAccountChange(
  sql: Sql,
  change: AccountChange,
  opts: { userId: string; ip: string },
): Promise<void> {
  await sql`update rate_limit_hits set hits = greatest(hits - 1, 0)
            where key = any(${changeKeys(change, opts.userId, opts.ip)}::text[]) and reset_at > now()`;
}
