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
 * statement: the period is computed in SQL exactly as allowancePeriod does (whole months after the signup instant
 * truncated to the second, clamped to the month's last day) and the reference is the same
 * `free:<user>:<period start ISO>`, so a grant made at signup or by an earlier run is never repeated. Returns how
 * many grants were made and the last id of the page (null when there are no more accounts).
 */
export async function grantFreeAllowancePage(
  sql: Sql,
  opts: { afterId: string | null; limit: number; at?: Date },
): Promise<{ granted: number; lastId: string | null }> {
  const at = opts.at ?? new Date();
  // Month arithmetic on UTC wall-clock timestamps, as allowancePeriod does, whatever the session's time zone.
  const [row] = await sql<{ granted: number; lastId: string | null }[]>`
    with page as (
      select id, date_trunc('second', created_at at time zone 'UTC') as signup from users
      where plan = 'free' and not free_grant_pending and deleted_at is null ${opts.afterId ? sql`and id > ${opts.afterId}` : sql``}
      order by id limit ${opts.limit}
    ), now_utc as (
      select ${at}::timestamptz at time zone 'UTC' as t
    ), months as (
      select p.id, p.signup, (extract(year from age(n.t, p.signup)) * 12 + extract(month from age(n.t, p.signup)))::int as n
      from page p, now_utc n
    ), periods as (
      -- age() may be one month off around month ends: take the last period start not after the given time
      select m.id, m.signup + make_interval(months => s.k) as start, m.signup + make_interval(months => s.k + 1) as "end"
      from months m
      cross join lateral (
        select k from generate_series(greatest(m.n - 1, 0), m.n + 1) k, now_utc n
        where m.signup + make_interval(months => k) <= n.t
        order by k desc limit 1
      ) s
    ), granted as (
      insert into token_grants (user_id, source, amount, expires_at, reference)
      select id, 'free', ${FREE_MONTHLY_TOKENS}, "end" at time zone 'UTC',
             'free:' || id || ':' || to_char(start, 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
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
