import postgres from 'postgres';

export type Sql = postgres.Sql;

/** One pool per process. `onnotice` is silenced because migrations' "already exists" notices are noise. */
export function createSql(url: string, opts: { max?: number } = {}): Sql {
  return postgres(url, {
    max: opts.max ?? 10,
    idle_timeout: 30,
    connect_timeout: 10,
    onnotice: () => {},
    // int8 (count/sum results, bigserial ids) parsed as JS numbers: our values stay far below 2^53.
    types: { int8: { to: 20, from: [20], serialize: (x: number) => String(x), parse: (x: string) => Number(x) } },
    transform: { undefined: null },
  });
}
