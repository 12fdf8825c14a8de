// The "row insert + debit called alone" of bench/run.ts's micro phase (insertAndChargeGenerations, one generation)
// in isolation, for one or more checkouts side by side: one embedded PostgreSQL, one database per checkout migrated
// by that checkout's db/migrate, a bench-like account (Free plan, a 50-token grant that expires and 100,000 bought
// tokens, PRIOR generations already charged), then that checkout's insertAndChargeGenerations called one at a time,
// the checkouts taking turns (so they share the machine's load). Two ways:
// - steady: ROUNDS x CALLS calls on one connection that has run it many times (after a warm-up);
// - bench-like (BENCH_LIKE runs): bench/run.ts's terms, a pool with CONNS connections open and idle (postgres.js hands
//   an idle pool's connections out in turn, so sequential calls go round them: each connection runs the call for
//   its first, second, third time), 10 calls, the median of the last 7; and each call's place in its run.
// Per call: wall time, CPU of this process, CPU of the server's processes (/proc/<pid>/schedstat, so meaningful under
// load), socket writes and reads (round trips), statements sent; the server's time per function
// (pg_stat_user_functions, steady calls). A checkout may be followed by :file.sql, SQL run on its database after the
// migrations (to try a variant of the schema).
// Run: node --import tsx bench/debit-call.ts [checkout[:file.sql]...] (default: this checkout); env ROUNDS (10),
// CALLS (40), PRIOR (300), BENCH_LIKE (40), CONNS (4), SYNC_COMMIT (the databases' synchronous_commit; off leaves out
// the WAL flush of each commit, which is the same for every checkout and the noisiest part on a busy disk).
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { freePort, startEmbeddedPostgres } from '../scripts/dev-services';
import { sleep } from '../test/helpers/wait';
import { pct, round } from './lib';

const ROUNDS = Number(process.env.ROUNDS ?? 10);
const CALLS = Number(process.env.CALLS ?? 40);
const PRIOR = Number(process.env.PRIOR ?? 300);
const BENCH_LIKE = Number(process.env.BENCH_LIKE ?? 40);
const CONNS = Number(process.env.CONNS ?? 4);
const WARM = 10;
const say = (m: string) => process.stderr.write(`[bench:debit-call] ${m}\n`);

type Sql = postgres.Sql;
type Call = (sql: Sql) => Promise<unknown>;
/** one call's measures, by measure name */
type Sample = Record<'wallMs' | 'clientCpuMs' | 'serverCpuMs' | 'writes' | 'reads', number>;

interface Checkout {
  name: string;
  url: string;
  createSql: (url: string, o: { max?: number; onQuery?: (q: string) => void }) => Sql;
  call: Call;
  steady: Sample[];
  statements: number;
  /** bench-like runs: the samples by the call's place in the run */
  byPlace: Sample[][];
  runMedians: number[];
  functions: { funcname: string; calls: number; self_time: number; total_time: number }[];
}

// Round trips: socket writes and 'data' events (all of this process's PostgreSQL traffic, one call at a time).
let writes = 0;
let reads = 0;
const write = net.Socket.prototype.write;
net.Socket.prototype.write = function (this: net.Socket, ...args: unknown[]) {
  writes++;
  return (write as (...a: unknown[]) => boolean).apply(this, args);
} as typeof write;
const emit = net.Socket.prototype.emit;
net.Socket.prototype.emit = function (this: net.Socket, ev: string | symbol, ...args: unknown[]) {
  if (ev === 'data') reads++;
  return (emit as (...a: unknown[]) => boolean).call(this, ev, ...args);
} as typeof emit;

