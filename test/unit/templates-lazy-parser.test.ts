// The PSD parser (lib/templates/parse.ts, which loads ag-psd: ~11 MiB per process) is loaded only by a template
// import: the API and the worker's renders on templates use the engine's render modules (issue 34, docs/benchmarks.md
// "Before and after issue 34"). Each case runs in a child process, whose module cache starts empty.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';

const ROOT = path.join(__dirname, '../..');

/** Runs `code` in a fresh node with tsx; returns its last line of stdout. */
function inChild(code: string): string {
  const out = execFileSync(process.execPath, ['--import', 'tsx', '-e', code], { cwd: ROOT, encoding: 'utf8' });
  return out.trim().split('\n').pop()!;
}

const LOADED = `const agPsd = () => Object.keys(require.cache).some((k) => k.includes('/node_modules/ag-psd/'));`;

describe('the PSD parser is loaded by an import only', () => {
  it('the API app, the worker with its activities and the template render path do not load ag-psd', function () {
    this.timeout(60_000);
    const out = inChild(`${LOADED}
      require('./api/app');
      require('./worker/create-worker');
      require('./lib/template-import/render');
      require('./lib/template-import/prepared-store');
      console.log(JSON.stringify({ agPsd: agPsd() }));
    `);
    assert.deepEqual(JSON.parse(out), { agPsd: false });
  });

  it('the parser loads it (what the import activity requires on its first import)', function () {
    this.timeout(60_000);
    const out = inChild(`${LOADED}
      require('./activities/templates');
      const before = agPsd();
      require('./lib/templates/parse');
      console.log(JSON.stringify({ before, after: agPsd() }));
    `);
    assert.deepEqual(JSON.parse(out), { before: false, after: true });
  });
});
