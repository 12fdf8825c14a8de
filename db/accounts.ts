import type { Sql } from './client';
import { allowancePeriod } from '../lib/accounts/allowance';
import { grantTokens } from './ledger';

/** The Free plan's monthly allowance (spec plan table). */
export const FREE_MONTHLY_TOKENS = 50;

/** Grants the Free plan's tokens for the period containing `at`, once (reference free:<user>:<period start>). */
export async function grantFreeAllowance(
  sql: Sql,
  user: { id: string; createdAt: Date },
  at = new Date(),
): Promise<boolean> {
  const { start, end } = allowancePeriod(user.createdAt, at);
  return grantTokens(sql, {
    userId: user.id,
    source: 'free',
    amount: FREE_MONTHLY_TOKENS,
    expiresAt: end,
    reference: `free:${user.id}:${start.toISOString()}`,
  });
}

/**
 * Grants the current period's allowance to one page of Free accounts (ids after `afterId`, in id order; not those
 * whose first allowance waits for a verified email, nor deleted ones), in one
 * statement: the period is computed in SQL exactly as allowancePeriod does (allowance_period,
 * db/migrations/032_one_round_trip_charge.sql: whole months after the signup instant truncated to the second, clamped
 * to the month's last day; the low-balance mail's period too) and the reference is the same
 * `free:<user>:<period start ISO>`, so a grant made at signup or by an earlier run is never repeated. Returns how
 * many grants were made and the last id of the page (null when there are no more accounts).
 */
export async function grantFreeAllowancePage(
  sql: Sql,
  opts: { afterId: string | null; limit: number; at?: Date },
): Promise<{ granted: number; lastId: string | null }> {
  const at = opts.at ?? new Date();
  const [row] = await sql<{ granted: number; lastId: string | null }[]>`
    with page as (
      select id, created_at from users
      where plan = 'free' and not free_grant_pending and deleted_at is null ${opts.afterId ? sql`and id > ${opts.afterId}` : sql``}
      order by id limit ${opts.limit}
    ), periods as (
      select p.id, a.period_start, a.period_end from page p cross join lateral allowance_period(p.created_at, ${at}::timestamptz) a
    ), granted as (
      insert into token_grants (user_id, source, amount, expires_at, reference)
      select id, 'free', ${FREE_MONTHLY_TOKENS}, period_end,
             'free:' || id || ':' || to_char(period_start at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
      from periods
      on conflict (reference) do nothing
      returning 1
    )
    select (select count(*) from granted)::int as granted, (select max(id) from page) as "lastId"`;
  return { granted: row?.granted ?? 0, lastId: row?.lastId ?? null };
}

export interface LoginRow {
  id: string;
  email: string;
  plan: string;
  createdAt: Date;
  passwordHash: string;
  /** set by "This wasn't me": sign-in waits for a password reset */
  passwordResetRequired: boolean;
}

/** The account signing in with `email` (already lower-cased), with its password hash; undefined when there is none. */
export async function accountForLogin(sql: Sql, email: string): Promise<LoginRow | undefined> {
  const [row] = await sql<LoginRow[]>`
    select id, email, plan, created_at as "createdAt", password_hash as "passwordHash",
           password_reset_required as "passwordResetRequired"
    from users where lower(email) = ${email}`;
  return row;
}
