// Child process of test/integration/db-connection-loss.test.ts (a crash must not take the test runner down): a
// transaction whose backend is terminated while a query is in flight, as a PostgreSQL restart does to every
// connection. Prints what happened; exits 0 when the process survived it.
//
// Each round is run in both orders: the terminating query answers first, or (the killer sleeping after the
// terminate) the driver sees the lost connection first and fails the transaction while this process still awaits
// the killer. The second order once happened only by chance and crashed the child, because it attached the
// transaction's rejection handler after awaiting the killer: an unhandled rejection. Later rounds reconnect pool
// connections whose backend was terminated: unpatched, the driver failed their first query with the old 57P01
// (scripts/patch-postgres.cjs, docs/chaos.md).
import { createSql, type Sql } from '../../db/client';
import { sleep } from './wait';

const ROUNDS = 3;

async function round(sql: Sql, killer: Sql, killerHoldsOn: boolean): Promise<string> {
  let pid: number | null = null;
  const tx = sql.begin(async (t) => {
    const [row] = await t<{ pid: number }[]>`select pg_backend_pid() as pid`;
    pid = row!.pid;
    await t`select pg_sleep(3)`;
  });
  // handled at once: the transaction can fail before the killer's answer arrives
  const outcome = tx.then(
    () => null,
    (e: { code?: string; message?: string }) => e,
  );
  while (pid === null) await sleep(20);
  await killer`select pg_terminate_backend(${pid}), pg_sleep(${killerHoldsOn ? 0.5 : 0})`;
  const err = await outcome;
  return err?.code ?? err?.message ?? 'no';
}

async function main() {
  const url = process.env.DATABASE_URL!;
  const sql = createSql(url, { max: 2 });
  const killer = createSql(url, { max: 1 });
  for (let i = 0; i < ROUNDS; i++) {
    for (const killerHoldsOn of [false, true]) {
      const rejected = await round(sql, killer, killerHoldsOn);
      const order = killerHoldsOn ? 'loss seen first' : 'kill answered first';
      console.log(`round ${i + 1} (${order}): transaction rejected: ${rejected}`);
      await sleep(200); // the driver's deferred writes have run by now
      const [one] = await sql<{ one: number }[]>`select 1 as one`;
      console.log(`pool answers: ${one!.one}`);
    }
  }
  await Promise.all([sql.end(), killer.end()]);
  console.log('pool ended');
}

main().catch((e) => {
  console.log(`failed: ${e}`);
  process.exit(2);
});
