// Ledger benchmark: the token balance read on every keyed request, on a ledger of 100,000 charged
// generations (a debit and an allocation each) across 1,000 accounts. Prints EXPLAIN ANALYZE's execution time and
// how many allocation rows the plan read for one account, and the p50/p99 of tokenBalance itself.
// Run: node --import tsx bench/ledger.ts [accounts=1000] [generations per account=100].
import { mkdtempSync, rmSync, chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createSql } from '../db/client';
import { tokenBalance } from '../db/ledger';
import { migrate } from '../db/migrate';
import { freePort, startEmbeddedPostgres } from '../scripts/dev-services';
import { machineInfo, stats } from './lib';

const ACCOUNTS = Number(process.argv[2] ?? 1000);
const PER_ACCOUNT = Number(process.argv[3] ?? 100);
const RESULTS = path.join(__dirname, 'results', 'ledger.json');
const say = (m: string) => process.stderr.write(`[bench:ledger] ${m}\n`);

async function main() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-ledger-'));
  chmodSync(dir, 0o755);
  let port = await freePort();
  while (port === 5432) port = await freePort();
  const pg = await startEmbeddedPostgres({ dir: path.join(dir, 'pg'), port, database: 'ledger', log: say });
  const sql = createSql(pg.url, { max: 2 });
  try {
    await migrate(sql);
    const t0 = Date.now();
    // Each account: a 10,000-token grant, then PER_ACCOUNT debits of 1 token, each allocated to that grant, as a
    // charged generation leaves them.
    await sql`
      with u as (
        insert into users (id, email, password_hash)
        select 'usr_ledger_' || i, 'ledger-' || i || '@example.test', 'x' from generate_series(1, ${ACCOUNTS}) i
        returning id
      ), g as (
        insert into token_grants (user_id, source, amount, reference)
        select id, 'payg_purchase', 10000, 'ledger:' || id from u returning id, user_id
      ), d as (
        insert into token_debits (user_id, amount, reference)
        select g.user_id, 1, 'gen:' || g.user_id || ':' || j from g, generate_series(1, ${PER_ACCOUNT}) j
        returning id, user_id
      )
      insert into token_allocations (debit_id, grant_id, amount)
      select d.id, g.id, 1 from d join g on g.user_id = d.user_id`;
    await sql`analyze`;
    const [row] = await sql<{ n: number }[]>`select count(*)::int as n from token_allocations`;
    const n = row?.n ?? 0;
    say(`built ${n} allocations over ${ACCOUNTS} accounts in ${((Date.now() - t0) / 1000).toFixed(1)} s`);

    const account = `usr_ledger_${Math.ceil(ACCOUNTS / 2)}`;
    const [plan] = await sql.unsafe(
      `explain (analyze, buffers, format json)
       select coalesce(sum(g.amount - coalesce(a.spent, 0)), 0)::int as balance
       from token_grants g
       left join lateral (select sum(al.amount)::int as spent from token_allocations al where al.grant_id = g.id) a on true
       where g.user_id = $1 and (g.expires_at is null or g.expires_at > now())`,
      [account],
    );
    type Node = {
      'Node Type': string;
      'Relation Name'?: string;
      'Index Name'?: string;
      'Actual Rows': number;
      'Actual Loops': number;
      Plans?: Node[];
    };
    const out = (plan!['QUERY PLAN'] as { Plan: Node; 'Execution Time': number }[])[0]!;
    const nodes: string[] = [];
    let allocationRows = 0;
    const walk = (x: Node) => {
      if (x['Relation Name'])
        nodes.push(`${x['Node Type']} on ${x['Relation Name']}${x['Index Name'] ? ` (${x['Index Name']})` : ''}`);
      if (x['Relation Name'] === 'token_allocations') allocationRows += x['Actual Rows'] * x['Actual Loops'];
      for (const c of x.Plans ?? []) walk(c);
    };
    walk(out.Plan);

    for (let i = 0; i < 50; i++) await tokenBalance(sql, account); // warm
    const ms: number[] = [];
    for (let i = 0; i < 1000; i++) {
      const t = performance.now();
      await tokenBalance(sql, `usr_ledger_${1 + (i % ACCOUNTS)}`);
      ms.push(performance.now() - t);
    }
    const result = {
      machine: machineInfo(),
      accounts: ACCOUNTS,
      allocations: n,
      explain: { executionMs: out['Execution Time'], allocationRowsRead: allocationRows, nodes },
      tokenBalance: stats(ms),
    };
    mkdirSync(path.dirname(RESULTS), { recursive: true });
    writeFileSync(RESULTS, JSON.stringify(result, null, 2));
    process.stdout.write(
      [
        `ledger: ${n} allocations over ${ACCOUNTS} accounts`,
        `EXPLAIN ANALYZE of one account's balance: ${out['Execution Time'].toFixed(3)} ms, ${allocationRows} allocation rows read`,
        `  ${nodes.join('; ')}`,
        `tokenBalance over 1000 calls (round trip included): p50 ${result.tokenBalance.p50Ms} ms, p99 ${result.tokenBalance.p99Ms} ms`,
        `written to ${path.relative(process.cwd(), RESULTS)}`,
        '',
      ].join('\n'),
    );
  } finally {
    await sql.end();
    await pg.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  process.stderr.write(`${err?.stack ?? err}\n`);
  process.exit(1);
});
