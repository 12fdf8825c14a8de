// The dashboard's stylesheets are app files too (issue 34): each at most 400 lines, as wc -l counts them, like the code
// ESLint's max-lines rule holds to it (ESLint reads no CSS). index.html links each of web/css once, in the order of
// their numbers, which is their cascade order (docs/dashboard.md, "Layout and styles").
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { WEB_DIR } from '../../api/routes/dashboard';

const CSS_DIR = path.join(WEB_DIR, 'css');

/** Every .css file under web/, as a path relative to web/. */
function stylesheets(dir = WEB_DIR): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return stylesheets(full);
    return e.name.endsWith('.css') ? [path.relative(WEB_DIR, full)] : [];
  });
}

/** The hrefs of index.html's stylesheet links, in document order. */
function linked(html: string): string[] {
  return [...html.matchAll(/<link\s+rel="stylesheet"\s+href="([^"]+)"/g)].map((m) => m[1]!);
}

describe('dashboard stylesheets', () => {
  it('are all in web/css, each at most 400 lines', () => {
    const files = stylesheets();
    assert.ok(files.length >= 2, files.join(', '));
    for (const file of files) {
      assert.equal(path.dirname(file), 'css', `${file}: the dashboard's styles live in web/css`);
      const lines = readFileSync(path.join(WEB_DIR, file), 'utf8').split('\n').length - 1;
      assert.ok(lines <= 400, `${file} has ${lines} lines: split it where its sections meet`);
    }
  });

  it('are each linked once by index.html, in the order of their numbers (their cascade order)', () => {
    const files = readdirSync(CSS_DIR)
      .filter((f) => f.endsWith('.css'))
      .sort((a, b) => parseInt(a, 10) - parseInt(b, 10));
    for (const f of files) assert.match(f, /^\d+-[a-z-]+\.css$/, `${f}: a number for its place in the cascade`);
    assert.deepEqual(
      linked(readFileSync(path.join(WEB_DIR, 'index.html'), 'utf8')),
      files.map((f) => `/css/${f}`),
    );
  });
});
