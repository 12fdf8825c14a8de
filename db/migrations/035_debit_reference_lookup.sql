-- ledger_debit's check of the debit references looks each one up in token_debits' unique index (issue 34). As 031
-- wrote it (`d.reference in (select ... from jsonb_array_elements(p_debits))`), the planner takes the JSON array for
-- 100 rows whatever it holds (jsonb_array_elements has no row estimate of its own), so a hash semi join over a
-- sequential scan of the whole token_debits table is cheaper to it than 100 index lookups until the table has tens
-- of thousands of rows: every generation's charge read every debit of every account (0.3-0.8 ms at 2,000 debits,
-- growing with the table; EXPLAIN ANALYZE in docs/benchmarks.md). Custom plans choose the same (the estimate is the
-- function's, not the value's), so it is not 034's generic plans. Here each distinct reference is one index lookup
-- (a LATERAL subquery with LIMIT 1 on a unique column cannot be turned into a join): the same counts, so the same
-- rules (a duplicate call, a reference of another account, some references used). The rest is 033's function as it
-- was; the SET clause repeats 034's (test/integration/ledger-scale.test.ts checks it).
create or replace function ledger_debit(p_user_id text, p_debits jsonb)
returns table (out_ok boolean, out_duplicate boolean, out_required integer, out_available integer,
               out_balance integer)
language plpgsql
set plan_cache_mode = force_generic_plan
as $$
declare
  v_used integer;
  v_foreign integer;
  v_wanted integer := jsonb_array_length(p_debits);
  v_email text;
  v_created_at timestamptz;
  v_monthly integer;
  v_grant_ids bigint[];
  v_grant_remaining integer[];
begin
  select u.email, u.created_at, p.tokens_per_month into v_email, v_created_at, v_monthly
  from users u left join plans p on p.id = u.plan where u.id = p_user_id for update of u;
  if not found then
    raise exception 'unknown user %', p_user_id;
  end if;
  select coalesce(sum((r ->> 'amount')::int), 0)::int into out_required from jsonb_array_elements(p_debits) r;
  if exists (select 1 from jsonb_array_elements(p_debits) r where (r ->> 'amount')::int <= 0) then
    raise exception 'debit amounts must be positive integers';
  end if;
  -- the spendable grants, read once (in spending order): their sum is the balance, and the debits below take from them
  select coalesce(sum(s.remaining), 0)::int,
         array_agg(s.id order by s.expires_at asc nulls last, s.id asc),
         array_agg(s.remaining order by s.expires_at asc nulls last, s.id asc)
  into out_available, v_grant_ids, v_grant_remaining
  from ledger_spendable(p_user_id) s;

  -- each distinct reference looked up in token_debits' unique index (the LIMIT keeps the lookup a nested loop)
  select count(*), count(*) filter (where d.user_id <> p_user_id) into v_used, v_foreign
  from (select distinct r ->> 'reference' as reference from jsonb_array_elements(p_debits) r) w
    cross join lateral (select t.user_id from token_debits t where t.reference = w.reference limit 1) d;
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
    select s.id, s.remaining, sum(s.remaining) over (order by s.n) as upto
    from unnest(v_grant_ids, v_grant_remaining) with ordinality s(id, remaining, n)
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
  if out_required > 0 then
    perform ledger_mail_if_low(p_user_id, v_email, v_created_at, v_monthly, out_available, out_balance);
  end if;
  return next;
end
$$;
