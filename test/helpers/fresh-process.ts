// What a fresh process loads: `code` (TypeScript, CommonJS requires from the repo's root) runs in a child node with
// tsx, whose module cache starts empty. The prelude defines `loaded(pkg)`: whether a module of node_modules/<pkg> is
// in require.cache.
import { execFileSync } from 'node:child_process';
import path from 'node:path';

const ROOT = path.join(__dirname, '../..');

const PRELUDE = `const loaded = (m) => Object.keys(require.cache).some((k) => k.includes('/node_modules/' + m + '/'));\n`;

/** Runs `code` after the prelude in a fresh node; its last line of stdout, parsed as JSON. */
export function inFreshProcess(code: string, env: Record<string, string | undefined> = process.env): unknown {
  const out = execFileSync(process.execPath, ['--import', 'tsx', '-e', PRELUDE + code], {
    cwd: ROOT,
    env,
    encoding: 'utf8',
  });
  return JSON.parse(out.trim().split('\n').pop()!);
}
