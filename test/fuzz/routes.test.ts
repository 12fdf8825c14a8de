// Fuzz suite: property-based requests against every route of the app, enumerated from its router, with
// generated methods, paths, queries, headers, content types and bodies, and valid or invalid credentials. Whatever
// comes in: no 5xx, every 4xx a JSON body in the documented envelope of its part, and the process stays up. Every
// enumerated route (and static file) must have handled at least one request with its own method.
// CI runs about FUZZ_RUNS (default 300) cases; `npm run fuzz` runs many more and prints how many were tried.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import fc from 'fast-check';
import { createApp } from '../../api/app';
import { NOT_SERVED, WEB_DIR } from '../../api/routes/dashboard';
import { createLogger } from '../../lib/log';
import { account, http, type HttpResult } from '../helpers/http';
import { appRoutes, type AppRoute } from '../helpers/routes';
import { startStack, type Stack } from '../helpers/stack';

const RUNS = Number(process.env.FUZZ_RUNS ?? 300);
/** Route i runs with seed SEED + i: one number repeats the whole run (printed when it fails). */
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Math.floor(Math.random() * 2 ** 30);

const segment = fc.oneof(
  fc.constantFrom('gen_1_abc', 'key_xxxxxxxxxxxxxxxx', 'thr_1_x', 'job_1_x', 'shc_x', 'ord_x', 'x', '..', '%00'),
  fc.string({ maxLength: 40 }),
  fc.stringMatching(/^[a-z0-9_.-]{1,80}$/),
);

/**
 * A path of the route with its parameters filled by generated text (sometimes plausible ids, sometimes junk), encoded,
 * or now and then raw: a malformed percent-encoding must be a 400, not a failure to decode.
 */
const filledPath = (route: AppRoute) =>
  fc
    .array(
      fc.oneof(
        { weight: 6, arbitrary: segment.map((p) => encodeURIComponent(p) || 'x') },
        { weight: 1, arbitrary: fc.constantFrom('%ZZ', '%', '%E0%A4%A', '%C0%AF', 'a%2', '%uD800') },
      ),
      { minLength: 4, maxLength: 4 },
    )
    .map((parts) => {
      let i = 0;
      return route.path.replace(/[:*](\w+)/g, () => parts[i++ % parts.length]!);
    });

const query = fc.dictionary(
  fc.constantFrom('limit', 'cursor', 'category', 'status', 'permanent', 'shop', 'hmac', 'state', 'code', 'x'),
  fc.oneof(fc.string({ maxLength: 30 }), fc.integer().map(String), fc.constantFrom('-1', '0', '1e309', 'true', '')),
  { maxKeys: 3 },
);

const jsonValue = fc.oneof(
  fc.json({ maxDepth: 3 }),
  // shapes near the real bodies, with wrong or extreme values
  fc.record(
    {
      name: fc.oneof(fc.string(), fc.integer()),
      email: fc.oneof(fc.emailAddress(), fc.string()),
      password: fc.string(),
      prompt: fc.oneof(fc.string(), fc.constant(null)),
      designUrl: fc.oneof(fc.webUrl(), fc.string(), fc.constant('http://127.0.0.1:1/x.png')),
      imageUrl: fc.oneof(fc.webUrl(), fc.string()),
      imageData: fc.oneof(fc.base64String({ maxLength: 200 }), fc.constant('data:image/png;base64,AAAA')),
      garmentId: fc.string(),
      priceId: fc.string(),
      mode: fc.constantFrom('subscription', 'payment', 'x'),
      items: fc.array(fc.json({ maxDepth: 2 }), { maxLength: 3 }),
      placement: fc.json({ maxDepth: 2 }),
      shop: fc.string(),
      model: fc.string(),
      threadId: fc.oneof(fc.string(), fc.constant(null)),
      expiresInDays: fc.oneof(fc.integer(), fc.double()),
    },
    { requiredKeys: [] },
  ),
);

const body = fc.oneof(
  jsonValue.map((v) => ({ type: 'application/json', data: JSON.stringify(v) })),
  fc.string({ maxLength: 200 }).map((s) => ({ type: 'application/json', data: s })),
  fc.uint8Array({ maxLength: 300 }).map((b) => ({ type: 'application/octet-stream', data: Buffer.from(b) })),
  fc.string({ maxLength: 100 }).map((s) => ({ type: 'multipart/form-data; boundary=xyz', data: s })),
  fc.string({ maxLength: 100 }).map((s) => ({ type: 'text/plain', data: s })),
  fc.constant(undefined),
);

