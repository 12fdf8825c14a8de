// The token ledger: grants, debits, their allocations.
import postgres from 'postgres';
import { sql } from './sql';

/** The amounts debited under a reference (a generation, a chat job, ...). */
export async function debitAmounts(reference: string): Promise<number[]> {
  const rows = await sql()<{ amount: number }[]>`select amount from token_debits where reference = ${reference}`;
  return rows.map((r) => r.amount);
}

/** The amounts given back for a job or generation (grants with the reference `refund:<id>`). */
export async function refundAmounts(id: string): Promise<number[]> {
  return (await grantsWithReference(`refund:${id}`)).map((g) => g.amount);
}

/** The grants stored under these references (a reference is unique), in order. */
export async function grantsWithReference(
  ...references: string[]
): Promise<{ id: number; source: string; amount: number; reference: string; expiresAt: Date | null }[]> {
  return sql()<{ id: number; source: string; amount: number; reference: string; expiresAt: Date | null }[]>`
    select id, source, amount, reference, expires_at as "expiresAt" from token_grants
    where reference in ${sql()(references)} order by id`;
}

/** Lets a grant run out (its expiry a second ago). */
export async function expireGrant(id: number): Promise<void> {
  await sql()`update token_grants set expires_at = now() - interval '1 second' where id = ${id}`;
}

/** What the debit `reference` took, by grant id. */
export async function allocationsOf(reference: string): Promise<Record<string, number>> {
  const rows = await sql()<{ grantId: string; amount: number }[]>`
    select a.grant_id as "grantId", a.amount from token_allocations a join token_debits d on d.id = a.debit_id
    where d.reference = ${reference} order by a.grant_id`;
  return Object.fromEntries(rows.map((a) => [a.grantId, a.amount]));
}

/** How many debits a user has, and the tokens their allocations took from grants. */
export async function debitTotals(userId: string): Promise<{ debits: number; allocated: number }> {
  const [row] = await sql()<{ debits: number; allocated: number }[]>`
    select (select count(*)::int from token_debits where user_id = ${userId}) as debits,
      (select coalesce(sum(a.amount), 0)::int from token_allocations a join token_debits d on d.id = a.debit_id
        where d.user_id = ${userId}) as allocated`;
  return row!;
}

/**
 * Other accounts' ledgers to read past: `accounts` users, each with a grant of 100 and `debits` debits of 1
 * allocated to it; the tables analyzed after, so that the planner knows their size.
 */
export async function seedOtherLedgers(tag: string, accounts: number, debits: number): Promise<void> {
  await sql()`
    with u as (
      insert into users (id, email, password_hash)
      select 'usr_scale_' || ${tag} || '_' || i, 'scale-' || ${tag} || '-' || i || '@example.test', 'x'
      from generate_series(1, ${accounts}::int) i returning id
    ), g as (
      insert into token_grants (user_id, source, amount, reference)
      select id, 'free', 100, 'scale:' || id from u returning id, user_id
    ), d as (
      insert into token_debits (user_id, amount, reference)
      select g.user_id, 1, 'scale:' || g.user_id || ':' || j from g, generate_series(1, ${debits}::int) j
      returning id, user_id
    )
    insert into token_allocations (debit_id, grant_id, amount)
    select d.id, g.id, 1 from d join g on g.user_id = d.user_id`;
  await sql()`analyze token_allocations`;
  await sql()`analyze token_grants`;
}

export interface PlanNode {
  'Relation Name'?: string;
  'Actual Rows': number;
  'Actual Loops': number;
  Plans?: PlanNode[];
}

/** The statement tokenBalance sends (db/ledger.ts), explained with the rows each plan node really read. */
export async function tokenBalancePlan(userId: string): Promise<PlanNode> {
  const [plan] = await sql().unsafe(
    `explain (analyze, format json)
     select (select coalesce(sum(s.remaining), 0)::int from ledger_spendable($1) s) as balance`,
    [userId],
  );
  return (plan!['QUERY PLAN'] as { Plan: PlanNode }[])[0]!.Plan;
}

/** Lets every grant a user holds run out (their expiry a second ago): the balance is 0. */
export async function expireGrants(userId: string): Promise<void> {
  await sql()`update token_grants set expires_at = now() - interval '1 second' where user_id = ${userId}`;
}

/** The amounts ever debited from a user, for any reason. */
export async function debitAmountsOfUser(userId: string): Promise<number[]> {
  const rows = await sql()<{ amount: number }[]>`select amount from token_debits where user_id = ${userId} order by id`;
  return rows.map((r) => r.amount);
}

/** The settings (pg_proc.proconfig, e.g. plan_cache_mode=force_generic_plan) of SQL functions by name, by name. */
export async function functionSettings(names: string[]): Promise<[string, string[] | null][]> {
  const rows = await sql()<{ name: string; config: string[] | null }[]>`
    select proname as name, proconfig as config from pg_proc where proname in ${sql()(names)} order by proname`;
  return rows.map((r) => [r.name, r.config]);
}

/**
 * The plans of the statements ledger_debit(userId, debits) runs (auto_explain's text of each nested statement, with
 * the rows read), on a connection of its own that is closed afterwards; the debit is rolled back.
 */
export async function debitStatementPlans(
  userId: string,
  debits: { reference: string; amount: number }[],
): Promise<string[]> {
  const plans: string[] = [];
  const one = postgres(process.env.DATABASE_URL!, {
    max: 1,
    onnotice: (n) => {
      const m = String(n.message ?? '');
      if (m.includes('plan:')) plans.push(m);
    },
  });
  const rolledBack = new Error('rolled back');
  try {
    await one.begin(async (tx) => {
      await tx`load 'auto_explain'`;
      await tx`set local auto_explain.log_min_duration = 0`;
      await tx`set local auto_explain.log_nested_statements = on`;
      await tx`set local auto_explain.log_analyze = on`;
      await tx`set local client_min_messages = log`;
      await tx`select * from ledger_debit(${userId}, ${tx.json(debits)}::jsonb)`;
      throw rolledBack;
    });
  } catch (err) {
    if (err !== rolledBack) throw err;
  } finally {
    await one.end();
  }
  return plans;
}
