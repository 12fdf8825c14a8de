// A connection lost under a transaction (PostgreSQL restarting, a backend terminated) must fail that transaction
// with a catchable error and leave the process and its pool working. The postgres driver 3.4.9 instead threw an
// uncaught TypeError from a deferred write (porsager/postgres#1208) and the process died: the chaos suite saw a worker
// exit on every PostgreSQL restart. scripts/patch-postgres.cjs patches the driver; this holds it.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';

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
    assert.match(out, /transaction rejected: (CONNECTION_CLOSED|57P01|CONNECTION_ENDED)/);
    assert.match(out, /pool answers: 1/);
    assert.match(out, /pool ended/);
  });
});