/**
 * Every 4xx answer is JSON in the envelope of its part: Part B (`/api/...` but not `/api/v1`) `{error: string}`,
 * everything else (Part A, and the unversioned routes, whose errors come from the same handler) `{error: {code,
 * message}}`. The static files (the dashboard, /docs/assets) fall through to the JSON 404 for a missing file and
 * hand their other refusals (412 failed precondition, 416 unsatisfiable range) to the error handler; /files and
 * /docs answer their errors through it too. Two exceptions, both narrow:
 * - HEAD: no body by HTTP, so only the Content-Type is checked.
 * - Not sent here: requests Node's HTTP parser refuses before any route (malformed request line or headers, 431 for
 *   headers over 16 KB) get Node's bare status line. fetch cannot send the malformed ones.
 */
function assertEnvelope(method: string, path: string, res: HttpResult, where: string): void {
  assert.match(res.headers.get('content-type') ?? '', /^application\/json\b/, `JSON error body: ${where}`);
  if (method === 'HEAD') return;
  const pathname = path.split('?')[0]!;
  if (pathname.startsWith('/api/') && !pathname.startsWith('/api/v1/') && pathname !== '/api/v1') {
    assert.equal(typeof res.body.error, 'string', `Part B envelope: ${where}`);
  } else {
    assert.equal(typeof res.body.error?.code, 'string', `Part A envelope: ${where}`);
    assert.equal(typeof res.body.error?.message, 'string', `Part A envelope: ${where}`);
  }
}

/** Static files have no route of their own: the dashboard's top-level files and the API reference's bundle. */
function staticFiles(): AppRoute[] {
  const web = readdirSync(WEB_DIR, { withFileTypes: true })
    .filter((f) => f.isFile())
    .map((f) => `/${f.name}`)
    .filter((p) => !NOT_SERVED.test(p));
  return ['/', ...web, '/docs/assets/standalone.js'].map((path) => ({ method: 'GET', path }));
}

type Auth = 'none' | 'key' | 'badKey' | 'cookie' | 'badCookie' | 'both';

