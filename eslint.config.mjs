// Lint: typescript-eslint with type information, plus the import boundaries that keep the layers one-way
// (docs/architecture.md). Boundaries are checked on the import specifier: a relative path that climbs out of its
// folder (`../`, `../../`) into a top-level folder the layer must not know is an error. SQL is written only in db/:
// the local rule `app/sql-in-db-only` refuses a query of the `postgres` client anywhere else in the app.
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

/**
 * True when `type` is (or, for a union, includes) a client of the `postgres` package: `Sql`, `TransactionSql`,
 * `ReservedSql`. Decided by the type, not the variable's name, so `deps.sql`, `tx`, `this.opts.sql` or any alias of
 * them are all caught.
 */
function isPostgresClient(type) {
  if (type.isUnion()) return type.types.some(isPostgresClient);
  const symbol = type.getSymbol() ?? type.aliasSymbol;
  return (
    ['Sql', 'TransactionSql', 'ReservedSql'].includes(symbol?.getName()) &&
    (symbol.getDeclarations() ?? []).some((d) => /[\\/]node_modules[\\/]postgres[\\/]/.test(d.getSourceFile().fileName))
  );
}

/** Methods of the client that send SQL text or open a transaction. */
const SQL_METHODS = new Set(['unsafe', 'file', 'begin', 'savepoint', 'reserve']);

const sqlInDbOnly = {
  meta: {
    type: 'problem',
    docs: { description: 'SQL (tagged templates and query methods of the postgres client) only in db/' },
    messages: {
      sql: 'SQL lives in db/: add or use a function of a db/ module instead of writing a query here (docs/architecture.md)',
    },
    schema: [],
  },
  create(context) {
    const services = context.sourceCode.parserServices;
    const isClient = (node) => isPostgresClient(services.getTypeAtLocation(node));
    return {
      TaggedTemplateExpression(node) {
        if (isClient(node.tag)) context.report({ node, messageId: 'sql' });
      },
      CallExpression(node) {
        const callee = node.callee;
        if (
          callee.type === 'MemberExpression' &&
          callee.property.type === 'Identifier' &&
          SQL_METHODS.has(callee.property.name) &&
          isClient(callee.object)
        )
          context.report({ node, messageId: 'sql' });
      },
    };
  },
};

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

  // SQL only in db/: app code calls db/ functions (scripts, bench and tests may query directly).
  {
    files: ['api/**/*.ts', 'activities/**/*.ts', 'workflows/**/*.ts', 'worker/**/*.ts', 'lib/**/*.ts'],
    plugins: { app: { rules: { 'sql-in-db-only': sqlInDbOnly } } },
    rules: { 'app/sql-in-db-only': 'error' },
  },

  // Temporary: the rate limiter's stores (api/middleware/rate-limit/) still write their own SQL; they are being
  // reworked for speed (one statement per request), after which their SQL moves into a db/ module and this goes.
  {
    files: ['api/middleware/rate-limit/**/*.ts'],
    rules: { 'app/sql-in-db-only': 'off' },
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
