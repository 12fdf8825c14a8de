// App files are at most 400 lines (issue 34; eslint.config.mjs, rule max-lines): a file of any app folder that grows
// past it is a lint error, counted as wc -l counts it (blank lines and comments included); tests are not app files.
import assert from 'node:assert/strict';
import { ruleErrors } from '../helpers/lint';

/** `n` lines of code, each ending in a newline (as a file on disk does). */
const lines = (n: number) => Array.from({ length: n }, (_, i) => `export const x${i} = ${i};\n`).join('');

describe('lint: app files at most 400 lines', function () {
  this.timeout(120_000);
  const sizeErrors = (file: string, code: string) => ruleErrors('max-lines', file, code);

  const APP_FILES = [
    'api/services/generations.ts',
    'db/ledger.ts',
    'lib/wait.ts',
    'activities/generation.ts',
    'workflows/generation.ts',
    'worker/main.ts',
    'clients/typescript/src/index.ts',
    'web/js/dom.js',
  ];
  for (const file of APP_FILES)
    it(`refuses 401 lines in ${file}, allows 400`, async () => {
      const over = await sizeErrors(file, lines(401));
      assert.equal(over.length, 1, JSON.stringify(over));
      assert.match(over[0]!, /too many lines \(401\)\. Maximum allowed is 400/);
      assert.deepEqual(await sizeErrors(file, lines(400)), []);
    });

  it('counts blank lines and comments', async () => {
    const code = `${lines(300)}${'\n'.repeat(50)}${'// a comment\n'.repeat(51)}`;
    assert.equal((await sizeErrors('db/ledger.ts', code)).length, 1);
  });

  it('leaves tests, scripts and benchmarks alone', async () => {
    for (const file of ['test/unit/wait.test.ts', 'scripts/test.ts', 'bench/run.ts'])
      assert.deepEqual(await sizeErrors(file, lines(401)), [], file);
  });
});
