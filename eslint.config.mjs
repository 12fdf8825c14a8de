// Lint: typescript-eslint with type information, plus the import boundaries that keep the layers one-way
// (docs/architecture.md). Boundaries are checked on the import specifier: a relative path that climbs out of its
// folder (`../`, `../../`) into a top-level folder the layer must not know is an error.
import { builtinModules } from 'node:module';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

const TOP = ['api', 'activities', 'workflows', 'db', 'lib', 'worker', 'scripts', 'bench', 'test'];

/** A pattern for relative imports that reach a top-level folder from anywhere below the root. */
const into = (folders, message, extra = {}) => ({
  regex: `^(\\.\\./)+(${folders.join('|')})(/|$)`,
  message,
  ...extra,
});

const outside = (layer, allowed) => TOP.filter((t) => t !== layer && !allowed.includes(t));

/** One `@typescript-eslint/no-restricted-imports` setting per layer (a later block replaces the rule, so each is whole). */
function boundary(layer, allowed, { patterns = [], paths = [] } = {}) {
  return {
    files: [`${layer}/**/*.ts`],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths,
          patterns: [
            into(
              outside(layer, allowed),
              `${layer}/ may import only ${allowed.length ? allowed.join(', ') : 'itself'} (docs/architecture.md)`,
            ),
            ...patterns,
          ],
        },
      ],
    },
  };
}

// Node built-ins are not deterministic (or not available) in the workflow sandbox; `assert` is allowed, as in
// the Temporal samples.
const NODE_BUILTINS = builtinModules.filter((m) => m !== 'assert').flatMap((m) => [m, `node:${m}`]);

export default tseslint.config(
  {
    ignores: [
      'node_modules/**',
      'dist/**',
      '.data/**',
      'test-artifacts/**',
      '**/*.js',
      '!web/js/**/*.js',
      '**/*.mjs',
      '**/*.cjs',
      'web/js/api-types.d.ts', // generated (npm run web:types)
    ],
  },
  {
    files: ['**/*.ts'],
    extends: [js.configs.recommended, ...tseslint.configs.recommended],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
      globals: { ...globals.node },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-namespace': ['error', { allowDeclarations: true }],
      'no-control-regex': 'off',
    },
  },

  // The dashboard: plain ES modules run by the browser as they are, type-checked from their JSDoc by
  // web/tsconfig.json (which the project service finds for them). They import only each other.
  {
    files: ['web/js/**/*.js'],
    extends: [js.configs.recommended, ...tseslint.configs.recommended],
    languageOptions: {
      sourceType: 'module',
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
      globals: { ...globals.browser },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      'no-restricted-imports': [
        'error',
        {
          patterns: [{ regex: '^(?!\\.{1,2}/)', message: 'the dashboard loads only its own modules (no build step)' }],
        },
      ],
    },
  },

  // Engines and helpers know nothing of the app.
  boundary('lib', []),
  // Query modules know lib/.
  boundary('db', ['lib']),
  // Activities do I/O through db/ and call the engines in lib/.
  boundary('activities', ['db', 'lib']),
  // Workflows: @temporalio/workflow and the shared contracts (lib/<flow>/types.ts); activities as types only.
  {
    files: ['workflows/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: NODE_BUILTINS.map((name) => ({ name, message: 'Node built-ins are not deterministic in workflows' })),
          patterns: [
            {
              regex: '^(\\.\\./)+activities(/|$)',
              allowTypeImports: true,
              message: 'workflows import activities as types only (import type)',
            },
            {
              regex: '^(\\.\\./)+lib/(?![a-z-]+/types$)',
              message: 'workflows import only the shared contract modules lib/<flow>/types',
            },
            into(
              ['api', 'db', 'worker', 'scripts', 'bench', 'test'],
              'workflows import only @temporalio/workflow and shared types',
            ),
            {
              regex: '^(?!\\.|@temporalio/(workflow|common)$)',
              message: 'workflows import only @temporalio/workflow (and @temporalio/common) among packages',
            },
          ],
        },
      ],
    },
  },
  // The API: db/ and lib/, and workflow functions, only to start them by reference (`client.workflow.start(fn)`,
  // as in the Temporal samples: typed input and result, the API never runs them).
  boundary('api', ['db', 'lib', 'workflows']),
  // A route module never imports another route module: shared pieces live in api/services or api/http.
  {
    files: ['api/routes/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            into(
              ['activities', 'workflows', 'worker', 'scripts', 'bench', 'test'],
              'routes import db/, lib/ and api/ helpers only',
            ),
            { regex: '^\\./', message: 'a route module does not import another route module' },
          ],
        },
      ],
    },
  },
  // The worker process wires activities and workflows; it serves no HTTP.
  boundary('worker', ['activities', 'db', 'lib', 'workflows']),
  // Tests, scripts and benchmarks drive the whole app.
  {
    files: ['bench/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-unused-expressions': 'off', '@typescript-eslint/no-explicit-any': 'off' },
  },
);
