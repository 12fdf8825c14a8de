// Fuzz suite (issue 11): property-based requests against every route of the app, enumerated from its router, with
// generated methods, paths, queries, headers, content types and bodies, and valid or invalid credentials. Whatever
// comes in: no 5xx, every error body in the documented envelope of its part, and the process stays up.
// CI runs FUZZ_RUNS (default 300) cases; `npm run fuzz` runs many more and prints how many were tried.
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { createApp } from '../../api/app';
import { createLogger } from '../../lib/log';
import { account, http } from '../helpers/http';
import { appRoutes, type AppRoute } from '../helpers/routes';
import { startStack, type Stack } from '../helpers/stack';

const RUNS = Number(process.env.FUZZ_RUNS ?? 300);
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined;

/** A path of the route with its parameters filled by generated text (sometimes plausible ids, sometimes junk). */
const filledPath = (route: AppRoute) =>
  fc
    .array(
      fc.oneof(
        fc.constantFrom('gen_1_abc', 'key_xxxxxxxxxxxxxxxx', 'thr_1_x', 'job_1_x', 'shc_x', 'ord_x', 'x', '..', '%00'),
        fc.string({ maxLength: 40 }),
        fc.stringMatching(/^[a-z0-9_.-]{1,80}$/),
      ),
      { minLength: 4, maxLength: 4 },
    )
    .map((parts) => {
      let i = 0;
      return route.path.replace(/[:*](\w+)/g, () => encodeURIComponent(parts[i++ % parts.length]!) || 'x');
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

  it('answers every generated request below 500, in its envelope, and stays up', async () => {
    const headersFor = (auth: Auth): Record<string, string> => {
      const h: Record<string, string> = {};
      if (auth === 'key' || auth === 'both') h.authorization = `Bearer ${acct.key}`;
      if (auth === 'badKey') h.authorization = 'Bearer amk_live_' + 'f'.repeat(64);
      if (auth === 'cookie' || auth === 'both') h.cookie = acct.cookie;
      if (auth === 'badCookie') h.cookie = 'amk_session=deadbeef';
      return h;
    };
    let tried = 0;
    const seen = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...routes).chain((route) =>
          fc.record({
            route: fc.constant(route),
            path: filledPath(route),
            method: fc.oneof(
              { weight: 4, arbitrary: fc.constant(route.method) },
              { weight: 1, arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH') },
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
              ),
              fc.string({ maxLength: 60 }).filter((s) => /^[\x20-\x7e]*$/.test(s)),
              { maxKeys: 2 },
            ),
          }),
        ),
        async (c) => {
          tried++;
          seen.set(`${c.route.method} ${c.route.path}`, (seen.get(`${c.route.method} ${c.route.path}`) ?? 0) + 1);
          const qs = new URLSearchParams(c.query).toString();
          const headers = { ...c.extraHeaders, ...headersFor(c.auth) };
          const withBody = c.method !== 'GET' && c.body !== undefined;
          if (withBody) headers['content-type'] = c.body!.type;
          const res = await http(stack.baseUrl, c.method, `${c.path}${qs ? `?${qs}` : ''}`, {
            headers,
            ...(withBody ? { body: c.body!.data } : {}),
            signal: AbortSignal.timeout(60_000),
          });
          const where = `${c.method} ${c.path}${qs ? `?${qs}` : ''} → ${res.status} ${res.text.slice(0, 300)}`;
          assert.ok(res.status < 500, where);
          if (res.status >= 400 && res.headers.get('content-type')?.includes('json')) {
            const pathname = c.path.split('?')[0]!;
            if (pathname.startsWith('/api/') && !pathname.startsWith('/api/v1/') && pathname !== '/api/v1') {
              assert.equal(typeof res.body.error, 'string', `Part B envelope: ${where}`);
            } else {
              assert.equal(typeof res.body.error?.code, 'string', `Part A envelope: ${where}`);
              assert.equal(typeof res.body.error?.message, 'string', `Part A envelope: ${where}`);
            }
          }
        },
      ),
      { numRuns: RUNS, ...(SEED !== undefined ? { seed: SEED } : {}), endOnFailure: true },
    );
    const health = await http(stack.baseUrl, 'GET', '/healthz');
    assert.equal(health.status, 200, 'the API is still up');
    process.stderr.write(`[fuzz] ${tried} cases over ${seen.size} of ${routes.length} routes\n`);
  });
});