/** Nanoseconds on a CPU (/proc/<pid>/schedstat) of the server's processes alive now: the postmaster's children. */
function serverCpuNs(postmaster: number): number {
  let ns = 0;
  for (const p of readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    try {
      const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) !== postmaster) continue;
      ns += Number(readFileSync(`/proc/${p}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      continue; // gone meanwhile
    }
  }
  return ns;
}

async function measure(call: Call, sql: Sql, postmaster: number): Promise<Sample> {
  const s0 = serverCpuNs(postmaster);
  const [w, r] = [writes, reads];
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await call(sql);
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const [dw, dr] = [writes - w, reads - r];
  return {
    wallMs,
    clientCpuMs: (cpu.user + cpu.system) / 1000,
    serverCpuMs: (serverCpuNs(postmaster) - s0) / 1e6,
    writes: dw,
    reads: dr,
  };
}

async function setUp(root: string, name: string, url: string, index: number): Promise<Checkout> {
  const { createSql } = (await import(path.join(root, 'db/client.ts'))) as typeof import('../db/client');
  const { migrate } = (await import(path.join(root, 'db/migrate.ts'))) as typeof import('../db/migrate');
  // db/generation-inserts.ts since the insert left db/generations.ts (3b18c9d has it there)
  const inserts = (await import(path.join(root, 'db/generation-inserts.ts')).catch(
    () => import(path.join(root, 'db/generations.ts')),
  )) as { insertAndChargeGenerations: (sql: Sql, o: unknown) => Promise<{ ok: boolean }> };
  const co: Checkout = {
    name,
    url,
    createSql: createSql as unknown as Checkout['createSql'],
    call: async () => {},
    steady: [],
    statements: 0,
    byPlace: [],
    runMedians: [],
    functions: [],
  };
  const sql = co.createSql(url, { max: 1 });
  try {
    await migrate(sql as never);
    const userId = `usr_debit_call_${index}`;
    await sql`insert into users (id, email, password_hash) values (${userId}, ${`${userId}@example.test`}, 'x')`;
    await sql`insert into garments (id, name, brand, category, base_price, sizes, silhouette, sort_order)
              values ('g-debit-call', 'Tee', 'Bench', 'tees', 10, '{M}', 'tee', 1)`;
    await sql`insert into token_grants (user_id, source, amount, expires_at, reference)
              values (${userId}, 'free', 50, now() + interval '30 days', ${`free:${userId}`}),
                     (${userId}, 'payg_purchase', 100000, null, ${`bench:${userId}`})`;
    let n = 0;
    const designUrl = 'https://example.test/bench-micro.png';
    const blankKey = 'url:https://example.test/bench-micro-blank.png';
    const placement = { x: 50, y: 35, scale: 0.8, rotation: 0 };
    // bench/run.ts's row, in both shapes: 3b18c9d's BatchGenerationRow and NewGeneration with its job (each
    // checkout reads the fields it knows)
    co.call = async (s: Sql) => {
      const out = await inserts.insertAndChargeGenerations(s, {
        userId,
        apiKeyId: null,
        batchId: null,
        rows: [
          {
            id: `gen_dc_${index}_${n++}`,
            garmentId: 'g-debit-call',
            color: 'micro',
            zone: 'front',
            garmentImageUrl: 'https://example.test/bench-micro-blank.png',
            webhookUrl: null,
            placement,
            applyTexture: true,
            designUrl,
            blankKey,
            job: {
              userId,
              designUrl,
              blankKey,
              zone: { x: 0.3, y: 0.2, width: 0.4, height: 0.5 },
              placement,
              applyTexture: true,
            },
          },
        ],
      });
      if (!out.ok) throw new Error('the account ran out of tokens');
    };
    for (let i = 0; i < PRIOR; i++) await co.call(sql);
    await sql`analyze`;
  } finally {
    await sql.end();
  }
  return co;
}

const stat = (xs: number[], p = 0.5) =>
  round(
    pct(
      [...xs].sort((a, b) => a - b),
      p,
    ),
    3,
  );
const of = (samples: Sample[], k: keyof Sample) => samples.map((s) => s[k]);

async function main() {
  const args = process.argv.length > 2 ? process.argv.slice(2) : [path.join(__dirname, '..')];
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-debit-call-'));
  chmodSync(dir, 0o755);
  let port = await freePort();
  while (port === 5432) port = await freePort();
  const pgDir = path.join(dir, 'pg');
  const pg = await startEmbeddedPostgres({ dir: pgDir, port, database: 'postgres', log: say });
  const postmaster = Number(readFileSync(path.join(pgDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const admin = postgres(pg.url, { max: 1, onnotice: () => {} });
  const cos: Checkout[] = [];
  const load0 = os.loadavg();
  try {
    for (const [i, arg] of args.entries()) {
      const [root, extra] = arg.split(':');
      const db = `debit_call_${i}`;
      await admin.unsafe(`create database ${db}`);
      await admin.unsafe(`alter database ${db} set track_functions = 'pl'`);
      if (process.env.SYNC_COMMIT)
        await admin.unsafe(`alter database ${db} set synchronous_commit = ${process.env.SYNC_COMMIT}`);
      const url = pg.url.replace(/\/[^/?]*(\?|$)/, `/${db}$1`);
      const co = await setUp(path.resolve(root!), arg, url, i);
      if (extra) {
        const s = postgres(url, { max: 1, onnotice: () => {} });
        await s.unsafe(readFileSync(extra, 'utf8')).finally(() => s.end());
      }
      cos.push(co);
      say(`${arg}: migrated, ${PRIOR} generations charged`);
    }

    // steady: one connection per checkout, warmed up
    const pools = cos.map((co) => co.createSql(co.url, { max: 1, onQuery: () => co.statements++ }));
    for (const [i, co] of cos.entries()) for (let k = 0; k < WARM; k++) await co.call(pools[i]!);
    await sleep(1500); // a backend's function counters reach the statistics at most once a second
    for (const pool of pools) await pool`select pg_stat_reset()`;
    for (const co of cos) co.statements = 0;
    for (let r = 0; r < ROUNDS; r++)
      for (const [i, co] of cos.entries())
        for (let k = 0; k < CALLS; k++) co.steady.push(await measure(co.call, pools[i]!, postmaster));
    await sleep(1500);
    for (const [i, co] of cos.entries()) {
      co.functions = await pools[i]!<Checkout['functions']>`
        select funcname, calls::int, self_time, total_time from pg_stat_user_functions order by total_time desc`;
      await pools[i]!.end();
    }

    // bench-like: a pool with CONNS idle connections that have not run the call, 10 calls, median of the last 7
    for (let r = 0; r < BENCH_LIKE; r++) {
      for (const co of cos) {
        const pool = co.createSql(co.url, { max: CONNS });
        await Promise.all(Array.from({ length: CONNS }, () => pool`select pg_sleep(0.01)`));
        const run: Sample[] = [];
        for (let k = 0; k < 10; k++) run.push(await measure(co.call, pool, postmaster));
        run.forEach((s, k) => (co.byPlace[k] ??= []).push(s));
        co.runMedians.push(stat(of(run.slice(3), 'wallMs')));
        await pool.end();
      }
    }

    const load1 = os.loadavg();
    const byPlace = (co: Checkout, k: keyof Sample) => co.byPlace.map((xs) => stat(of(xs, k))).join(' ');
    for (const co of cos) {
      const n = co.steady.length;
      process.stdout.write(
        [
          `${co.name}`,
          `  steady, ${n} calls on one connection: wall median ${stat(of(co.steady, 'wallMs'))} ms, p90 ${stat(of(co.steady, 'wallMs'), 0.9)} ms; CPU median: server ${stat(of(co.steady, 'serverCpuMs'))} ms, client ${stat(of(co.steady, 'clientCpuMs'))} ms`,
          `  per call: ${round(co.statements / n, 2)} statements, socket writes ${stat(of(co.steady, 'writes'))}, reads ${stat(of(co.steady, 'reads'))} (medians)`,
          ...co.functions.map(
            (f) =>
              `  server time in ${f.funcname}: ${round(f.total_time / f.calls, 3)} ms per call (${round(f.self_time / f.calls, 3)} ms its own; ${f.calls} calls)`,
          ),
          ...(co.runMedians.length
            ? [
                `  bench-like, ${co.runMedians.length} runs (${CONNS} connections, median of calls 4-10): median of the runs ${stat(co.runMedians)} ms, p90 ${stat(co.runMedians, 0.9)} ms`,
                `    by the call's place in its run, medians (ms): wall ${byPlace(co, 'wallMs')}`,
                `      server CPU ${byPlace(co, 'serverCpuMs')}`,
                `      client CPU ${byPlace(co, 'clientCpuMs')}`,
              ]
            : []),
          '',
        ].join('\n'),
      );
    }
    const la = (l: number[]) => l.map((x) => x.toFixed(2)).join(' ');
    process.stdout.write(`load average: ${la(load0)} at the start, ${la(load1)} at the end\n`);
  } finally {
    await admin.end();
    await pg.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  process.stderr.write(`${err?.stack ?? err}\n`);
  process.exit(1);
});
