// Child process of test/integration/db-connection-loss.test.ts (a crash must not take the test runner down): a
// transaction whose backend is terminated while a query is in flight, as a PostgreSQL restart does to every
// connection. Prints what happened; exits 0 when the process survived it.
import { createSql } from '../../db/client';

async function main() {
  const url = process.env.DATABASE_URL!;
  const sql = createSql(url, { max: 2 });
  const killer = createSql(url, { max: 1 });
  let pid: number | null = null;
  const tx = sql.begin(async (t) => {
    const [row] = await t<{ pid: number }[]>`select pg_backend_pid() as pid`;
    pid = row!.pid;
    await t`select pg_sleep(3)`;
  });
  while (pid === null) await new Promise((r) => setTimeout(r, 20));
  await killer`select pg_terminate_backend(${pid})`;
  const err = await tx.then(
    () => null,
    (e: { code?: string; message?: string }) => e,
  );
  console.log(`transaction rejected: ${err?.code ?? err?.message ?? 'no'}`);
  await new Promise((r) => setTimeout(r, 200)); // the driver's deferred writes have run by now
  const [one] = await sql<{ one: number }[]>`select 1 as one`;
  console.log(`pool answers: ${one!.one}`);
  await Promise.all([sql.end(), killer.end()]);
  console.log('pool ended');
}

main().catch((e) => {
  console.log(`failed: ${e}`);
  process.exit(2);
});
