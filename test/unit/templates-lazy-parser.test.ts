// The PSD parser (lib/templates/parse.ts, which loads ag-psd: ~11 MiB per process) is loaded only by a template
// import: the API and the worker's renders on templates use the engine's render modules (issue 34, docs/benchmarks.md
// "Before and after issue 34"). Each case runs in a child process, whose module cache starts empty.
import assert from 'node:assert/strict';
import { inFreshProcess } from '../helpers/fresh-process';

const LOADED = `const agPsd = () => loaded('ag-psd');`;

describe('the PSD parser is loaded by an import only', () => {
  it('the API app, the worker with its activities and the template render path do not load ag-psd', function () {
    this.timeout(60_000);
    const out = inFreshProcess(`${LOADED}
      require('./api/app');
      require('./worker/create-worker');
      require('./lib/template-import/render');
      require('./lib/template-import/prepared-store');
      console.log(JSON.stringify({ agPsd: agPsd() }));
    `);
    assert.deepEqual(out, { agPsd: false });
  });

  it('the parser loads it (what the import activity requires on its first import)', function () {
    this.timeout(60_000);
    const out = inFreshProcess(`${LOADED}
      require('./activities/templates');
      const before = agPsd();
      require('./lib/templates/parse');
      console.log(JSON.stringify({ before, after: agPsd() }));
    `);
    assert.deepEqual(out, { before: false, after: true });
  });
});
