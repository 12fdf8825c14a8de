// The command line of the Temporal dev server that npm start, the tests and the benchmarks run
// (scripts/stand-ins/temporal.ts): its dynamic configuration is most of what lets Stripe events be applied at ~60-70/s
// instead of ~30/s on 2 cores (docs/payments.md).
import assert from 'node:assert/strict';
import { temporalDevArgs } from '../../scripts/dev-services';

/** `--dynamic-config-value KEY=VALUE` pairs of a command line, as a map. */
function dynamicConfig(args: string[]): Map<string, string> {
  const out = new Map<string, string>();
  args.forEach((a, i) => {
    if (a !== '--dynamic-config-value') return;
    const [key, value] = args[i + 1]!.split('=');
    out.set(key!, value!);
  });
  return out;
}

describe('Temporal dev server command line', () => {
  for (const [what, opts] of [
    ['npm start (state in a file, Web UI)', { port: 7233, uiPort: 8233, dbFile: '/tmp/x/temporal.db' }],
    ['tests and benchmarks (in memory, headless)', { port: 7233 }],
  ] as const) {
    it(`${what}: no search-attribute cache refresh on every read, one write partition per task queue, an unthrottled transfer queue`, () => {
      const dc = dynamicConfig(temporalDevArgs(opts));
      assert.equal(dc.get('system.forceSearchAttributesCacheRefreshOnRead'), 'false');
      assert.equal(dc.get('matching.numTaskqueueWritePartitions'), '1');
      // the transfer queue (every workflow's first task, every close) is not throttled at 20 reads a second
      assert.equal(dc.get('history.transferProcessorMaxPollRPS'), '1000');
      // Read partitions keep the default (four): tasks an older data folder holds in partitions 1-3 are still read.
      assert.equal(dc.has('matching.numTaskqueueReadPartitions'), false);
    });
  }

  it('keeps the write-ahead log pragmas and registers the search attributes with a state file', () => {
    const args = temporalDevArgs({ port: 7233, dbFile: '/tmp/x/temporal.db' });
    assert.deepEqual(args.slice(args.indexOf('--db-filename'), args.indexOf('--db-filename') + 6), [
      '--db-filename',
      '/tmp/x/temporal.db',
      '--sqlite-pragma',
      'journal_mode=wal',
      '--sqlite-pragma',
      'synchronous=normal',
    ]);
    assert.ok(args.includes('AccountId=Keyword'), args.join(' '));
  });
});
