// The layer rules of docs/architecture.md are enforced by ESLint (eslint.config.mjs): these cases show that a
// forbidden import is an error and an allowed one is not, through the project's own configuration.
import assert from 'node:assert/strict';
import path from 'node:path';
import { ESLint } from 'eslint';

const ROOT = path.resolve(__dirname, '../..');

describe('lint: one-way layers', function () {
  this.timeout(120_000);
  const eslint = new ESLint({ cwd: ROOT });

  /** Lints `code` as if it were the (existing) file `file`; returns the import-boundary messages. */
  async function boundaryErrors(file: string, code: string): Promise<string[]> {
    const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, file) });
    return result!.messages
      .filter((m) => m.ruleId === '@typescript-eslint/no-restricted-imports' && m.severity === 2)
      .map((m) => m.message);
  }

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
