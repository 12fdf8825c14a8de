import type { Sql } from './client';
import { grantTokens } from './ledger';

/** The Free plan's monthly allowance (spec plan table). */
export const FREE_MONTHLY_TOKENS = 50;

/** First day of the allowance period that contains `at`, anchored on the account's signup day of month. */
export function allowancePeriod(signup: Date, at: Date): { start: Date; end: Date } {
  const day = signup.getUTCDate();
  const anchor = (y: number, m: number) => {
    // A signup on the 31st renews on the last day of shorter months.
    const last = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
    return new Date(
      Date.UTC(y, m, Math.min(day, last), signup.getUTCHours(), signup.getUTCMinutes(), signup.getUTCSeconds()),
    );
  };
  let start = anchor(at.getUTCFullYear(), at.getUTCMonth());
  if (start > at) start = anchor(at.getUTCFullYear(), at.getUTCMonth() - 1);
  const end = anchor(start.getUTCFullYear(), start.getUTCMonth() + 1);
  return { start, end };
}

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

/** Creates an account on the Free plan with its first allowance; null when the email is taken. */
export async function createFreeAccount(
  sql: Sql,
  u: { id: string; email: string; passwordHash: string },
): Promise<{ id: string; email: string; plan: string; createdAt: Date } | null> {
  return sql.begin(async (tx) => {
    const [row] = await tx<{ id: string; email: string; plan: string; createdAt: Date }[]>`
      insert into users (id, email, password_hash) values (${u.id}, ${u.email}, ${u.passwordHash})
      on conflict do nothing
      returning id, email, plan, created_at as "createdAt"`;
    if (!row) return null;
    await grantFreeAllowance(tx as unknown as Sql, row, row.createdAt);
    return row;
  });
}
