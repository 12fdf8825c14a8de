-- POST /generate and POST /generate/batch record their generations and charge them in one statement (one round trip
-- instead of a transaction of seven: begin, lock, grants, three inserts, commit), with the ledger's rules of
-- db/generations.ts insertAndChargeGenerations unchanged:
-- - the account row is locked first, so concurrent charges of one account serialize (each statement of a plpgsql
--   function reads with a fresh snapshot, so the grants below are read after the lock is held);
-- - only unexpired grants with tokens left count, none while the account owes tokens (tokensOwed);
-- - all generations or none: when the balance does not cover them, nothing is written (out_ok false);
-- - one debit per generation (reference = the generation id, amount 1), each with its own allocation, taken from
--   the grants in spending order (soonest expiry first, permanent grants last, then by id);
-- - with an Idempotency-Key, its recovery point (the generation ids and the batch id) is written first, only while
--   the key is still held with `p_idem_token`; when it is not (another request took it over) nothing is written and
--   out_key_lost is true.
-- p_rows: a JSON array of {id, garmentId, color, zone, placement, applyTexture, designUrl, garmentImageUrl,
-- blankKey, webhookUrl, printArea}, in the order their debits take the grants' tokens.
create function generations_insert_and_charge(p_user_id text, p_api_key_id text, p_batch_id text, p_rows jsonb,
                                              p_idem_account text, p_idem_key text, p_idem_token text,
                                              p_idem_lock_ms integer)
returns table (out_ok boolean, out_balance integer, out_required integer, out_available integer,
               out_key_lost boolean)
language plpgsql as $$
declare
  v_required integer := jsonb_array_length(p_rows);
  v_available integer;
begin
  out_key_lost := false;
  out_required := v_required;
  perform 1 from users where id = p_user_id for update;
  if not found then
    raise exception 'unknown user %', p_user_id;
  end if;

  select coalesce(sum(g.amount - coalesce(a.spent, 0)), 0)::int into v_available
  from token_grants g
  left join lateral (select sum(al.amount)::int as spent from token_allocations al where al.grant_id = g.id) a on true
  where g.user_id = p_user_id and (g.expires_at is null or g.expires_at > now())
    and g.amount - coalesce(a.spent, 0) > 0
    and not exists (select 1 from token_debits d where d.user_id = p_user_id and d.owed > 0);
  out_available := v_available;
  if v_available < v_required then
    out_ok := false;
    return next;
    return;
  end if;

  if p_idem_key is not null then
    update idempotency_keys
    set recovery = jsonb_build_object(
          'generationIds', (select jsonb_agg(r.value ->> 'id' order by r.n)
                            from jsonb_array_elements(p_rows) with ordinality r(value, n)),
          'batchId', p_batch_id),
        locked_until = greatest(locked_until, now() + p_idem_lock_ms * interval '1 millisecond')
    where account_id = p_idem_account and key = p_idem_key and lock_token = p_idem_token::uuid;
    if not found then
      out_ok := false;
      out_key_lost := true;
      return next;
      return;
    end if;
  end if;

  insert into generations (id, user_id, api_key_id, garment_id, color, zone, placement, apply_texture, design_url,
                           garment_image_url, blank_key, webhook_url, batch_id, print_area)
  select r ->> 'id', p_user_id, p_api_key_id, r ->> 'garmentId', r ->> 'color', r ->> 'zone', r -> 'placement',
         (r ->> 'applyTexture')::boolean, r ->> 'designUrl', r ->> 'garmentImageUrl', r ->> 'blankKey',
         r ->> 'webhookUrl', p_batch_id, nullif(r -> 'printArea', 'null'::jsonb)
  from jsonb_array_elements(p_rows) r;

  -- Token k (the k-th generation's) comes from the grant whose running total of tokens left first reaches k.
  with spendable as (
    select g.id, sum(g.amount - coalesce(a.spent, 0)) over (order by g.expires_at asc nulls last, g.id asc) as upto
    from token_grants g
    left join lateral (select sum(al.amount)::int as spent from token_allocations al where al.grant_id = g.id) a on true
    where g.user_id = p_user_id and (g.expires_at is null or g.expires_at > now())
      and g.amount - coalesce(a.spent, 0) > 0
  ), wanted as (
    select r.value ->> 'id' as reference, r.n from jsonb_array_elements(p_rows) with ordinality r(value, n)
  ), debits as (
    insert into token_debits (user_id, amount, reference)
    select p_user_id, 1, w.reference from wanted w order by w.n
    returning id, reference
  )
  insert into token_allocations (debit_id, grant_id, amount)
  select d.id, (select s.id from spendable s where s.upto >= w.n order by s.upto limit 1), 1
  from debits d join wanted w on w.reference = d.reference;

  out_ok := true;
  out_balance := v_available - v_required;
  return next;
end
$$;
