// The token ledger. Tokens are money: grants and debits are rows, the balance is derived, every write is keyed
// by a unique reference so a retried caller (an activity, a webhook redelivery) cannot grant or charge twice.
import type postgres from 'postgres';
import { jsonParam, type Sql, type Tx } from './client';

export type GrantSource = 'free' | 'plan' | 'payg_purchase' | 'refund' | 'dispute_won';

export interface GrantInput {
  userId: string;
  source: GrantSource;
  amount: number;
  expiresAt?: Date | null;
  /** Idempotency key, e.g. `signup:<user id>`, `refund:<generation id>`, `stripe:<event id>`. */
  reference: string;
  /** The subscription (our id) a plan grant belongs to. */
  subscriptionId?: string | null;
}

/**
 * Adds a grant once per reference. Returns true when this call created it. What the account owes (a refund or dispute
 * that took back more than it had) is repaid from its grants first, this one included.
 */
export async function grantTokens(sql: Tx, g: GrantInput): Promise<boolean> {
  const rows = await sql<{ id: number; owing: boolean }[]>`
    insert into token_grants (user_id, source, amount, expires_at, reference, subscription_id)
    values (${g.userId}, ${g.source}, ${g.amount}, ${g.expiresAt ?? null}, ${g.reference}, ${g.subscriptionId ?? null})
    on conflict (reference) do nothing
    returning id, exists (select 1 from token_debits d where d.user_id = ${g.userId} and d.owed > 0) as owing`;
  if (rows[0]?.owing) await repayDebts(sql, g.userId);
  return rows.length === 1;
}

/** Tokens the account owes: taken back by a refund or dispute when it no longer had them. */
export async function tokensOwed(sql: Tx, userId: string): Promise<number> {
  const [row] = await sql<{ owed: number }[]>`
    select coalesce(sum(owed), 0)::int as owed from token_debits where user_id = ${userId} and owed > 0`;
  return row?.owed ?? 0;
}

/** Allocates the account's spendable grants to what it owes, oldest debt first. Returns what is still owed. */
async function repayDebts(tx: Tx, userId: string): Promise<number> {
  const debts = await tx<{ id: number; owed: number }[]>`
    select id, owed from token_debits where user_id = ${userId} and owed > 0 order by id for update`;
  if (debts.length === 0) return 0;
  const grants = await spendable(tx, userId, true);
  let still = 0;
  for (const d of debts) {
    let left = d.owed;
    for (const g of grants) {
      if (left === 0) break;
      const take = Math.min(left, g.remaining);
      if (take === 0) continue;
      await tx`insert into token_allocations (debit_id, grant_id, amount) values (${d.id}, ${g.id}, ${take})
        on conflict (debit_id, grant_id) do update set amount = token_allocations.amount + excluded.amount`;
      g.remaining -= take;
      left -= take;
    }
    await tx`update token_debits set owed = ${left} where id = ${d.id}`;
    still += left;
  }
  return still;
}

/**
 * Takes back `amount` tokens once per reference (a refund or a dispute of a purchase), under the account's row lock
 * (the caller holds it). What the account has is taken, the grant `preferReference` first (the purchase's own
 * tokens), then in spending order; what it no longer has is recorded as owed: the balance never goes below zero,
 * the next grants repay the debt first, and nothing can be spent while any is owed. Null when the reference was
 * already used.
 */
export async function takeBackTokens(
  tx: Tx,
  t: { userId: string; amount: number; reference: string; reason: 'refund' | 'dispute'; preferReference?: string },
): Promise<{ taken: number; owed: number } | null> {
  if (!Number.isInteger(t.amount) || t.amount <= 0)
    throw new Error(`take-back amount must be a positive integer, got ${t.amount}`);
  const [debit] = await tx<{ id: number }[]>`
    insert into token_debits (user_id, amount, reference, reason, owed)
    values (${t.userId}, ${t.amount}, ${t.reference}, ${t.reason}, ${t.amount})
    on conflict (reference) do nothing returning id`;
  if (!debit) return null;
  const grants = await spendable(tx, t.userId, true, t.preferReference);
  let left = t.amount;
  for (const g of grants) {
    if (left === 0) break;
    const take = Math.min(left, g.remaining);
    await tx`insert into token_allocations (debit_id, grant_id, amount) values (${debit.id}, ${g.id}, ${take})`;
    left -= take;
  }
  await tx`update token_debits set owed = ${left} where id = ${debit.id}`;
  return { taken: t.amount - left, owed: left };
}

/**
 * Gives back what the take-back debit `debitReference` took, once (grant `grantReference`, source `source`), and
 * forgives what it still owed. The grant keeps the latest expiry of the grants it came from. Returns the tokens given
 * back (0 when there was no such debit, nothing was taken, or it was given back already).
 */
export async function giveBackTokens(
  tx: Tx,
  debitReference: string,
  grantReference: string,
  source: GrantSource,
): Promise<number> {
  const [debit] = await tx<{ id: number; user_id: string; amount: number; owed: number }[]>`
    select id, user_id, amount, owed from token_debits where reference = ${debitReference} for update`;
  if (!debit) return 0;
  if (debit.owed > 0) await tx`update token_debits set owed = 0 where id = ${debit.id}`;
  const taken = debit.amount - debit.owed;
  if (taken === 0) return 0;
  const [exp] = await tx<{ has_null: boolean; latest: Date | null }[]>`
    select bool_or(g.expires_at is null) as has_null, max(g.expires_at) as latest
    from token_allocations a join token_grants g on g.id = a.grant_id where a.debit_id = ${debit.id}`;
  const made = await grantTokens(tx, {
    userId: debit.user_id,
    source,
    amount: taken,
    expiresAt: exp?.has_null ? null : (exp?.latest ?? null),
    reference: grantReference,
  });
  return made ? taken : 0;
}

