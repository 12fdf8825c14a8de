// The job sheet's PDF writer (pdf-lib, qrcode) and the ZIP writer (archiver) are loaded by the first sheet and the
// first archive only: a worker that only renders never holds them (issue 34, docs/benchmarks.md "The worker's memory
// at startup"). Each case runs in a child process, whose module cache starts empty.
import assert from 'node:assert/strict';
import { inFreshProcess } from '../helpers/fresh-process';

const LOADED = `const writers = () => ['pdf-lib', 'qrcode', 'archiver'].filter(loaded);`;

describe('the production writers are loaded when first used', () => {
  it('the worker with its activities and the production modules load none of them', function () {
    this.timeout(60_000);
    const out = inFreshProcess(`${LOADED}
      require('./worker/create-worker');
      require('./activities');
      require('./lib/production');
      console.log(JSON.stringify({ loaded: writers() }));
    `);
    assert.deepEqual(out, { loaded: [] });
  });

  it('a job sheet loads pdf-lib and qrcode, an archive archiver', function () {
    this.timeout(60_000);
    const out = inFreshProcess(`${LOADED}
      const { renderJobSheet, zipStream } = require('./lib/production');
      (async () => {
        const pdf = await renderJobSheet({
          orderId: 'o1', orderName: '#1001', orderedAt: new Date(0), shipTo: null, shop: 'shop', lines: [],
        });
        const afterSheet = writers();
        const chunks = [];
        for await (const c of zipStream([{ name: 'sheet.pdf', load: async () => Buffer.from(pdf) }])) chunks.push(c);
        console.log(JSON.stringify({
          afterSheet,
          afterZip: writers(),
          pdf: Buffer.from(pdf).subarray(0, 5).toString(),
          zip: Buffer.concat(chunks).subarray(0, 2).toString(),
        }));
      })();
    `);
    assert.deepEqual(out, {
      afterSheet: ['pdf-lib', 'qrcode'],
      afterZip: ['pdf-lib', 'qrcode', 'archiver'],
      pdf: '%PDF-',
      zip: 'PK',
    });
  });
});
