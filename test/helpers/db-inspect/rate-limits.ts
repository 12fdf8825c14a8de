// The rate limiter's windows and concurrency leases.
import { sql } from './sql';

/** The hits counted in a rate-limit window (live or ended), or undefined when the key has no window. */
export async function rateLimitHits(key: string): Promise<number | undefined> {
  const [row] = await sql()<{ hits: number }[]>`select hits from rate_limit_hits where key = ${key}`;
  return row?.hits;
}

/** Ends rate-limit windows now, instead of waiting for them to run out. */
export async function endRateLimitWindows(...keys: string[]): Promise<void> {
  await sql()`update rate_limit_hits set reset_at = now() where key in ${sql()(keys)}`;
}

/** Every lease recorded on a concurrency key, live or expired. */
export async function leaseCount(key: string): Promise<number> {
  const [row] = await sql()<{ n: number }[]>`
    select count(*)::int as n from rate_limit_slots s cross join jsonb_object_keys(s.leases) where s.key = ${key}`;
  return row!.n;
}

/** The latest lease expiry on a concurrency key (epoch ms), or null when it holds none. */
export async function latestLeaseExpiry(key: string): Promise<number | null> {
  const [row] = await sql()<{ e: number | null }[]>`
    select max(e.value::float8) as e from rate_limit_slots s cross join jsonb_each(s.leases) e where s.key = ${key}`;
  return row?.e ?? null;
}

/** The database's clock (epoch ms): leases are stamped with it. */
export async function databaseNowMs(): Promise<number> {
  const [row] = await sql()<{ now: number }[]>`select extract(epoch from now())::float8 * 1000 as now`;
  return row!.now;
}

/** Stores rate-limit windows: hits, and the end of the window `endsInMs` from now (negative: ended). */
export async function insertRateLimitWindows(windows: { key: string; hits: number; endsInMs: number }[]) {
  for (const w of windows)
    await sql()`insert into rate_limit_hits (key, hits, reset_at)
      values (${w.key}, ${w.hits}, now() + ${w.endsInMs}::float8 * interval '1 millisecond')`;
}

/** Stores a concurrency key's leases as instances leave them: lease id -> expiry `ms` from now (negative: expired). */
export async function insertLeases(key: string, leases: Record<string, number>): Promise<void> {
  await sql()`insert into rate_limit_slots (key, leases)
    select ${key}, coalesce(jsonb_object_agg(l.key, extract(epoch from now()) * 1000 + l.value::float8), '{}')
    from jsonb_each_text(${JSON.stringify(leases)}::text::jsonb) l`;
}

/** The keys of the stored windows and slot rows starting with `prefix`, in order. */
export async function rateLimitKeys(prefix: string): Promise<{ windows: string[]; slots: string[] }> {
  const windows = await sql()<{ key: string }[]>`
    select key from rate_limit_hits where key like ${prefix + '%'} order by key`;
  const slots = await sql()<{ key: string }[]>`
    select key from rate_limit_slots where key like ${prefix + '%'} order by key`;
  return { windows: windows.map((r) => r.key), slots: slots.map((r) => r.key) };
}
