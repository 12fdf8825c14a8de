-- Account-wide ceilings on top of the per-key limits (issue 11): a request now takes several concurrency slots (its
-- key's, its account's, and for POST /analyze its account's analysis slot) before its windows are counted, still
-- in one round trip.
--
-- Takes the slots in order, each as rate_limit_acquire does, and stops at the first that is full: the slots taken
-- before it are given back at once (the request is refused), and no window is counted. When every slot is taken,
-- counts the windows as rate_limit_hit does. One row per slot tried (out_hits 1 taken, 0 full), then one per window
-- counted. Rows are locked in the same order by every request (key rows before account rows), so concurrent
-- requests of one account cannot deadlock.
create function rate_limit_admit_slots(p_slot_keys text[], p_slot_limits integer[], p_lease text, p_lease_ms integer,
                                       p_keys text[], p_window_ms integer[], p_limits integer[])
returns table (out_key text, out_hits integer, out_ms_left double precision)
language plpgsql as $$
declare
  taken text[] := '{}';
begin
  out_ms_left := 0;
  for i in 1 .. coalesce(array_length(p_slot_keys, 1), 0) loop
    out_key := p_slot_keys[i];
    if rate_limit_acquire(p_slot_keys[i], p_lease, p_slot_limits[i], p_lease_ms) then
      out_hits := 1;
      taken := taken || p_slot_keys[i];
      return next;
    else
      out_hits := 0;
      return next;
      update rate_limit_slots set leases = leases - p_lease where key = any(taken);
      return;
    end if;
  end loop;
  return query select * from rate_limit_hit(p_keys, p_window_ms, p_limits);
end
$$;

-- Counts `p_extra` more hits in each live window of `p_keys` (a batch of N items costs N), all or none: only when
-- every one of them still fits its limit. Windows that have ended are left alone (the next request restarts them).
-- Locks the rows in the order given, the order rate_limit_hit uses. Answers each live window's count afterwards and
-- whether the hits were added.
create function rate_limit_weigh(p_keys text[], p_limits integer[], p_extra integer)
returns table (out_key text, out_hits integer, out_ms_left double precision, out_fits boolean)
language plpgsql as $$
declare
  fits boolean := true;
  h integer;
begin
  for i in 1 .. coalesce(array_length(p_keys, 1), 0) loop
    select r.hits into h from rate_limit_hits r where r.key = p_keys[i] and r.reset_at > now() for update;
    if found and h + p_extra > p_limits[i] then
      fits := false;
    end if;
  end loop;
  if fits then
    update rate_limit_hits set hits = hits + p_extra where key = any(p_keys) and reset_at > now();
  end if;
  return query
    select r.key, r.hits, (extract(epoch from r.reset_at - now()) * 1000)::float8, fits
    from rate_limit_hits r join unnest(p_keys) with ordinality k(key, n) on r.key = k.key
    where r.reset_at > now() order by k.n;
end
$$;

-- rate_limit_admit (004) stays for API processes of the previous version during a rolling upgrade.
