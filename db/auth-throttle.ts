// Sign-in and signup throttling, counted in PostgreSQL (rate_limit_hits, db/migrations/004_rate_limits.sql) so
// every API instance shares the budget. An attempt is counted before the password is checked, so parallel
// attempts cannot slip past the limit; a successful sign-in takes its count back, so only failures add up.
// Emails are keyed by their SHA-256: the table holds no addresses.
import { createHash } from 'node:crypto';
import type { Sql } from './client';

export const LOGIN_EMAIL_WINDOW_MS = 15 * 60_000;
export const LOGIN_IP_WINDOW_MS = 60 * 60_000;
export const SIGNUP_IP_WINDOW_MS = 60 * 60_000;

const emailKey = (email: string) => `auth-login-email:${createHash('sha256').update(email).digest('hex')}`;
const loginIpKey = (ip: string) => `auth-login-ip:${ip}`;
const signupIpKey = (ip: string) => `auth-signup-ip:${ip}`;

/** Seconds until the refusing window resets, or null when the attempt is within every limit. */
export type Throttle = { retryAfterS: number } | null;

/** Counts one hit in each window (rate_limit_hit); the first window over its limit refuses. */
export async function hitWindows(sql: Sql, windows: { key: string; ms: number; limit: number }[]): Promise<Throttle> {
  const rows = await sql<{ out_key: string; out_hits: number; out_ms_left: number }[]>`
    select * from rate_limit_hit(${windows.map((w) => w.key)}::text[], ${windows.map((w) => w.ms)}::int[],
                                 ${windows.map((w) => w.limit)}::int[])`;
  for (const r of rows) {
    const w = windows.find((x) => x.key === r.out_key)!;
    if (r.out_hits > w.limit) return { retryAfterS: Math.max(1, Math.ceil(r.out_ms_left / 1000)) };
  }
  return null;
}

/** Counts a sign-in attempt for the email and the client IP; refuses when either is over its limit. */
export function countLoginAttempt(
  sql: Sql,
  opts: { email: string; ip: string; perEmail: number; perIp: number },
): Promise<Throttle> {
  return hitWindows(sql, [
    { key: emailKey(opts.email), ms: LOGIN_EMAIL_WINDOW_MS, limit: opts.perEmail },
    { key: loginIpKey(opts.ip), ms: LOGIN_IP_WINDOW_MS, limit: opts.perIp },
  ]);
}

/** A sign-in succeeded: its attempt does not count as a failure. */
export async function forgiveLoginAttempt(sql: Sql, opts: { email: string; ip: string }): Promise<void> {
  await sql`update rate_limit_hits set hits = greatest(hits - 1, 0)
            where key in (${emailKey(opts.email)}, ${loginIpKey(opts.ip)}) and reset_at > now()`;
}

/** Counts a signup from the client IP; refuses when over the limit. */
export function countSignup(sql: Sql, opts: { ip: string; perIp: number }): Promise<Throttle> {
  return hitWindows(sql, [{ key: signupIpKey(opts.ip), ms: SIGNUP_IP_WINDOW_MS, limit: opts.perIp }]);
}