describe('fuzz: every route, generated requests', function () {
  this.timeout(600_000);
  let stack: Stack;
  let routes: AppRoute[];
  let acct: Awaited<ReturnType<typeof account>>;

  before(async () => {
    // every feature configured (Shopify's credentials; Stripe comes from the test bootstrap): an unconfigured one
    // answers 503 by design, which is not what this suite looks for
    stack = await startStack('fuzz', {
      env: { ALLOW_PRIVATE_URLS: 'false', SHOPIFY_API_KEY: 'fuzz-app', SHOPIFY_API_SECRET: 'fuzz-secret' },
    });
    const app = createApp({ ...stack, temporal: stack.client, log: createLogger({ level: 'error' }) });
    routes = appRoutes(app);
    assert.ok(routes.length >= 30, `found only ${routes.length} routes`);
    acct = await account(stack.baseUrl);
  });
  after(async () => {
    await stack?.stop();
  });

  it('answers every generated request below 500, in its envelope, exercises every route, and stays up', async () => {
    const headersFor = (auth: Auth): Record<string, string> => {
      const h: Record<string, string> = {};
      if (auth === 'key' || auth === 'both') h.authorization = `Bearer ${acct.key}`;
      if (auth === 'badKey') h.authorization = 'Bearer amk_live_' + 'f'.repeat(64);
      if (auth === 'cookie' || auth === 'both') h.cookie = acct.cookie;
      if (auth === 'badCookie') h.cookie = 'amk_session=deadbeef';
      return h;
    };
    let tried = 0;
    /** Cases sent per route, and the routes that handled at least one (their method, not the 404 of no route). */
    const sent = new Map<string, number>();
    const exercised = new Set<string>();
    const caseFor = (route: AppRoute) =>
      fc.record({
        route: fc.constant(route),
        path: filledPath(route),
        method: fc.oneof(
          { weight: 4, arbitrary: fc.constant(route.method) },
          { weight: 1, arbitrary: fc.constantFrom('GET', 'HEAD', 'OPTIONS', 'POST', 'PUT', 'DELETE', 'PATCH') },
        ),
        query,
        auth: fc.constantFrom<Auth>('none', 'key', 'badKey', 'cookie', 'badCookie', 'both'),
        body,
        extraHeaders: fc.dictionary(
          fc.constantFrom(
            'idempotency-key',
            'x-forwarded-for',
            'origin',
            'stripe-signature',
            'x-shopify-hmac-sha256',
            'x-shopify-webhook-id',
            'accept',
            'range',
            'if-match',
            'if-none-match',
            'if-unmodified-since',
          ),
          fc.oneof(
            fc.string({ maxLength: 60 }).filter((s) => /^[\x20-\x7e]*$/.test(s)),
            // conditional and range requests the static files and /files act on
            fc.constantFrom('bytes=99999999-', 'bytes=0-1', 'bytes=5-1', '"x"', '*', 'Mon, 01 Jan 1990 00:00:00 GMT'),
          ),
          { maxKeys: 2 },
        ),
      });
    type Case = typeof caseFor extends (r: AppRoute) => fc.Arbitrary<infer C> ? C : never;

    const check = async (c: Case) => {
      tried++;
      const name = `${c.route.method} ${c.route.path}`;
      sent.set(name, (sent.get(name) ?? 0) + 1);
      const qs = new URLSearchParams(c.query).toString();
      const headers = { ...c.extraHeaders, ...headersFor(c.auth) };
      const withBody = c.method !== 'GET' && c.method !== 'HEAD' && c.body !== undefined;
      if (withBody) headers['content-type'] = c.body!.type;
      const res = await http(stack.baseUrl, c.method, `${c.path}${qs ? `?${qs}` : ''}`, {
        headers,
        ...(withBody ? { body: c.body!.data } : {}),
        signal: AbortSignal.timeout(60_000),
      });
      const where = `${c.method} ${c.path}${qs ? `?${qs}` : ''} → ${res.status} ${res.text.slice(0, 300)}`;
      assert.ok(res.status < 500, where);
      const noRoute = res.status === 404 && /^No route for /.test(res.body?.error?.message ?? res.body?.error ?? '');
      if (c.method === c.route.method && !noRoute) exercised.add(name);
      if (res.status >= 400) assertEnvelope(c.method, c.path, res, where);
    };

    // Every route (and static file) gets its share of the runs, plus one plain call with its own method and a valid
    // key, so each is exercised in every run whatever the seed.
    const targets = [...routes, ...staticFiles()];
    const perRoute = Math.max(1, Math.ceil(RUNS / targets.length));
    for (const [i, route] of targets.entries()) {
      const plain: Case = {
        route,
        path: route.path.replace(/[:*](\w+)/g, 'x'),
        method: route.method,
        query: {},
        auth: 'key',
        body: undefined,
        extraHeaders: {},
      };
      // and for a GET, the conditional and range requests the static files answer with 412 and 416
      const conditional: Case[] =
        route.method === 'GET'
          ? [
              { ...plain, extraHeaders: { range: 'bytes=99999999-' } },
              { ...plain, extraHeaders: { 'if-match': '"x"' } },
            ]
          : [];
      try {
        await fc.assert(fc.asyncProperty(caseFor(route), check), {
          numRuns: perRoute,
          examples: [plain, ...conditional].map((c) => [c]),
          seed: SEED + i,
          endOnFailure: true,
        });
      } catch (err) {
        (err as Error).message = `FUZZ_SEED=${SEED} repeats this run.\n${(err as Error).message}`;
        throw err;
      }
    }
    const health = await http(stack.baseUrl, 'GET', '/healthz');
    assert.equal(health.status, 200, 'the API is still up');
    process.stderr.write(
      `[fuzz] ${tried} cases over ${sent.size} of ${targets.length} targets (${routes.length} routes, ` +
        `${targets.length - routes.length} static files), ${exercised.size} exercised\n`,
    );
    const missed = targets.map((r) => `${r.method} ${r.path}`).filter((r) => !exercised.has(r));
    assert.deepEqual(missed, [], 'every enumerated route handled at least one request with its own method');
  });
});
