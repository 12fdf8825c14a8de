// No import cycles among the project's files, type-only imports included (eslint.config.mjs, rule cycles/no-cycle in
// scripts/lint/no-cycle.mjs): a cycle brought back is a lint error naming its path, and the whole graph has none.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { ROOT, ruleErrors } from '../helpers/lint';

/** The folders whose files import each other (tests, scripts and benchmarks included). */
const FOLDERS = [
  'api',
  'activities',
  'workflows',
  'db',
  'lib',
  'worker',
  'scripts',
  'bench',
  'test',
  'clients',
  'web/js',
];

function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /\.(ts|js|mjs)$/.test(e.name) && !e.parentPath.includes('node_modules'))
    .map((e) => path.join(e.parentPath, e.name));
}

describe('lint: no import cycles', function () {
  this.timeout(120_000);
  const cycleErrors = (file: string, code: string) => ruleErrors('cycles/no-cycle', file, code);

  const forbidden: [string, string, string][] = [
    // the last link of the cycle issue 34 found in db/ (db/ledger.ts no longer imports the mails), type-only
    [
      'db/mail-outbox.ts',
      "import type { mailPaymentFailed } from './payment-mails';\nexport type X = typeof mailPaymentFailed;\n",
      'db/mail-outbox.ts -> db/payment-mails.ts -> db/mail-outbox.ts',
    ],
    [
      'activities/recovery.ts',
      "import { createMaintenanceActivities } from './maintenance';\nexport const x = createMaintenanceActivities;\n",
      'activities/recovery.ts -> activities/maintenance.ts -> activities/recovery.ts',
    ],
    [
      'api/openapi/uploads.ts',
      "export { buildOpenApiDocument } from './document';\n",
      'api/openapi/uploads.ts -> api/openapi/document.ts -> api/openapi/uploads.ts',
    ],
    // the dashboard's JSDoc types count too
    [
      'web/js/dom.js',
      "/** @typedef {typeof import('./pages/studio.js').studioPage} S */\nexport const x = 1;\n",
      'web/js/dom.js -> web/js/pages/studio.js -> web/js/dom.js',
    ],
  ];
  for (const [file, code, route] of forbidden) {
    it(`refuses in ${file}: ${code.split('\n')[0]}`, async () => {
      const errors = await cycleErrors(file, code);
      assert.equal(errors.length, 1, `expected one cycle error, got ${JSON.stringify(errors)}`);
      assert.ok(errors[0]!.includes(route), errors[0]);
    });
  }

  it('allows the same imports from the module that holds the shared piece', async () => {
    assert.deepEqual(
      await cycleErrors('db/mail-outbox.ts', "import type { Tx } from './client';\nexport type X = Tx;\n"),
      [],
    );
    assert.deepEqual(
      await cycleErrors('api/openapi/uploads.ts', "import { json } from './common';\nexport const x = json;\n"),
      [],
    );
  });

  it('finds no cycle in the whole graph', async () => {
    const { cyclesAmong } = await import('../../scripts/lint/no-cycle.mjs');
    const files = FOLDERS.flatMap(sourceFiles);
    assert.ok(files.length > 300, `${files.length} files`);
    const cycles = cyclesAmong(files).map((c) => c.map((f) => path.relative(ROOT, f)));
    assert.deepEqual(cycles, []);
  });
});
