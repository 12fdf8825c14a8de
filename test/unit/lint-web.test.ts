// The dashboard's modules (web/js) are linted like the rest (eslint.config.mjs): browser globals, type-aware rules,
// and only its own modules may be imported (the browser loads them as they are, with no build step).
import assert from 'node:assert/strict';
import path from 'node:path';
import { ESLint } from 'eslint';

const ROOT = path.resolve(__dirname, '../..');

describe('lint: web/js', function () {
  this.timeout(120_000);
  const eslint = new ESLint({ cwd: ROOT });

  /** Lints `code` as if it were the (existing) file `file`; returns the rule ids of its errors. */
  async function errors(file: string, code: string): Promise<(string | null)[]> {
    const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, file) });
    return result!.messages.filter((m) => m.severity === 2).map((m) => m.ruleId);
  }

  it('is not ignored, and knows the browser globals', async () => {
    assert.equal(await eslint.isPathIgnored(path.join(ROOT, 'web/js/app.js')), false);
    assert.deepEqual(await errors('web/js/dom.js', 'export const here = () => document.title + location.hash;\n'), []);
  });

  it('refuses a package import (no build step resolves it)', async () => {
    assert.ok(
      (await errors('web/js/dom.js', "import { z } from 'zod';\nexport const x = z;\n")).includes(
        'no-restricted-imports',
      ),
    );
  });

  it('refuses a promise left floating', async () => {
    const code = 'async function f() {}\nexport function g() {\n  f();\n}\n';
    assert.ok((await errors('web/js/dom.js', code)).includes('@typescript-eslint/no-floating-promises'));
  });
});
