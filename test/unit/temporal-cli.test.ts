// Which Temporal CLI binaries the stand-in accepts (scripts/stand-ins/temporal.ts): the SQLite driver version read
// from the module list Go writes into a binary, and the versions whose dev server survives a cancelled call.
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  TEMPORAL_SQLITE_DRIVER,
  resolveTemporalCli,
  sqliteDriverIsSafe,
  sqliteDriverOf,
} from '../../scripts/stand-ins/temporal';

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

  describe('which CLI is used', () => {
    const saved = { PATH: process.env.PATH, XDG_CACHE_HOME: process.env.XDG_CACHE_HOME };
    let onPath: string;
    let pinned: string;
    /** A stand-in `temporal`: answers --version, and carries the module line Go writes for its SQLite driver. */
    const fakeCli = (file: string, driver: string) => {
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, `#!/bin/sh\necho "temporal version 1.5.1"\n# dep\tmodernc.org/sqlite\t${driver}\th1:x=\n`);
      chmodSync(file, 0o755);
      return file;
    };
    beforeEach(() => {
      const bin = path.join(dir, 'bin');
      rmSync(bin, { recursive: true, force: true });
      onPath = path.join(bin, 'temporal');
      process.env.PATH = `${bin}${path.delimiter}${saved.PATH}`;
      // the cache holds our build with the pinned driver: nothing is built
      process.env.XDG_CACHE_HOME = path.join(dir, 'cache');
      pinned = fakeCli(
        path.join(
          dir,
          'cache',
          'apparel-mockup',
          `temporal-1.5.1-sqlite-${TEMPORAL_SQLITE_DRIVER.slice(1)}`,
          'temporal',
        ),
        TEMPORAL_SQLITE_DRIVER,
      );
    });
    afterEach(() => {
      process.env.PATH = saved.PATH;
      if (saved.XDG_CACHE_HOME === undefined) delete process.env.XDG_CACHE_HOME;
      else process.env.XDG_CACHE_HOME = saved.XDG_CACHE_HOME;
    });

    it('passes over a `temporal` on PATH whose driver has the interrupt bug, for the build with the pinned one', async () => {
      fakeCli(onPath, 'v1.34.1');
      const said: string[] = [];
      assert.equal(await resolveTemporalCli({ log: (m) => said.push(m) }), pinned);
      assert.ok(
        said.some((m) => m.includes(`not using ${onPath}`)),
        said.join('\n'),
      );
    });

    it('uses a `temporal` on PATH whose driver is fixed', async () => {
      fakeCli(onPath, 'v1.62.0');
      assert.equal(await resolveTemporalCli({ log: () => {} }), onPath);
    });

    it('uses TEMPORAL_CLI_PATH as given, warning when its driver has the bug', async () => {
      const given = fakeCli(path.join(dir, 'given', 'temporal'), 'v1.34.1');
      const said: string[] = [];
      assert.equal(await resolveTemporalCli({ cliPath: given, log: (m) => said.push(m) }), given);
      assert.ok(
        said.some((m) => m.startsWith(`warning: ${given} is built with modernc.org/sqlite v1.34.1`)),
        said.join('\n'),
      );
    });
  });
});
