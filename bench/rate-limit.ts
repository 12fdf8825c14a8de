// What the Part A limiter costs per request under load.
//
//   node --import tsx bench/rate-limit.ts [--seconds 5] [--clients 1,10,50] [--keys per-client|one-account|one]
//                                         [--scenarios baseline,limiter,...] [--rounds 1]
//
// Starts a throw-away embedded PostgreSQL (or uses DATABASE_URL, creating and dropping a scratch database),
// migrates it, creates API keys directly in SQL, and serves GET /ping from in-process Express apps that differ
// only in the middleware in front of the handler:
//
//   baseline         a stub that sets req.apiKeyId (no database work at all)
//   limiter          the stub + the production limiter chain for 'garments' (key and account concurrency leases,
//                    6 windows: endpoint minute, minute and hour, per key and per account)
//   limiter-memslots the stub + the same windows, concurrency slots counted in process (no lease queries)
//   auth             requireApiKey only (what every keyed route paid before the limiter)
//   auth+limiter     requireApiKey + the limiter chain: what a keyed Part A request pays now
//
// N clients each send requests back to back over keep-alive connections for the given time. Limits are set far
// above the load so nothing is refused: this measures the cost of counting, not of refusing. Clients and server
// share one process (and the machine with PostgreSQL), so compare rows with each other, not with production.
// "node µs/req" is this process's CPU time per request: its difference between rows is what the middleware
// costs the API process itself, apart from the database's share.
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import express, { type RequestHandler } from 'express';
import postgres from 'postgres';
import { generateKey, hashKey, requireApiKey } from '../api/auth/api-keys';
import type { AppDeps } from '../api/context';
import { errorHandler } from '../api/errors';
import { RateLimits } from '../api/middleware/rate-limit';
import { MemorySlots } from '../api/middleware/rate-limit/memory';
import { createSql, type Sql } from '../db/client';
import { migrate } from '../db/migrate';
import { loadConfig } from '../lib/config';
import { keyId, userId } from '../lib/ids';
import { createLogger } from '../lib/log';
import { freePort, startEmbeddedPostgres, type RunningService } from '../scripts/dev-services';

const arg = (name: string, def: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1]! : def;
};
const SECONDS = Number(arg('seconds', '5'));
const CLIENTS = arg('clients', '1,10,50').split(',').map(Number);
// per-client: a key and an account per client; one-account: a key per client, all of one account; one: one key.
const KEYS = arg('keys', 'per-client') as 'per-client' | 'one-account' | 'one';
const ONLY = arg('scenarios', '').split(',').filter(Boolean);
// Rounds repeat every row and keep each row's median-throughput run: the machine may be shared and noisy.
const ROUNDS = Number(arg('rounds', '1'));
const say = (m: string) => process.stderr.write(`[bench] ${m}\n`);

interface Result {
  scenario: string;
  clients: number;
  rps: number;
  p50: number;
  p95: number;
  p99: number;
  /** CPU time of this Node process (clients and server) per request, in microseconds. */
  cpuUs: number;
  errors: number;
}

async function database(): Promise<{ url: string; stop: () => Promise<void> }> {
  if (process.env.DATABASE_URL) {
    const name = `bench_rate_limit_${process.pid}`;
    const admin = postgres(process.env.DATABASE_URL, { max: 1, onnotice: () => {} });
    await admin.unsafe(`create database ${name}`);
    const url = new URL(process.env.DATABASE_URL);
    url.pathname = `/${name}`;
    return {
      url: url.toString(),
      stop: async () => {
        await admin.unsafe(`drop database if exists ${name} with (force)`);
        await admin.end();
      },
    };
  }
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-rl-'));
  // mkdtemp makes the folder private; as root the embedded server runs as its own `postgres` user.
  chmodSync(dir, 0o755);
  let port = await freePort();
  while (port === 5432) port = await freePort();
  const pg: RunningService & { url: string } = await startEmbeddedPostgres({
    dir: path.join(dir, 'pg'),
    port,
    database: 'bench',
    log: say,
  });
  return {
    url: pg.url,
    stop: async () => {
      await pg.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function createKeys(
  sql: Sql,
  n: number,
  accounts: 'per-key' | 'one',
): Promise<{ key: string; id: string; userId: string }[]> {
  const keys = [];
  let uid = '';
  for (let i = 0; i < n; i++) {
    if (i === 0 || accounts === 'per-key') {
      uid = userId();
      await sql`insert into users (id, email, password_hash) values (${uid}, ${`${uid}@bench.test`}, 'x')`;
    }
    const key = generateKey('amk');
    const id = keyId();
    await sql`insert into api_keys (id, user_id, name, key_hash, last_four) values (${id}, ${uid}, 'bench', ${hashKey(key)}, ${key.slice(-4)})`;
    keys.push({ key, id, userId: uid });
  }
  return keys;
}

async function serve(chain: RequestHandler[]): Promise<{ port: number; close: () => Promise<void> }> {
  const app = express();
  app.set('etag', false);
  app.get('/ping', ...chain, (_req, res) => {
    res.json({ ok: true });
  });
  app.use(errorHandler);
  const server: http.Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  server.keepAliveTimeout = 60_000;
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

function request(agent: http.Agent, port: number, key: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { agent, host: '127.0.0.1', port, path: '/ping', headers: { authorization: `Bearer ${key}` } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

async function load(scenario: string, port: number, clients: number, keys: { key: string }[]): Promise<Result> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: clients });
  const latencies: number[] = [];
  let errors = 0;
  // Warm-up: connections, JIT, the first upsert of every key.
  await Promise.all(Array.from({ length: clients }, (_, c) => request(agent, port, keys[c % keys.length]!.key)));
  const cpu0 = process.cpuUsage();
  const until = performance.now() + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      const key = keys[c % keys.length]!.key;
      while (performance.now() < until) {
        const t = performance.now();
        const status = await request(agent, port, key);
        latencies.push(performance.now() - t);
        if (status !== 200) errors++;
      }
    }),
  );
  const cpu = process.cpuUsage(cpu0);
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const q = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? NaN;
  const cpuUs = (cpu.user + cpu.system) / latencies.length;
  return { scenario, clients, rps: latencies.length / SECONDS, p50: q(0.5), p95: q(0.95), p99: q(0.99), cpuUs, errors };
}

