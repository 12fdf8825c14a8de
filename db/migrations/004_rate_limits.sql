-- Part A rate and concurrency limits, shared by every API instance on this database (issue 5).
--
-- Both tables are UNLOGGED: they are written on every keyed request, and without WAL a write costs no log flush
-- (measured in bench/rate-limit.ts: a logged upsert per window roughly doubled the limiter's cost). The price is
-- that a PostgreSQL crash or a failover to a standby empties them, so every key starts fresh windows and free
-- slots: limits are briefly more generous, never stricter, which is acceptable for counters that expire within
-- an hour anyway.

-- Fixed-window hit counters: one row per limiter key (e.g. `minute:key_...`), reused from window to window, so
-- the table holds one row per active key and window kind. Only the primary key is indexed: `hits` and
-- `reset_at` change on every request, and an index on them would rule out HOT updates. Idle rows are purged
-- now and then with a sequential scan, which is cheap on a table of this size.
create unlogged table rate_limit_hits (
  key       text primary key,
  hits      integer not null,
  reset_at  timestamptz not null
) with (fillfactor = 80);

-- Counts one request in each of a request's windows, in order, in one round trip, and stops after the first
-- window the request exceeds: a refused request is not counted in the windows after the refusing one (they are
-- ordered shortest first, so retrying against a minute limit cannot drain the hour budget). A window that has
-- ended restarts at this hit. Returns the windows it counted, with the milliseconds left in each.
create function rate_limit_hit(p_keys text[], p_window_ms integer[], p_limits integer[])
returns table (out_key text, out_hits integer, out_ms_left double precision)
language plpgsql as $$
begin
  for i in 1 .. coalesce(array_length(p_keys, 1), 0) loop
    insert into rate_limit_hits as h (key, hits, reset_at)
    values (p_keys[i], 1, now() + p_window_ms[i] * interval '1 millisecond')
    on conflict (key) do update set
      hits = case when h.reset_at <= now() then 1 else h.hits + 1 end,
      reset_at = case when h.reset_at <= now() then excluded.reset_at else h.reset_at end
    returning h.key, h.hits, extract(epoch from h.reset_at - now()) * 1000
    into out_key, out_hits, out_ms_left;
    return next;
    exit when out_hits > p_limits[i];
  end loop;
end
$$;

-- Concurrency slots: one row per key holding the leases of its requests in flight, as {leaseId: expiry in epoch
-- ms}. A lease expires unless its request renews it, so an instance that dies mid-request gives its slots back
-- after the lease time instead of leaking them. Acquiring is one upsert whose WHERE is checked against the
-- latest row version under the row lock, so two racing requests can never both take the last slot. Keeping all
-- of a key's leases in one row (rather than a row per lease) makes acquire and release in-place updates of one
-- tuple: a row per lease meant an insert and a delete per request, index churn, and a lock plus a count to keep
-- it atomic, which cost several times more under load (bench/rate-limit.ts).
create unlogged table rate_limit_slots (
  key    text primary key,
  leases jsonb not null
) with (fillfactor = 70);

-- Takes a slot of `p_key` for lease `p_lease` when fewer than `p_limit` live leases exist; answers whether it
-- did. ON CONFLICT DO UPDATE locks the key's row and evaluates WHERE on its latest version, so counting the live
-- leases and adding ours are atomic. Expired leases are dropped on the way.
create function rate_limit_acquire(p_key text, p_lease text, p_limit integer, p_lease_ms integer) returns boolean
language sql as $$
  with taken as (
    insert into rate_limit_slots as s (key, leases)
    values (p_key, jsonb_build_object(p_lease, extract(epoch from now()) * 1000 + p_lease_ms))
    on conflict (key) do update set
      leases = (select coalesce(jsonb_object_agg(e.key, e.value), '{}'::jsonb) from jsonb_each(s.leases) e
                where e.value::float8 > extract(epoch from now()) * 1000) || excluded.leases
    where (select count(*) from jsonb_each(s.leases) e where e.value::float8 > extract(epoch from now()) * 1000) < p_limit
    returning 1
  )
  select exists (select 1 from taken)
$$;

-- Everything a keyed request needs before it may run, in one round trip: a concurrency slot, then (only when it
-- got one) one hit in each window as rate_limit_hit does. The first row is the slot (out_hits 1 taken, 0 not),
-- the rest are the windows. A request refused for concurrency counts in no window.
create function rate_limit_admit(p_slot_key text, p_lease text, p_slot_limit integer, p_lease_ms integer,
                                 p_keys text[], p_window_ms integer[], p_limits integer[])
returns table (out_key text, out_hits integer, out_ms_left double precision)
language plpgsql as $$
begin
  out_key := p_slot_key;
  out_hits := case when rate_limit_acquire(p_slot_key, p_lease, p_slot_limit, p_lease_ms) then 1 else 0 end;
  out_ms_left := 0;
  return next;
  if out_hits = 1 then
    return query select * from rate_limit_hit(p_keys, p_window_ms, p_limits);
  end if;
end
$$;
