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
