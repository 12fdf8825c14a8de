// The layer rules of docs/architecture.md are enforced by ESLint (eslint.config.mjs): these cases show that a
// forbidden import is an error and an allowed one is not, through the project's own configuration.
import assert from 'node:assert/strict';
import { ruleErrors } from '../helpers/lint';

/** The import-boundary messages of `code` linted as the (existing) file `file`. */
const boundaryErrors = (file: string, code: string) =>
  ruleErrors('@typescript-eslint/no-restricted-imports', file, code);

describe('lint: one-way layers', function () {
  this.timeout(120_000);

  const forbidden: [string, string][] = [
    ['lib/ids.ts', "import { createApp } from '../api/app';\nexport const x = createApp;\n"],
    ['lib/compositing/config.ts', "import { createSql } from '../../db/client';\nexport const x = createSql;\n"],
    ['db/ledger.ts', "import { createActivities } from '../activities';\nexport const x = createActivities;\n"],
    ['activities/generation.ts', "import { generation } from '../workflows';\nexport const x = generation;\n"],
    ['activities/webhooks.ts', "import { createApp } from '../api/app';\nexport const x = createApp;\n"],
    ['workflows/generation.ts', "import { readFileSync } from 'node:fs';\nexport const x = readFileSync;\n"],
    ['workflows/generation.ts', "import { createSql } from '../db/client';\nexport const x = createSql;\n"],
    ['workflows/generation.ts', "import { loadConfig } from '../lib/config';\nexport const x = loadConfig;\n"],
    [
      'workflows/generation.ts',
      "import { createActivities } from '../activities';\nexport const x = createActivities;\n",
    ],
    ['workflows/generation.ts', "import sharp from 'sharp';\nexport const x = sharp;\n"],
    ['api/routes/generations.ts', "import { garmentRoutes } from './garments';\nexport const x = garmentRoutes;\n"],
    [
      'api/services/generations.ts',
      "import { createActivities } from '../../activities';\nexport const x = createActivities;\n",
    ],
  ];
  for (const [file, code] of forbidden) {
    it(`refuses in ${file}: ${code.split('\n')[0]}`, async () => {
      const errors = await boundaryErrors(file, code);
      assert.ok(errors.length >= 1, `expected a boundary error, got none`);
    });
  }

  const allowed: [string, string][] = [
    [
      'lib/compositing/config.ts',
      "import { MAX_INPUT_PIXELS } from '../images/limits';\nexport const x = MAX_INPUT_PIXELS;\n",
    ],
    ['db/generations.ts', "import { ZONES } from '../lib/generation/types';\nexport const x = ZONES;\n"],
    [
      'activities/generation.ts',
      "import { getGeneration } from '../db/generations';\nexport const x = getGeneration;\n",
    ],
    ['workflows/generation.ts', "import type { Activities } from '../activities';\nexport type X = Activities;\n"],
    ['workflows/generation.ts', "import { ZONES } from '../lib/generation/types';\nexport const x = ZONES;\n"],
    ['api/services/generations.ts', "import { generation } from '../../workflows';\nexport const x = generation;\n"],
  ];
  for (const [file, code] of allowed) {
    it(`allows in ${file}: ${code.split('\n')[0]}`, async () => {
      assert.deepEqual(await boundaryErrors(file, code), []);
    });
  }
});

describe('lint: SQL only in db/', function () {
  this.timeout(120_000);
  const sqlErrors = (file: string, code: string) => ruleErrors('app/sql-in-db-only', file, code);

  const SQL = "import type { Sql } from '../../db/client';\n";
  const forbidden: [string, string][] = [
    ['api/routes/keys.ts', `${SQL}export const f = (sql: Sql) => sql\`select 1\`;\n`],
    [
      'api/routes/keys.ts',
      `${SQL}export const f = (d: { sql: Sql }, id: string) => d.sql<{ id: string }[]>\`select \${id}\`;\n`,
    ],
    ['api/auth/sessions.ts', `${SQL}export const f = (db: Sql) => db.unsafe('select 1');\n`],
    ['api/auth/api-keys.ts', `${SQL}export const f = (sql: Sql) => sql.begin(async (tx) => tx\`select 1\`);\n`],
    [
      'activities/webhooks.ts',
      "import type { Sql } from '../db/client';\nexport const f = async (q: Sql) => { const alias = q; await alias`select 1`; };\n",
    ],
    ['lib/ids.ts', "import type postgres from 'postgres';\nexport const f = (sql: postgres.Sql) => sql`select 1`;\n"],
    ['api/routes/keys.ts', `${SQL}export const f = (sql: Sql) => sql.listen('channel', () => {});\n`],
  ];
  for (const [file, code] of forbidden) {
    it(`refuses in ${file}: ${code.split('\n')[1]}`, async () => {
      const errors = await sqlErrors(file, code);
      assert.ok(errors.length >= 1, 'expected the SQL rule to refuse this, got nothing');
      assert.match(errors[0]!, /SQL lives in db\//);
    });
  }

  const allowed: [string, string][] = [
    ['db/api-keys.ts', "import type { Sql } from './client';\nexport const f = (sql: Sql) => sql`select 1`;\n"],
    // A tagged template that is not a query, and a call that passes the client on to db/.
    ['api/routes/keys.ts', "const tag = (s: TemplateStringsArray) => s.join('');\nexport const x = tag`select 1`;\n"],
    [
      'api/routes/keys.ts',
      `${SQL}import { listApiKeys } from '../../db/api-keys';\nexport const f = (sql: Sql) => listApiKeys(sql, 'u');\n`,
    ],
  ];
  for (const [file, code] of allowed) {
    it(`allows in ${file}: ${code.split('\n').at(-2)}`, async () => {
      assert.deepEqual(await sqlErrors(file, code), []);
    });
  }
});

describe('lint: SQL in tests only through the inspect helper', function () {
  this.timeout(120_000);
  const sqlErrors = (file: string, code: string) => ruleErrors('tests/sql-in-inspect-only', file, code);

  const STACK = "import type { Stack } from '../helpers/stack';\n";
  const forbidden: [string, string][] = [
    [
      'test/integration/test-mode.test.ts',
      `${STACK}export const f = (stack: Stack, id: string) => stack.sql<{ n: number }[]>\`select \${id}\`;\n`,
    ],
    ['test/integration/upload.test.ts', `${STACK}export const f = (stack: Stack) => stack.sql.begin(async () => 1);\n`],
    [
      'test/browser/billing-journey.test.ts',
      "import { testSql } from '../helpers/stack';\nexport const f = () => testSql()`select 1`;\n",
    ],
  ];
  for (const [file, code] of forbidden) {
    it(`refuses in ${file}: ${code.split('\n')[1]}`, async () => {
      const errors = await sqlErrors(file, code);
      assert.ok(errors.length >= 1, 'expected the SQL rule to refuse this, got nothing');
      assert.match(errors[0]!, /SQL lives in test\/helpers\/db-inspect\//);
    });
  }

  it('allows it in the inspect helper, and a test passing the client on to db/', async () => {
    assert.deepEqual(
      await sqlErrors(
        'test/helpers/db-inspect/ledger.ts',
        "import { sql } from './sql';\nexport const f = () => sql()`select 1`;\n",
      ),
      [],
    );
    assert.deepEqual(
      await sqlErrors(
        'test/integration/test-mode.test.ts',
        `${STACK}import { tokenBalance } from '../../db/ledger';\nexport const f = (stack: Stack) => tokenBalance(stack.sql, 'u');\n`,
      ),
      [],
    );
  });
});
