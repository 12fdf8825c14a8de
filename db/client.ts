import postgres from 'postgres';

export type Sql = postgres.Sql;
/** The pool or a transaction: what a query function that may run inside a caller's transaction takes. */
export type Tx = Sql | postgres.TransactionSql;

/** A JSON parameter of any value (postgres.js's sql.json types its argument narrower than what it serializes). */
export const jsonParam = (sql: Tx, v: unknown) => sql.json(v as Parameters<Tx['json']>[0]);

/**
 * Seconds a closed connection waits before connecting again, by the pool's count of failed connections since the
 * last success: 0.05, 0.1, 0.2 ... capped at 1 s. The driver's default grows as 3^n / 100 s up to 20 s, and the count
 * is shared by the pool, so a PostgreSQL restart of a few seconds (every pooled connection failing at once, each retry
 * failing again) left every query waiting up to 20 s after the server was back: the chaos suite measured 10-17 s
 * stalls (docs/chaos.md). A query that finds PostgreSQL down still fails at once (503); one second between attempts
 * per connection is gentle enough on a server coming back.
 */
export const reconnectDelaySeconds = (failures: number): number => Math.min(0.05 * 2 ** failures, 1);

/**
 * One pool per process. `onnotice` is silenced because migrations' "already exists" notices are noise. `onQuery`
 * sees the text of every statement sent (tests count round trips with it).
 */
export function createSql(url: string, opts: { max?: number; onQuery?: (query: string) => void } = {}): Sql {
  const onQuery = opts.onQuery;
  return postgres(url, {
    max: opts.max ?? 10,
    ...(onQuery ? { debug: (_connection: number, query: string) => onQuery(query) } : {}),
    idle_timeout: 30,
    connect_timeout: 10,
    backoff: reconnectDelaySeconds,
    onnotice: () => {},
    // int8 (count/sum results, bigserial ids) parsed as JS numbers: our values stay far below 2^53.
    types: { int8: { to: 20, from: [20], serialize: (x: number) => String(x), parse: (x: string) => Number(x) } },
    transform: { undefined: null },
  });
}

/** One round trip that touches no table: resolves when PostgreSQL answers (the readiness check). */
export async function pingDatabase(sql: Sql): Promise<void> {
  await sql`select 1`;
}
