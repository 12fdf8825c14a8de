// The dashboard's modules (web/js) are linted like the rest (eslint.config.mjs): browser globals, type-aware rules,
// and only its own modules may be imported (the browser loads them as they are, with no build step).
import assert from 'node:assert/strict';
import path from 'node:path';
import { eslint, lintErrors, ROOT } from '../helpers/lint';

describe('lint: web/js', function () {
  this.timeout(120_000);

  /** The rule ids of the errors of `code` linted as the (existing) file `file`. */
  const errors = async (file: string, code: string) => (await lintErrors(file, code)).map((e) => e.ruleId);

  it('is not ignored, and knows the browser globals', async () => {
    assert.equal(await eslint().isPathIgnored(path.join(ROOT, 'web/js/app.js')), false);
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
