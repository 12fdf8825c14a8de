-- One debit (issue 34). Every spend of tokens (a generation, a batch, a chat job; test mode only locks) goes through
-- ledger_debit, called by db/ledger.ts debitTokensIn, which also writes the low-balance mail; the grants an account
-- can spend are found by ledger_spendable alone. generations_insert_and_charge (030) is replaced by
-- db/generations.ts insertAndChargeGenerations on top of debitTokensIn.
drop function generations_insert_and_charge(text, text, text, jsonb, text, text, text, integer);

-- Unexpired grants with tokens left; none while the account owes tokens (a refund or dispute took back more than it
-- had), unless p_even_owing (repaying that debt, taking tokens back). Spending order is the caller's:
-- soonest expiry first, permanent grants last, then by id. A plain SQL function, so the planner inlines it into the
-- statement that reads it (the balance stays one index scan of the account's grants and their allocations).
create function ledger_spendable(p_user_id text, p_even_owing boolean default false)
returns table (id bigint, remaining integer, expires_at timestamptz, reference text)
language sql stable as $$
  select g.id, (g.amount - coalesce(a.spent, 0))::int, g.expires_at, g.reference
  from token_grants g
  left join lateral (select sum(al.amount)::int as spent from token_allocations al where al.grant_id = g.id) a on true
  where g.user_id = p_user_id and (g.expires_at is null or g.expires_at > now())
    and g.amount - coalesce(a.spent, 0) > 0
    and (p_even_owing or not exists (select 1 from token_debits d where d.user_id = p_user_id and d.owed > 0))
$$;

-- Takes each of p_debits ([{reference, amount}], in spending order) from the account's spendable grants, all or none:
-- - the account row is locked first, so concurrent debits of one account serialize (each statement of a plpgsql
--   function reads with a fresh snapshot, so the grants are read after the lock is held);
-- - when the balance does not cover the sum, nothing is written (out_ok false, out_available what there is);
-- - a debit reference is used once: when every reference was debited already (a retried caller), nothing is
--   charged again and out_duplicate is true; a reference of another account, or only some of them used, is an error;
-- - each debit keeps its own allocations (so a refund gives back exactly one debit's tokens): debit k covers the
--   tokens (sum of the amounts before it, that sum + its amount], grant j the tokens (tokens left in the grants
--   before it, that + its own], and the debit takes from each grant the overlap.
-- An empty p_debits only locks the account and reads its balance (test mode).
-- Also returns what the low-balance mail needs (db/payment-mails.ts mailIfTokensLow, called right after).
create function ledger_debit(p_user_id text, p_debits jsonb)
returns table (out_ok boolean, out_duplicate boolean, out_required integer, out_available integer,
               out_balance integer, out_email text, out_created_at timestamptz, out_monthly integer)
language plpgsql as $$
declare
  v_used integer;
  v_foreign integer;
  v_wanted integer := jsonb_array_length(p_debits);
begin
  select u.email, u.created_at, p.tokens_per_month into out_email, out_created_at, out_monthly
  from users u left join plans p on p.id = u.plan where u.id = p_user_id for update of u;
  if not found then
    raise exception 'unknown user %', p_user_id;
  end if;
  select coalesce(sum((r ->> 'amount')::int), 0)::int into out_required from jsonb_array_elements(p_debits) r;
  if exists (select 1 from jsonb_array_elements(p_debits) r where (r ->> 'amount')::int <= 0) then
    raise exception 'debit amounts must be positive integers';
  end if;
  select coalesce(sum(s.remaining), 0)::int into out_available from ledger_spendable(p_user_id) s;

  select count(*), count(*) filter (where d.user_id <> p_user_id) into v_used, v_foreign
  from token_debits d where d.reference in (select r ->> 'reference' from jsonb_array_elements(p_debits) r);
  if v_foreign > 0 then
    raise exception 'a debit reference belongs to another account';
  end if;
  if v_used > 0 then
    if v_used < v_wanted then
      raise exception 'some of the debit references were used already';
    end if;
    out_ok := true;
    out_duplicate := true;
    out_balance := out_available;
    return next;
    return;
  end if;

  out_duplicate := false;
  if out_available < out_required then
    out_ok := false;
    return next;
    return;
  end if;

  with grants as (
    select s.id, s.remaining,
           sum(s.remaining) over (order by s.expires_at asc nulls last, s.id asc) as upto
    from ledger_spendable(p_user_id) s
  ), wanted as (
    select r.value ->> 'reference' as reference, (r.value ->> 'amount')::int as amount, r.n,
           sum((r.value ->> 'amount')::int) over (order by r.n) as upto
    from jsonb_array_elements(p_debits) with ordinality r(value, n)
  ), debits as (
    insert into token_debits (user_id, amount, reference)
    select p_user_id, w.amount, w.reference from wanted w order by w.n
    returning id, reference
  )
  insert into token_allocations (debit_id, grant_id, amount)
  select d.id, g.id, (least(w.upto, g.upto) - greatest(w.upto - w.amount, g.upto - g.remaining))::int
  from debits d join wanted w on w.reference = d.reference
    join grants g on g.upto - g.remaining < w.upto and g.upto > w.upto - w.amount;

  out_ok := true;
  out_balance := out_available - out_required;
  return next;
end
$$;
