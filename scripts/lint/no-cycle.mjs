// ESLint rule `app/no-cycle`: no import cycles among the project's own files, type-only imports included (an
// `import type` cycle still couples the two modules: neither can be read, moved or split without the other).
// `import-x/no-cycle` skips type imports with no option to count them, so the project checks its graph itself.
//
// Edges are every relative module reference of a file: `import` and `import type`, `export ... from`, `require()`,
// dynamic `import()` and `import('...')` types, JSDoc ones included (the dashboard's typedefs). Each file's edges are
// read from its text with TypeScript's `preProcessFile` (cached by modification time); the file being linted is read
// from the text ESLint was given. An import is reported when the file it names leads back to the linted file, with the
// shortest such path.
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** path -> { mtimeMs, edges } */
const cache = new Map();

const EXTENSIONS = ['.ts', '.tsx', '.d.ts', '.js', '.mjs', '.cjs'];

function isFile(p) {
  try {
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

/** The project file a relative specifier of `from` names, or null (packages and missing files are no edge). */
export function resolveSpecifier(from, specifier) {
  if (!specifier.startsWith('./') && !specifier.startsWith('../')) return null;
  const base = path.resolve(path.dirname(from), specifier);
  const candidates = [base, ...EXTENSIONS.map((e) => base + e), ...EXTENSIONS.map((e) => path.join(base, 'index' + e))];
  // `./x.js` written for `./x.ts` (nodenext style)
  if (/\.[cm]?js$/.test(base)) candidates.push(base.replace(/\.([cm]?)js$/, '.$1ts'));
  const found = candidates.find((c) => !c.endsWith('.json') && isFile(c));
  return found && !found.includes(`${path.sep}node_modules${path.sep}`) ? found : null;
}

/** The relative module references of a file's text: [{ file, pos }] (pos: offset of the specifier). */
export function referencesOf(file, text) {
  const refs = [];
  const info = ts.preProcessFile(text, true, true);
  for (const r of info.importedFiles) refs.push({ specifier: r.fileName, pos: r.pos });
  // `import('./x')` in JSDoc and type positions (preProcessFile reads code only)
  for (const m of text.matchAll(/import\(\s*(['"])(\.{1,2}\/[^'"]+)\1\s*\)/g))
    refs.push({ specifier: m[2], pos: m.index + m[0].indexOf(m[1]) + 1 });
  const out = [];
  const seen = new Set();
  for (const r of refs) {
    const target = resolveSpecifier(file, r.specifier);
    if (!target || seen.has(`${target}@${r.pos}`)) continue;
    seen.add(`${target}@${r.pos}`);
    out.push({ target, specifier: r.specifier, pos: r.pos });
  }
  return out;
}

/** The files `file` imports (read from disk, cached by modification time). */
function edgesOf(file) {
  let stat;
  try {
    stat = fs.statSync(file);
  } catch {
    return [];
  }
  const hit = cache.get(file);
  if (hit && hit.mtimeMs === stat.mtimeMs) return hit.edges;
  const edges = [...new Set(referencesOf(file, fs.readFileSync(file, 'utf8')).map((r) => r.target))];
  cache.set(file, { mtimeMs: stat.mtimeMs, edges });
  return edges;
}

/** The shortest import path from `start` back to `goal`, as a list of files ending at `goal`, or null. */
function pathBack(start, goal) {
  if (start === goal) return [goal];
  const previous = new Map([[start, null]]);
  const queue = [start];
  while (queue.length) {
    const at = queue.shift();
    for (const next of edgesOf(at)) {
      if (previous.has(next)) continue;
      previous.set(next, at);
      if (next === goal) {
        const route = [];
        for (let f = next; f !== null; f = previous.get(f)) route.unshift(f);
        return route;
      }
      queue.push(next);
    }
  }
  return null;
}

/**
 * The import cycles among `files` and what they reach (Tarjan's strongly connected components of two or more files,
 * or a file importing itself), each as a sorted list of files.
 */
export function cyclesAmong(files) {
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const cycles = [];
  let next = 0;
  const visit = (v) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of edgesOf(v)) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
    }
    if (low.get(v) !== index.get(v)) return;
    const component = [];
    let w;
    do {
      w = stack.pop();
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || edgesOf(v).includes(v)) cycles.push(component.sort());
  };
  for (const f of files) if (!index.has(path.resolve(f))) visit(path.resolve(f));
  return cycles;
}

export const noCycle = {
  meta: {
    type: 'problem',
    docs: { description: 'no import cycles among the project files, type-only imports included' },
    messages: {
      cycle: 'import cycle: {{route}} (move the shared piece to a module both can import; docs/architecture.md)',
    },
    schema: [],
  },
  create(context) {
    const file = context.physicalFilename;
    if (!path.isAbsolute(file)) return {};
    return {
      Program() {
        const source = context.sourceCode;
        const root = context.cwd;
        const rel = (f) => path.relative(root, f);
        const checked = new Set();
        for (const ref of referencesOf(file, source.text)) {
          if (checked.has(ref.target)) continue;
          checked.add(ref.target);
          const back = pathBack(ref.target, file);
          if (!back) continue;
          context.report({
            loc: source.getLocFromIndex(ref.pos),
            messageId: 'cycle',
            data: { route: [file, ...back].map(rel).join(' -> ') },
          });
        }
      },
    };
  },
};
