-- Recording and charging generations in one round trip again (issue 34). 031 made every spend go through
-- ledger_debit, but POST /generate, /generate/batch, /generate/bulk and test mode called it from a postgres.js
-- transaction (BEGIN, then the debit, the rows and the recovery point pipelined, then COMMIT: three round trips, where
-- 030's generations_insert_and_charge took one), because the low-balance mail was written by TypeScript
-- (mailIfTokensLow) after the debit. Here:
-- - ledger_debit writes the low-balance mail itself (ledger_mail_if_low), in the debit's statement: whoever spends
--   (generate, batch, bulk, chat) gets it, atomically with the debit (marked once per period in
--   users.low_balance_mailed_for, the outbox row in the same transaction: none lost, none twice);
-- - generations_record_and_charge records the rows of db/generation-inserts.ts insertAndChargeGenerations and charges
--   them through ledger_debit (the one debit: it never takes grants itself), in one statement (autocommit);
-- - the allowance period is computed by one SQL function, allowance_period (db/accounts.ts grantFreeAllowancePage and
--   the low-balance mail), exactly as lib/accounts/allowance.ts allowancePeriod.

-- The Free allowance period containing p_at: whole months after the signup instant truncated to the second (month
-- arithmetic on UTC wall-clock timestamps, whatever the session's time zone), clamped to the month's last day. age()
-- may be one month off around month ends: the last period start not after p_at is taken.
create function allowance_period(p_signup timestamptz, p_at timestamptz)
returns table (period_start timestamptz, period_end timestamptz)
language sql stable as $$
  with t as (
    select date_trunc('second', p_signup at time zone 'UTC') as signup, p_at at time zone 'UTC' as at
  ), m as (
    select t.signup, t.at, (extract(year from age(t.at, t.signup)) * 12 + extract(month from age(t.at, t.signup)))::int as n
    from t
  )
  select (m.signup + make_interval(months => k)) at time zone 'UTC',
         (m.signup + make_interval(months => k + 1)) at time zone 'UTC'
  from m, generate_series(greatest(m.n - 1, 0), m.n + 1) k
  where m.signup + make_interval(months => k) <= m.at
  order by k desc limit 1
$$;

-- A mail can be written by SQL as its message (lib/mail/templates.ts MailMessage, links with the
-- {{PUBLIC_BASE_URL}} placeholder): db/mail-outbox.ts renders it when it is read to be sent, and the sent row keeps
-- its subject. Every other mail is rendered by the app when it is written, as before.
alter table mail_outbox add column message jsonb;
alter table mail_outbox alter column subject drop not null;

-- The low-balance mail (docs/accounts.md#payment-mails): a debit that took the balance from at least 10 % of the
-- plan's monthly tokens (p_monthly) to under it mails the owner, once per period (the current subscription's, else
-- the Free allowance's). Called by ledger_debit only, under the account's row lock.
create function ledger_mail_if_low(p_user_id text, p_email text, p_created_at timestamptz, p_monthly integer,
                                   p_before integer, p_after integer)
returns void
language plpgsql as $$
declare
  v_period timestamptz;
begin
  if coalesce(p_monthly, 0) = 0 or not (p_before >= p_monthly * 0.1 and p_after < p_monthly * 0.1) then
    return;
  end if;
  select s.current_period_start into v_period from subscriptions s
  where s.user_id = p_user_id and s.status in ('active', 'trialing', 'past_due') and s.current_period_start <= now()
  order by s.current_period_start desc limit 1;
  if v_period is null then
    select a.period_start into v_period from allowance_period(p_created_at, now()) a;
  end if;
  update users set low_balance_mailed_for = v_period
  where id = p_user_id and deleted_at is null and low_balance_mailed_for is distinct from v_period;
  if not found then
    return;
  end if;
  -- billingLink: db/payment-mails.ts BILLING
  insert into mail_outbox (user_id, kind, to_address, message)
  values (p_user_id, 'tokens_low', p_email,
          jsonb_build_object('kind', 'tokens_low', 'balance', p_after, 'monthly', p_monthly,
                             'billingLink', '{{PUBLIC_BASE_URL}}/billing'));
end
$$;

-- ledger_debit as in 031 (the same rules, the same writes), and the low-balance mail written in it; it no longer
-- returns what the mail needed.
drop function ledger_debit(text, jsonb);
create function ledger_debit(p_user_id text, p_debits jsonb)
returns table (out_ok boolean, out_duplicate boolean, out_required integer, out_available integer,
               out_balance integer)
language plpgsql as $$
declare
  v_used integer;
  v_foreign integer;
  v_wanted integer := jsonb_array_length(p_debits);
  v_email text;
  v_created_at timestamptz;
  v_monthly integer;
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
  if out_required > 0 then
    perform ledger_mail_if_low(p_user_id, v_email, v_created_at, v_monthly, out_available, out_balance);
  end if;
  return next;
end
$$;

-- db/generation-inserts.ts insertAndChargeGenerations in one statement: the account is locked and charged one token
-- per generation by ledger_debit (reference = the generation id, in the order of p_rows; test mode, p_test_per_day
-- not null, debits nothing, which locks the account all the same), then
-- - test mode: the account's test generations of the last 24 hours (read under the lock) plus these must stay within
--   p_test_per_day, else nothing is written (out_ok false, out_test_used and out_test_oldest set);
-- - with an Idempotency-Key (p_idem_key), its recovery point p_recovery is written, only while the key is still held
--   with p_idem_token; when it is not (another request took it over) the statement fails with SQLSTATE MKIKL and
--   nothing stays written, whether or not the balance or the test budget would have refused it;
-- - the rows p_rows (generations columns by name, as the app writes them) are inserted, and with p_bulk
--   ({row: bulk_jobs columns, items: [bulk_items columns]}) the bulk's row and items.
-- When the balance does not cover them, nothing is written (out_ok false, out_required and out_available set).
create function generations_record_and_charge(p_user_id text, p_rows jsonb, p_test_per_day integer,
                                              p_idem_account text, p_idem_key text, p_idem_token text,
                                              p_idem_lock_ms integer, p_recovery jsonb, p_bulk jsonb)
returns table (out_ok boolean, out_balance integer, out_required integer, out_available integer,
               out_test_used integer, out_test_oldest timestamptz)
language plpgsql as $$
declare
  v_debit record;
begin
  select * into v_debit from ledger_debit(p_user_id,
    case when p_test_per_day is not null then '[]'::jsonb
         else (select coalesce(jsonb_agg(jsonb_build_object('reference', r.value ->> 'id', 'amount', 1) order by r.n),
                               '[]'::jsonb)
               from jsonb_array_elements(p_rows) with ordinality r(value, n)) end);
  out_required := v_debit.out_required;
  out_available := v_debit.out_available;
  -- a key taken over fails the statement whatever else would refuse it (the key's row is held until the end)
  if p_idem_key is not null then
    perform 1 from idempotency_keys
    where account_id = p_idem_account and key = p_idem_key and lock_token = p_idem_token::uuid for update;
    if not found then
      raise exception 'idempotency key % was taken over', p_idem_key using errcode = 'MKIKL';
    end if;
  end if;
  if not v_debit.out_ok then
    out_ok := false;
    return next;
    return;
  end if;

  if p_test_per_day is not null then
    select count(*)::int, min(g.created_at) into out_test_used, out_test_oldest from generations g
    where g.user_id = p_user_id and g.livemode = false and g.created_at > now() - interval '24 hours';
    if out_test_used + jsonb_array_length(p_rows) > p_test_per_day then
      out_ok := false;
      return next;
      return;
    end if;
    out_test_used := null;
    out_test_oldest := null;
  end if;

  if p_idem_key is not null then
    update idempotency_keys
    set recovery = p_recovery,
        locked_until = greatest(locked_until, now() + p_idem_lock_ms * interval '1 millisecond')
    where account_id = p_idem_account and key = p_idem_key and lock_token = p_idem_token::uuid;
  end if;

  insert into generations (id, user_id, api_key_id, garment_id, color, zone, garment_image_url, webhook_url,
                           template_id, designs, placement, apply_texture, design_url, blank_key, print_area,
                           batch_id, livemode, tokens_used)
  select r.id, r.user_id, r.api_key_id, r.garment_id, r.color, r.zone, r.garment_image_url, r.webhook_url,
         r.template_id, r.designs, r.placement, r.apply_texture, r.design_url, r.blank_key, r.print_area,
         r.batch_id, r.livemode, r.tokens_used
  from jsonb_populate_recordset(null::generations, p_rows) r;

  if p_bulk is not null then
    insert into bulk_jobs (id, user_id, api_key_id, livemode, total, tokens_charged, webhook_url, item_webhooks)
    select b.id, b.user_id, b.api_key_id, b.livemode, b.total, b.tokens_charged, b.webhook_url, b.item_webhooks
    from jsonb_populate_record(null::bulk_jobs, p_bulk -> 'row') b;
    insert into bulk_items (bulk_id, position, generation_id, entry_name, garment_id, job)
    select i.bulk_id, i.position, i.generation_id, i.entry_name, i.garment_id, i.job
    from jsonb_populate_recordset(null::bulk_items, p_bulk -> 'items') i;
  end if;

  out_ok := true;
  out_balance := v_debit.out_balance;
  return next;
end
$$;
