// The API rate limiter's statements (api/middleware/rate-limit/): fixed windows counted in rate_limit_hits and
// concurrency slots leased in rate_limit_slots (db/migrations/004_rate_limits.sql), and the one-round-trip admission
// of a request, slots and windows together (rate_limit_admit_slots, db/migrations/012_account_rate_limits.sql).
// Every API instance on the database shares these budgets. Expiry and remaining times are the database's clock, so
// API hosts' clocks never matter. The middleware decides, guards these calls with its StoreGuard (timeouts, the
// per-process fallback) and batches slot releases; these functions only send the statements.
import type { Sql } from './client';

/** One counted window (or, from admitRequest, one slot: outHits 1 when taken) as rate_limit_hit reports it. */
export interface HitRow {
  outKey: string;
  outHits: number;
  /** Until the window resets, by the database's clock. */
  outMsLeft: number;
}

/** A window to count a hit in: its key (prefixed with the window's name), length and limit. */
export interface WindowSpec {
  key: string;
  windowMs: number;
  limit: number;
}

/** Counts one hit in each window, in order, stopping after the first the request exceeds. */
export function hitWindows(sql: Sql, windows: WindowSpec[]) {
  return sql<HitRow[]>`
    select out_key as "outKey", out_hits as "outHits", out_ms_left as "outMsLeft"
    from rate_limit_hit(${windows.map((w) => w.key)}::text[], ${windows.map((w) => w.windowMs)}::int[], ${windows.map((w) => w.limit)}::int[])`;
}

/**
 * Takes a request's concurrency slots, in order, under one lease id, then counts its windows, in one statement. The
 * first rows are the slots tried (outHits 1 when taken; none after a full one, and then every slot taken is given
 * back by the database and no window is counted); the window rows follow, as from hitWindows.
 */
export function admitRequest(
  sql: Sql,
  admission: { slots: { key: string; limit: number }[]; leaseId: string; leaseMs: number; windows: WindowSpec[] },
) {
  const { slots: wanted, leaseId, leaseMs, windows } = admission;
  return sql<HitRow[]>`
        select out_key as "outKey", out_hits as "outHits", out_ms_left as "outMsLeft"
        from rate_limit_admit_slots(${wanted.map((s) => s.key)}::text[], ${wanted.map((s) => s.limit)}::int[],
          ${leaseId}, ${leaseMs}::int,
          ${windows.map((w) => w.key)}::text[], ${windows.map((w) => w.windowMs)}::int[], ${windows.map((w) => w.limit)}::int[])`;
}

/** Counts `extra` more hits in each window when they fit in all of them (rate_limit_weigh); a row per window. */
export function weighWindows(sql: Sql, keys: string[], limits: number[], extra: number) {
  return sql<{ key: string; hits: number; msLeft: number; fits: boolean }[]>`
      select out_key as key, out_hits as hits, out_ms_left as "msLeft", out_fits as fits
      from rate_limit_weigh(${keys}::text[], ${limits}::int[], ${extra}::int)`;
}

/** The live window of a key: its hits and the time until it resets; undefined when it has none. */
export async function windowHits(sql: Sql, key: string): Promise<{ hits: number; msLeft: number } | undefined> {
  const [row] = await sql<{ hits: number; msLeft: number }[]>`
      select hits, extract(epoch from reset_at - now())::float8 * 1000 as "msLeft"
      from rate_limit_hits where key = ${key} and reset_at > now()`;
  return row;
}

/** Takes back one hit of a key's live window (never below zero). */
export async function takeBackHit(sql: Sql, key: string): Promise<void> {
  await sql`
      update rate_limit_hits set hits = hits - 1 where key = ${key} and hits > 0 and reset_at > now()`;
}

/** Forgets a key's window. */
export async function resetWindow(sql: Sql, key: string): Promise<void> {
  await sql`delete from rate_limit_hits where key = ${key}`;
}

/** Deletes the windows that ended, then the slot rows with no live lease: the next hit of a key recreates its row. */
export async function purgeRateLimits(sql: Sql): Promise<void> {
  await sql`delete from rate_limit_hits where reset_at < now()`;
  await sql`
      delete from rate_limit_slots s
      where not exists (select 1 from jsonb_each(s.leases) e where e.value::float8 > extract(epoch from now()) * 1000)`;
}

/** Takes a slot of `key` under a lease of `leaseMs` when fewer than `limit` live leases hold it; true when taken. */
export async function acquireSlot(
  sql: Sql,
  slot: { key: string; leaseId: string; limit: number; leaseMs: number },
): Promise<boolean> {
  const { key, leaseId, limit, leaseMs } = slot;
  const rows = await sql<
    { ok: boolean }[]
  >`select rate_limit_acquire(${key}, ${leaseId}, ${limit}::int, ${leaseMs}::int) as ok`;
  return rows[0]?.ok === true;
}

/** Extends a live lease to `leaseMs` from now; a lease already released or expired stays gone. */
export async function renewSlot(sql: Sql, lease: { key: string; leaseId: string; leaseMs: number }): Promise<void> {
  const { key, leaseId, leaseMs } = lease;
  await sql`
        update rate_limit_slots
        set leases = jsonb_set(leases, array[${leaseId}::text], to_jsonb(extract(epoch from now()) * 1000 + ${leaseMs}::int))
        where key = ${key} and leases ? ${leaseId}::text`;
}

/**
 * Gives leases back, any number of them (of any keys) in one statement: `jsonb - text[]` drops several leases of a
 * key at once, and they are grouped by key so each row is updated once.
 */
export async function releaseSlots(sql: Sql, leases: { key: string; leaseId: string }[]): Promise<void> {
  await sql`
      update rate_limit_slots s set leases = s.leases - r.ids
      from (select k, array_agg(l) as ids from unnest(${leases.map((b) => b.key)}::text[], ${leases.map((b) => b.leaseId)}::text[]) as t(k, l) group by k) r
      where s.key = r.k`;
}