/**
 * Spendable balance: unexpired grants minus what debits took from them; 0 while the account owes tokens (it cannot
 * spend then, and a balance never goes below zero: what is owed is `tokensOwed`). Only this account's grants and their
 * allocations are read (index token_grants_user_idx, then token_allocations_grant_idx per grant), so the cost
 * follows the account's own history, not the whole ledger: it runs on every keyed request.
 */
export async function tokenBalance(sql: Tx, userId: string): Promise<number> {
  const [row] = await sql<{ balance: number }[]>`select ${balanceOf(sql, userId)} as balance`;
  return row?.balance ?? 0;
}

/**
 * tokenBalance as a scalar subquery, for statements that read the balance along with other things (the API-key
 * lookup). `userId` is a value, or a fragment naming a column of the outer query (sql`k.user_id`).
 */
export function balanceOf(sql: Tx, userId: string | postgres.PendingQuery<postgres.Row[]>) {
  return sql`(select coalesce(sum(s.remaining), 0)::int from ledger_spendable(${userId}) s)`;
}

/**
 * The account's spendable grants (db/migrations/031_one_debit.sql ledger_spendable, the one place they are found), in
 * spending order: soonest expiry first, permanent grants last; the grant `preferReference` names, if any, before
 * them all. `evenOwing`: also while the account owes tokens (repaying the debt, taking tokens back).
 */
const spendable = (tx: Tx, userId: string, evenOwing: boolean, preferReference?: string) => tx<
  { id: number; remaining: number }[]
>`
    select s.id, s.remaining from ledger_spendable(${userId}, ${evenOwing}) s
    order by (s.reference = ${preferReference ?? ''}) desc, s.expires_at asc nulls last, s.id asc`;

/** One debit: `amount` tokens under a unique `reference` (a generation id, a chat job id). */
export interface Debit {
  reference: string;
  amount: number;
}

export type DebitResult =
  | { ok: true; duplicate: boolean; balance: number }
  | { ok: false; reason: 'insufficient_tokens'; required: number; available: number };

/**
 * The one way tokens are spent (chat, tests; generate, batch, bulk and test mode call the same SQL function from
 * db/generation-inserts.ts): takes every debit in `debits` or none (ledger_debit, db/migrations/031_one_debit.sql,
 * with the low-balance mail since 032_one_round_trip_charge.sql, the spendable grants read once since
 * 033_debit_reads_grants_once.sql, one generic plan per connection since 034_debit_generic_plans.sql). The account
 * row is locked for the caller's transaction, so concurrent debits of one account serialize and can never take the
 * balance below zero; grants that expire soonest are spent first; each debit keeps its own allocations, so
 * refundDebit gives back exactly its tokens. Debits whose references were all taken already return the balance
 * (duplicate: true) without charging again. A debit that takes the balance under 10 % of the plan's month writes the
 * low-balance mail in the same statement (ledger_mail_if_low), whoever spent.
 */
export async function debitTokensIn(tx: Tx, userId: string, debits: Debit[]): Promise<DebitResult> {
  for (const d of debits)
    if (!Number.isInteger(d.amount) || d.amount <= 0)
      throw new Error(`debit amount must be a positive integer, got ${d.amount}`);
  const [out] = await tx<
    { ok: boolean; duplicate: boolean; required: number; available: number; balance: number | null }[]
  >`select out_ok as ok, out_duplicate as duplicate, out_required as required, out_available as available,
           out_balance as balance
    from ledger_debit(${userId}, ${jsonParam(tx, debits)}::jsonb)`;
  if (!out) throw new Error('ledger_debit answered nothing');
  if (!out.ok) return { ok: false, reason: 'insufficient_tokens', required: out.required, available: out.available };
  return { ok: true, duplicate: out.duplicate, balance: out.balance! };
}

/** debitTokensIn in a transaction of its own. */
export async function debitTokens(sql: Sql, userId: string, debits: Debit[]): Promise<DebitResult> {
  return sql.begin((tx) => debitTokensIn(tx, userId, debits));
}

/**
 * Gives back what the debit `debitReference` took, once (reference `refund:<debitReference>`). The refund grant
 * keeps the latest expiry of the grants it came from, so a refund never turns expiring tokens into permanent ones.
 * Returns false when there was nothing to refund (no such debit) or it was refunded already.
 */
export async function refundDebit(sql: Sql, debitReference: string): Promise<boolean> {
  return sql.begin((tx) => refundDebitIn(tx, debitReference));
}

/** refundDebit inside a caller's transaction (db/generations.ts refunds in the statement's transaction). */
export async function refundDebitIn(tx: Tx, debitReference: string): Promise<boolean> {
  const [debit] = await tx<{ id: number; user_id: string; amount: number }[]>`
    select id, user_id, amount from token_debits where reference = ${debitReference}`;
  if (!debit) return false;
  const [exp] = await tx<{ has_null: boolean; latest: Date | null }[]>`
    select bool_or(g.expires_at is null) as has_null, max(g.expires_at) as latest
    from token_allocations a join token_grants g on g.id = a.grant_id where a.debit_id = ${debit.id}`;
  const expiresAt = exp?.has_null ? null : (exp?.latest ?? null);
  return grantTokens(tx, {
    userId: debit.user_id,
    source: 'refund',
    amount: debit.amount,
    expiresAt,
    reference: `refund:${debitReference}`,
  });
}
