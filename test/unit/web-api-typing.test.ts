// The dashboard's api() is typed by path and method from the generated `paths` (web/js/api-paths.d.ts over
// clients/typescript/src/schema.gen.ts): `tsc -p web/tsconfig.json` refuses a path that is no route, a method the
// route does not answer, a request field it does not take and an answer field it does not give. Each case is a
// module type-checked beside web/js/api.js (in memory, with web/tsconfig.json's options); the correct calls pass.
import assert from 'node:assert/strict';
import path from 'node:path';
import ts from 'typescript';

const WEB = path.resolve(__dirname, '../../web');

const HEADER = "import { api } from './api.js';\nconst id = String(Math.random());\nexport async function f() {\n";

const CASES: Record<string, string> = {
  correct: `
    const page = await api('GET', \`/api/v1/garments?\${new URLSearchParams({ limit: '5' })}\`);
    const g = await api('GET', \`/api/v1/generations/\${encodeURIComponent(id)}\`);
    const { deliveries } = await api('GET', \`/api/v1/generations/\${id}/deliveries\`);
    const { user } = await api('POST', '/api/auth/login', { email: 'a@example.com', password: 'secret' });
    const { data, res } = await api('POST', '/api/v1/preview', { garmentId: 'tee', designUrl: 'x', garmentImageUrl: 'y' }, { withResponse: true });
    const plans = await api('GET', '/api/payments/plans');
    /** @type {Blob} */ const blob = data;
    return [page.garments[0]?.name, g.status, deliveries.length, user.email, blob.size, res.ok, plans];
  `,
  'answer field': `
    const page = await api('GET', '/api/v1/garments');
    return page.garmentz;
  `,
  'Part B answer field': `
    const { user } = await api('POST', '/api/auth/login', { email: 'a@example.com', password: 'secret' });
    return user.balance;
  `,
  path: `
    return api('GET', '/api/v1/garmentz');
  `,
  'path with a segment too many': `
    return api('GET', \`/api/v1/generations/\${id}/nothing\`);
  `,
  method: `
    return api('PUT', '/api/v1/garments');
  `,
  'request field': `
    return api('POST', '/api/auth/login', { email: 'a@example.com', pasword: 'secret' });
  `,
};

describe('web/js api(): typed by path from the generated paths', function () {
  this.timeout(120_000);
  const diagnostics = new Map<string, readonly ts.Diagnostic[]>();

  before(() => {
    const config = ts.getParsedCommandLineOfConfigFile(
      path.join(WEB, 'tsconfig.json'),
      {},
      {
        ...ts.sys,
        onUnRecoverableConfigFileDiagnostic: (d) => assert.fail(ts.flattenDiagnosticMessageText(d.messageText, '\n')),
      },
    );
    assert.ok(config);
    const file = (name: string) => path.join(WEB, 'js', `typing-case-${name.replace(/\W+/g, '-')}.js`);
    const texts = new Map(Object.entries(CASES).map(([name, body]) => [file(name), `${HEADER}${body}}\n`]));
    const host = ts.createCompilerHost(config.options);
    const { getSourceFile, fileExists, readFile } = host;
    host.fileExists = (f) => texts.has(f) || fileExists.call(host, f);
    host.readFile = (f) => texts.get(f) ?? readFile.call(host, f);
    host.getSourceFile = (f, lang, ...rest) => {
      const text = texts.get(f);
      return text === undefined ? getSourceFile.call(host, f, lang, ...rest) : ts.createSourceFile(f, text, lang);
    };
    const program = ts.createProgram([...texts.keys()], config.options, host);
    for (const name of Object.keys(CASES))
      diagnostics.set(name, ts.getPreEmitDiagnostics(program, program.getSourceFile(file(name))));
  });

  const messages = (name: string) =>
    (diagnostics.get(name) ?? []).map((d) => `TS${d.code}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`);

  it('passes correct calls (Part A and Part B routes, a path with parameters and a query, withResponse)', () => {
    assert.deepEqual(messages('correct'), []);
  });

  for (const [name, wanted] of [
    ['answer field', /TS(2339|2551): Property 'garmentz' does not exist/],
    ['Part B answer field', /TS(2339|2551): Property 'balance' does not exist/],
    ['path', /TS2345: Argument of type '"\/api\/v1\/garmentz"' is not assignable to parameter of type 'Path'/],
    ['path with a segment too many', /TS2345: Argument of type '"GET"' is not assignable to parameter of type 'never'/],
    ['method', /TS2345: Argument of type '"PUT"' is not assignable to parameter of type '"GET"'/],
    ['request field', /TS(2353|2561): Object literal may only specify known properties.*'pasword'/],
  ] as const)
    it(`refuses a wrong ${name}`, () => {
      const found = messages(name);
      assert.equal(found.length, 1, found.join('\n'));
      assert.match(found[0]!, wanted);
    });
});