async function main() {
  const db = await database();
  const sql = createSql(db.url, { max: 10 });
  try {
    await migrate(sql);
    const maxClients = Math.max(...CLIENTS);
    const keys = await createKeys(sql, KEYS === 'one' ? 1 : maxClients, KEYS === 'per-client' ? 'per-key' : 'one');
    const big = '1000000000';
    const config = loadConfig(
      { ...process.env, NODE_ENV: 'test', APP_SECRET: 'b'.repeat(32), DATABASE_URL: db.url },
      {
        RATE_LIMIT_PER_MINUTE: big,
        RATE_LIMIT_PER_HOUR: big,
        RATE_LIMIT_CONCURRENCY: big,
        RATE_LIMIT_GARMENTS_PER_MINUTE: big,
        RATE_LIMIT_ACCOUNT_PER_MINUTE: big,
        RATE_LIMIT_ACCOUNT_PER_HOUR: big,
        RATE_LIMIT_ACCOUNT_CONCURRENCY: big,
        RATE_LIMIT_ACCOUNT_GARMENTS_PER_MINUTE: big,
      },
    );
    const log = createLogger({ level: 'warn', write: (l) => process.stderr.write(l + '\n') });
    const deps = { config, sql, log } as unknown as AppDeps;
    // Resolves the key id without the database, so the limiter rows can be compared with a no-op baseline.
    const byKey = new Map(keys.map((k) => [k.key, k]));
    const stubKey: RequestHandler = (req, _res, next) => {
      const k = byKey.get((req.get('authorization') ?? '').slice(7));
      req.apiKeyId = k?.id;
      if (k) req.user = { id: k.userId, email: `${k.userId}@bench.test`, plan: 'free', createdAt: new Date() };
      next();
    };
    const scenarios: [string, () => RequestHandler[]][] = [
      ['baseline', () => [stubKey]],
      ['limiter', () => [stubKey, ...new RateLimits(deps).chain('garments')]],
      ['limiter-memslots', () => [stubKey, ...new RateLimits(deps, { slots: new MemorySlots() }).chain('garments')]],
      ['auth', () => [requireApiKey(deps)]],
      ['auth+limiter', () => [requireApiKey(deps), ...new RateLimits(deps).chain('garments')]],
    ];
    const results: Result[] = [];
    for (const clients of CLIENTS) {
      const runs = new Map<string, Result[]>();
      for (let round = 0; round < ROUNDS; round++) {
        for (const [name, chain] of scenarios) {
          if (ONLY.length > 0 && !ONLY.includes(name)) continue;
          const server = await serve(chain());
          const r = await load(name, server.port, clients, keys);
          await server.close();
          runs.set(name, [...(runs.get(name) ?? []), r]);
          say(`${name} x${clients} round ${round + 1}: ${r.rps.toFixed(0)} req/s, p50 ${r.p50.toFixed(2)} ms`);
        }
      }
      for (const rs of runs.values()) results.push(rs.sort((a, b) => a.rps - b.rps)[Math.floor(rs.length / 2)]!);
    }
    print(results);
  } finally {
    await sql.end({ timeout: 5 });
    await db.stop();
  }
}

function print(results: Result[]) {
  const base = new Map<number, Result>();
  const auth = new Map<number, Result>();
  for (const r of results) {
    if (r.scenario === 'baseline') base.set(r.clients, r);
    if (r.scenario === 'auth') auth.set(r.clients, r);
  }
  const f = (n: number) => n.toFixed(2).padStart(7);
  const lines = [
    `rate limiter cost: ${SECONDS} s per run, median of ${ROUNDS} round(s), keys=${KEYS}, node ${process.version}, ${os.cpus().length} cpus, load average ${os.loadavg()[0]!.toFixed(1)}`,
    `${'scenario'.padEnd(17)} ${'clients'.padStart(7)} ${'req/s'.padStart(8)} ${'p50 ms'.padStart(7)} ${'p95 ms'.padStart(7)} ${'p99 ms'.padStart(7)} ${'+p50 ms'.padStart(8)} ${'node µs/req'.padStart(11)} errors`,
  ];
  for (const r of results) {
    // The added median latency against the row without the limiter (baseline, or auth for auth+limiter).
    const ref =
      r.scenario === 'auth+limiter'
        ? auth.get(r.clients)
        : r.scenario.startsWith('limiter')
          ? base.get(r.clients)
          : undefined;
    const delta = ref ? f(r.p50 - ref.p50) : '      -';
    lines.push(
      `${r.scenario.padEnd(17)} ${String(r.clients).padStart(7)} ${r.rps.toFixed(0).padStart(8)} ${f(r.p50)} ${f(r.p95)} ${f(r.p99)} ${delta.padStart(8)} ${r.cpuUs.toFixed(0).padStart(11)} ${r.errors}`,
    );
  }
  process.stdout.write(lines.join('\n') + '\n');
}

main().catch((err) => {
  say(`failed: ${err?.stack ?? err}`);
  process.exit(1);
});
