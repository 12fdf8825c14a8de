// Which Temporal CLI binaries the stand-in accepts (scripts/stand-ins/temporal.ts): the SQLite driver version read
// from the module list Go writes into a binary, and the versions whose dev server survives a cancelled call.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TEMPORAL_SQLITE_DRIVER, sqliteDriverIsSafe, sqliteDriverOf } from '../../scripts/stand-ins/temporal';

describe('Temporal CLI SQLite driver', () => {
  let dir: string;
  before(() => (dir = mkdtempSync(path.join(os.tmpdir(), 'temporal-cli-'))));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('accepts v1.51.0 and later (rows closed on cancel, no stray interrupt, in-memory connection kept)', () => {
    for (const v of ['v1.51.0', 'v1.59.0', 'v1.62.0', 'v2.0.0', TEMPORAL_SQLITE_DRIVER])
      assert.ok(sqliteDriverIsSafe(v), v);
    for (const v of ['v1.34.1', 'v1.42.2', 'v1.50.1', 'v0.99.0', 'garbage', undefined])
      assert.equal(sqliteDriverIsSafe(v), false, String(v));
  });

  it('reads the driver version from a binary, also across the 8 MiB read boundary', async () => {
    const line = Buffer.from('dep\tmodernc.org/sqlite\tv1.34.1\th1:abc=\n');
    for (const offset of [100, (8 << 20) - 20, (8 << 20) - 2, 8 << 20]) {
      const bin = Buffer.alloc((9 << 20) + 100, 0x41);
      line.copy(bin, offset);
      const file = path.join(dir, `bin-${offset}`);
      writeFileSync(file, bin);
      assert.equal(await sqliteDriverOf(file), 'v1.34.1', `at ${offset}`);
    }
    const none = path.join(dir, 'none');
    writeFileSync(none, Buffer.alloc(1000, 0x41));
    assert.equal(await sqliteDriverOf(none), undefined);
  });
});
