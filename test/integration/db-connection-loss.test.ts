// A connection lost under a transaction (PostgreSQL restarting, a backend terminated) must fail that transaction
// with a catchable error and leave the process and its pool working. The postgres driver 3.4.9 instead threw an
// uncaught TypeError from a deferred write (porsager/postgres#1208) and the process died: the chaos suite saw a worker
// exit on every PostgreSQL restart. And once the lost connection reconnected, the first query on it failed with the
// old backend's 57P01 error. scripts/patch-postgres.cjs patches the driver; this holds both (the child runs several
// rounds, so the pool reconnects connections whose backend was terminated). And once the server is back, the pool
// must answer at once, not after the driver's reconnect backoff grew to 20 s (db/client.ts).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import path from 'node:path';
import { createSql } from '../../db/client';
import { selectOne, sleepOn } from '../helpers/db-inspect';
import { sleep } from '../helpers/wait';

describe('a lost database connection under a transaction', function () {
  this.timeout(60_000);

  it('rejects the transaction, keeps the process alive and the pool usable', async () => {
    const root = path.resolve(__dirname, '../..');
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', path.join(root, 'test/helpers/connection-loss-child.ts')],
      {
        cwd: root,
        env: process.env,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    const code = await new Promise<number | null>((r) => child.once('exit', r));
    assert.equal(code, 0, out);
    // 3 rounds in each order (the kill answered first, the connection loss seen first); see the child
    const rejected = out.match(/transaction rejected: (CONNECTION_CLOSED|57P01|CONNECTION_ENDED)\n/g) ?? [];
    assert.equal(rejected.length, 6, out);
    assert.equal((out.match(/pool answers: 1\n/g) ?? []).length, 6, out);
    assert.match(out, /pool ended/);
  });
});

describe('the pool after PostgreSQL comes back', function () {
  this.timeout(60_000);

  it('answers within about a second of the server being reachable again, however many attempts failed meanwhile', async () => {
    // A TCP proxy in front of the test database stands in for a restart: every connection cut, new ones refused for
    // 3 s while queries keep coming, then the server is back.
    const target = new URL(process.env.DATABASE_URL!);
    const sockets = new Set<Socket>();
    const proxy = createServer((client) => {
      const upstream = connect(Number(target.port), target.hostname);
      for (const s of [client, upstream]) {
        sockets.add(s);
        s.on('close', () => sockets.delete(s));
        s.on('error', () => {});
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', () => r()));
    const port = (proxy.address() as AddressInfo).port;
    const url = new URL(target.toString());
    url.port = String(port);
    const sql = createSql(url.toString(), { max: 4 });
    try {
      await Promise.all(Array.from({ length: 4 }, () => sleepOn(sql, 0.05)));
      // "restart": cut everything, refuse connections
      const closed = new Promise<void>((r) => proxy.close(() => r()));
      for (const s of sockets) s.destroy();
      await closed;
      // the load goes on: a query every 50 ms, each failing (or waiting for a connection) while the server is away
      let failed = 0;
      const during: Promise<unknown>[] = [];
      const loadEnds = Date.now() + 3000;
      while (Date.now() < loadEnds) {
        during.push(selectOne(sql).catch(() => failed++));
        await sleep(50);
      }
      await new Promise<void>((r) => proxy.listen(port, '127.0.0.1', () => r()));
      const t0 = Date.now();
      const one = await selectOne(sql);
      const ms = Date.now() - t0;
      assert.equal(one, 1);
      assert.ok(ms < 2500, `the first query after the server came back took ${ms} ms`);
      await Promise.all(during);
      assert.ok(failed > 0, 'queries failed while the server was down');
    } finally {
      await sql.end({ timeout: 1 });
      proxy.close();
      for (const s of sockets) s.destroy();
    }
  });
});
