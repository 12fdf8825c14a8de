// Session security through HTTP against the real stack: POST /api/chat under an Idempotency-Key (a retry answered
// from the first job and charged once, another body with the key 409); every state-changing route authenticated by
// the session cookie refusing another origin (Sec-Fetch-Site cross-site/same-site, a foreign Origin) while the
// signed webhooks and API-key calls are unaffected; the production configuration (https PUBLIC_BASE_URL required,
// a __Host- Secure cookie, Strict-Transport-Security) and the /docs page's headers.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { tokenBalance } from '../../db/ledger';
import { ConfigError, loadConfig } from '../../lib/config';
import { createLogger } from '../../lib/log';
import { renderJobIds } from '../helpers/db-inspect';
import { account, GOOD_PASSWORD, http, signup, uniqueEmail } from '../helpers/http';
import { startStack, withApp, type Stack } from '../helpers/stack';

const REFUSED_B = { error: 'Cross-site request refused' };
const REFUSED_A = { error: { code: 'forbidden', message: 'Cross-site request refused' } };

describe('session security', function () {
  this.timeout(180_000);
  let stack: Stack;

  before(async () => {
    // no provider keys: the design chat draws with the built-in local renderer
    stack = await startStack('session-security', { env: { GEMINI_API_KEY: '', OPENAI_API_KEY: '' } });
  });
  after(async () => {
    await stack?.stop();
  });

  describe('POST /api/chat with an Idempotency-Key', () => {
    const chat = (cookie: string, key: string | undefined, json: unknown) =>
      http(stack.baseUrl, 'POST', '/api/chat', {
        cookie,
        json,
        headers: key === undefined ? {} : { 'idempotency-key': key },
      });
    const jobsOf = renderJobIds;
    const body = { prompt: 'Retro sunset surf club in orange and purple', model: 'nano-banana' };

    it('a retry with the same key and body is answered from the first job, charged once', async () => {
      const acct = await account(stack.baseUrl);
      const before = await tokenBalance(stack.sql, acct.userId);
      const key = `chat-${Date.now()}`;
      const first = await chat(acct.cookie, key, body);
      assert.equal(first.status, 200, first.text);
      assert.equal(first.headers.get('idempotent-replayed'), null);
      const again = await chat(acct.cookie, key, body);
      assert.equal(again.status, 200, again.text);
      assert.equal(again.headers.get('idempotent-replayed'), 'true');
      assert.deepEqual(again.body, first.body);
      assert.equal(again.body.messageId, first.body.messageId);
      assert.equal(again.headers.get('x-image-provider'), 'local');
      assert.equal((await jobsOf(acct.userId)).length, 1, 'one job');
      assert.equal(await tokenBalance(stack.sql, acct.userId), before - 12, 'charged once');

      // without a key (or with another one) each request is its own job
      const other = await chat(acct.cookie, `${key}-2`, body);
      assert.equal(other.status, 200, other.text);
      assert.notEqual(other.body.messageId, first.body.messageId);
      assert.equal((await jobsOf(acct.userId)).length, 2);
    });

    it('the same key with a different body is 409 {error: "Idempotency-Key was used with a different request"}', async () => {
      const acct = await account(stack.baseUrl);
      const key = `chat-conflict-${Date.now()}`;
      assert.equal((await chat(acct.cookie, key, body)).status, 200);
      const other = await chat(acct.cookie, key, { ...body, prompt: 'A different prompt for the same key' });
      assert.equal(other.status, 409, other.text);
      assert.deepEqual(other.body, { error: 'Idempotency-Key was used with a different request' });
      assert.equal((await jobsOf(acct.userId)).length, 1, 'nothing started for the conflicting request');
      // the key is the account's: another account may use the same one
      const b = await account(stack.baseUrl);
      assert.equal((await chat(b.cookie, key, body)).status, 200);
    });

    it('a double click (two requests at once with one key): one job, one charge, the retry sees it', async () => {
      const acct = await account(stack.baseUrl);
      const before = await tokenBalance(stack.sql, acct.userId);
      const key = `chat-double-${Date.now()}`;
      const [a, b] = await Promise.all([chat(acct.cookie, key, body), chat(acct.cookie, key, body)]);
      const statuses = [a.status, b.status].sort();
      // the second one either finds the first still running (409, Retry-After) or its stored answer
      assert.ok(
        JSON.stringify(statuses) === '[200,409]' || JSON.stringify(statuses) === '[200,200]',
        `${a.status} ${a.text} / ${b.status} ${b.text}`,
      );
      const busy = [a, b].find((r) => r.status === 409);
      if (busy) assert.ok(Number(busy.headers.get('retry-after')) > 0);
      const done = [a, b].find((r) => r.status === 200)!;
      const retry = await chat(acct.cookie, key, body);
      assert.equal(retry.status, 200, retry.text);
      assert.equal(retry.body.messageId, done.body.messageId);
      assert.equal((await jobsOf(acct.userId)).length, 1);
      assert.equal(await tokenBalance(stack.sql, acct.userId), before - 12);
    });

    it('a 202 answer is replayed with the same jobId; no second job', async () => {
      const acct = await account(stack.baseUrl);
      const saved = stack.config.chat.syncTimeoutMs;
      stack.config.chat.syncTimeoutMs = 1;
      try {
        const key = `chat-async-${Date.now()}`;
        const first = await chat(acct.cookie, key, body);
        assert.equal(first.status, 202, first.text);
        const again = await chat(acct.cookie, key, body);
        assert.equal(again.status, 202, again.text);
        assert.equal(again.body.jobId, first.body.jobId);
        assert.equal(again.headers.get('idempotent-replayed'), 'true');
        assert.deepEqual(await jobsOf(acct.userId), [first.body.jobId]);
      } finally {
        stack.config.chat.syncTimeoutMs = saved;
      }
    });

    it('an invalid key is 400 {error} and nothing is started', async () => {
      const acct = await account(stack.baseUrl);
      for (const key of ['', 'has space', 'x'.repeat(256)]) {
        const res = await chat(acct.cookie, key, body);
        assert.equal(res.status, 400, `${JSON.stringify(key)}: ${res.text}`);
        assert.equal(typeof res.body.error, 'string');
        assert.match(res.body.error, /Idempotency-Key/);
      }
      assert.equal((await jobsOf(acct.userId)).length, 0);
    });
  });

  describe('cross-site requests on session routes', () => {
    // Browsers' ways of saying a request comes from another page: another site, the same site on another origin
    // (another port on this host, a sibling subdomain), or an Origin that is not the app's.
    const crossSite = (): Record<string, string>[] => [
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site' },
      { origin: 'http://127.0.0.1:1' },
      { origin: stack.baseUrl.replace('127.0.0.1', 'localhost') },
      { origin: 'https://evil.example' },
      { origin: 'null' },
      { 'sec-fetch-site': 'same-site', origin: 'http://127.0.0.1:1' },
    ];
    const sameOrigin = () => ({ origin: stack.baseUrl, 'sec-fetch-site': 'same-origin' });

    it('POST /api/v1/webhooks/secret/rotate from another origin is refused and the secret stays', async () => {
      const a = await signup(stack.baseUrl);
      const secret = async () =>
        (await http(stack.baseUrl, 'GET', '/api/v1/webhooks/secret', { cookie: a.cookie })).body.secret as string;
      const before = await secret();
      assert.ok(before);
      for (const headers of crossSite()) {
        const res = await http(stack.baseUrl, 'POST', '/api/v1/webhooks/secret/rotate', { cookie: a.cookie, headers });
        assert.equal(res.status, 403, `${JSON.stringify(headers)}: ${res.text}`);
        assert.deepEqual(res.body, REFUSED_A);
      }
      assert.equal(await secret(), before, 'not rotated');
      // the app's own page (same-origin fetch) rotates it
      const ok = await http(stack.baseUrl, 'POST', '/api/v1/webhooks/secret/rotate', {
        cookie: a.cookie,
        headers: sameOrigin(),
      });
      assert.equal(ok.status, 200, ok.text);
      assert.notEqual(await secret(), before);
    });

    it('POST /api/auth/logout from a same-site origin is refused and the session stays', async () => {
      const a = await signup(stack.baseUrl);
      const me = async () => (await http(stack.baseUrl, 'GET', '/api/auth/me', { cookie: a.cookie })).status;
      for (const headers of crossSite()) {
        const res = await http(stack.baseUrl, 'POST', '/api/auth/logout', { cookie: a.cookie, headers });
        assert.equal(res.status, 403, `${JSON.stringify(headers)}: ${res.text}`);
        assert.deepEqual(res.body, REFUSED_B);
        assert.equal(res.headers.getSetCookie().length, 0, 'the cookie is not cleared');
      }
      assert.equal(await me(), 200, 'still signed in');
      const out = await http(stack.baseUrl, 'POST', '/api/auth/logout', { cookie: a.cookie, headers: sameOrigin() });
      assert.equal(out.status, 204);
      assert.equal(await me(), 401);
    });

    it('signup and login from another origin are refused (no session is made)', async () => {
      const email = uniqueEmail('xsite');
      for (const headers of crossSite()) {
        const up = await http(stack.baseUrl, 'POST', '/api/auth/signup', {
          headers,
          json: { email, password: GOOD_PASSWORD },
        });
        assert.equal(up.status, 403, `${JSON.stringify(headers)}: ${up.text}`);
        assert.deepEqual(up.body, REFUSED_B);
        assert.equal(up.headers.getSetCookie().length, 0);
      }
      // no account was made: the address signs up (a taken one is refused with 409, whatever its case)
      const a = await signup(stack.baseUrl, email);
      const login = await http(stack.baseUrl, 'POST', '/api/auth/login', {
        headers: { origin: 'http://127.0.0.1:1' },
        json: { email: a.email, password: a.password },
      });
      assert.equal(login.status, 403, login.text);
      assert.deepEqual(login.body, REFUSED_B);
      const ok = await http(stack.baseUrl, 'POST', '/api/auth/login', {
        headers: sameOrigin(),
        json: { email: a.email, password: a.password },
      });
      assert.equal(ok.status, 200, ok.text);
    });

    it('every other state-changing session route refuses: Part B {error}, Part A its envelope', async () => {
      const a = await signup(stack.baseUrl);
      const routes: [string, string, unknown, object][] = [
        ['POST', '/api/chat', { prompt: 'Retro sunset surf club' }, REFUSED_B],
        ['POST', '/api/payments/checkout', { kind: 'plan', plan: 'pro' }, REFUSED_B],
        ['POST', '/api/payments/portal', {}, REFUSED_B],
        ['POST', '/api/storefront/connect/install', { shop: 'x.myshopify.com' }, REFUSED_B],
        ['DELETE', '/api/storefront/connect/shc_1_abc', undefined, REFUSED_B],
        ['POST', '/api/storefront/publish', { generationId: 'gen_x', connectionId: 'shc_x', title: 'T' }, REFUSED_B],
        ['POST', '/api/storefront/orders/ord_x/fulfillment', { trackingNumber: '1' }, REFUSED_B],
        ['POST', '/api/v1/keys', { name: 'stolen' }, REFUSED_A],
        ['DELETE', '/api/v1/keys/key_1_abc', undefined, REFUSED_A],
        ['POST', '/api/v1/generate', { garmentId: 'x', designUrl: 'https://x/y.png' }, REFUSED_A],
        ['POST', '/api/v1/preview', {}, REFUSED_A],
        ['POST', '/api/v1/upload', { imageData: 'data:image/png;base64,AAAA' }, REFUSED_A],
      ];
      for (const [method, p, json, refused] of routes)
        for (const headers of crossSite()) {
          const res = await http(stack.baseUrl, method, p, { cookie: a.cookie, headers, json });
          assert.equal(res.status, 403, `${method} ${p} ${JSON.stringify(headers)}: ${res.text}`);
          assert.deepEqual(res.body, refused, `${method} ${p}`);
        }
      // reading is not refused (a GET changes nothing)
      const list = await http(stack.baseUrl, 'GET', '/api/v1/keys', {
        cookie: a.cookie,
        headers: { 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' },
      });
      assert.equal(list.status, 200, list.text);
      assert.deepEqual(list.body.keys, [], 'no key was minted');
    });

    it('the signed webhooks and API-key calls are not session routes: no cross-site refusal', async () => {
      const acct = await account(stack.baseUrl);
      const hostile = { 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' };
      const stripe = await http(stack.baseUrl, 'POST', '/api/payments/webhook', {
        headers: { ...hostile, 'stripe-signature': 't=1,v1=00' },
        json: { id: 'evt_x' },
      });
      assert.notEqual(stripe.status, 403, stripe.text);
      const shop = await http(stack.baseUrl, 'POST', '/api/storefront/webhooks/orders', {
        headers: { ...hostile, 'x-shopify-hmac-sha256': 'AAAA' },
        json: { id: 1 },
      });
      assert.notEqual(shop.status, 403, shop.text);
      // a key is no ambient credential: another origin's request with it is judged by the key
      const keyed = await http(stack.baseUrl, 'POST', '/api/v1/upload', {
        key: acct.key,
        headers: hostile,
        json: { imageData: 'data:image/png;base64,AAAA' },
      });
      assert.notEqual(keyed.status, 403, keyed.text);
    });
  });

  describe('production cookie and headers', () => {
    const prodEnv = (extra: Record<string, string>) => ({
      NODE_ENV: 'production',
      APP_SECRET: stack.config.appSecret,
      DATA_DIR: mkdtempSync(path.join(tmpdir(), 'session-prod-')),
      SHOPIFY_API_KEY: '',
      SHOPIFY_API_SECRET: '',
      TOKEN_ENCRYPTION_KEY: '',
      STRIPE_SECRET_KEY: '',
      STRIPE_WEBHOOK_SECRET: '',
      // the stack's other signups come from the same address: the per-IP signup limit is not under test here
      AUTH_SIGNUPS_PER_IP: '100000',
      ...extra,
    });

    it('production refuses to start without an https PUBLIC_BASE_URL', () => {
      for (const url of ['', 'http://mockups.example.test', 'http://localhost:3000']) {
        assert.throws(
          () => loadConfig(process.env, prodEnv({ PUBLIC_BASE_URL: url })),
          (err: unknown) => err instanceof ConfigError && /PUBLIC_BASE_URL: .*https/.test(err.message),
          url,
        );
      }
      const ok = loadConfig(process.env, prodEnv({ PUBLIC_BASE_URL: 'https://mockups.example.test' }));
      assert.equal(ok.sessionCookieName, '__Host-amk_session');
      assert.equal(ok.https, true);
      // development on http://localhost keeps the plain name
      const dev = loadConfig(process.env, { NODE_ENV: 'development', PUBLIC_BASE_URL: 'http://localhost:3000' });
      assert.equal(dev.sessionCookieName, 'amk_session');
      assert.equal(dev.https, false);
    });

    it('in production the session cookie is __Host-, Secure, HttpOnly, SameSite=Lax, Path=/, and HSTS is sent', async () => {
      const config = loadConfig(process.env, prodEnv({ PUBLIC_BASE_URL: 'https://mockups.example.test' }));
      await withApp(
        {
          sql: stack.sql,
          storage: stack.storage,
          temporal: stack.client,
          config,
          log: createLogger({ level: 'error', write: () => {} }),
        },
        async (base) => {
          const up = await http(base, 'POST', '/api/auth/signup', {
            headers: { origin: 'https://mockups.example.test', 'sec-fetch-site': 'same-origin' },
            json: { email: uniqueEmail('prod'), password: GOOD_PASSWORD },
          });
          assert.equal(up.status, 201, up.text);
          const [set] = up.headers.getSetCookie();
          assert.ok(set, 'a cookie');
          const attrs = set.split(';').map((s) => s.trim());
          assert.match(attrs[0]!, /^__Host-amk_session=[A-Za-z0-9_-]{43}$/);
          for (const a of ['Secure', 'HttpOnly', 'SameSite=Lax', 'Path=/'])
            assert.ok(attrs.includes(a), `${a} in ${set}`);
          assert.ok(!attrs.some((a) => /^domain=/i.test(a)), '__Host- cookies carry no Domain');
          assert.equal(up.headers.get('strict-transport-security'), 'max-age=31536000');
          const health = await http(base, 'GET', '/healthz');
          assert.equal(health.headers.get('strict-transport-security'), 'max-age=31536000');
          // the cookie under its production name is the session; the plain name is not read
          const me = await http(base, 'GET', '/api/auth/me', { cookie: attrs[0]! });
          assert.equal(me.status, 200, me.text);
          const plain = await http(base, 'GET', '/api/auth/me', { cookie: attrs[0]!.replace(/^__Host-/, '') });
          assert.equal(plain.status, 401);
          // the app's origin is PUBLIC_BASE_URL's: the address the server happens to listen on is another origin
          const refused = await http(base, 'POST', '/api/auth/logout', {
            cookie: attrs[0]!,
            headers: { origin: base },
          });
          assert.deepEqual([refused.status, refused.body], [403, REFUSED_B]);
          const out = await http(base, 'POST', '/api/auth/logout', {
            cookie: attrs[0]!,
            headers: { origin: 'https://mockups.example.test' },
          });
          assert.equal(out.status, 204);
          const cleared = out.headers.getSetCookie()[0]!;
          assert.match(cleared, /^__Host-amk_session=;/);
          assert.match(cleared, /Secure/);
        },
      );
    });

    it('in development (http://) the cookie keeps its name, without Secure, and no HSTS', async () => {
      const res = await http(stack.baseUrl, 'POST', '/api/auth/signup', {
        json: { email: uniqueEmail('dev'), password: GOOD_PASSWORD },
      });
      assert.equal(res.status, 201, res.text);
      const set = res.headers.getSetCookie()[0]!;
      assert.match(set, /^amk_session=/);
      assert.doesNotMatch(set, /Secure/);
      assert.match(set, /HttpOnly/);
      assert.match(set, /SameSite=Lax/);
      assert.equal(res.headers.get('strict-transport-security'), null);
    });

    it('/docs has a Content-Security-Policy allowing its inline script by hash, frame-ancestors none, nosniff', async () => {
      const res = await http(stack.baseUrl, 'GET', '/docs');
      assert.equal(res.status, 200);
      const csp = res.headers.get('content-security-policy') ?? '';
      const directives = new Map(
        csp.split(';').map((d) => {
          const [name, ...values] = d.trim().split(/\s+/);
          return [name!, values] as const;
        }),
      );
      assert.deepEqual(directives.get('frame-ancestors'), ["'none'"]);
      assert.deepEqual(directives.get('object-src'), ["'none'"]);
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
      const scripts = directives.get('script-src') ?? [];
      assert.ok(!scripts.includes("'unsafe-inline'"), 'no unsafe-inline scripts');
      const inline = [...res.text.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]!);
      assert.equal(inline.length, 1);
      const hash = `'sha256-${createHash('sha256').update(inline[0]!).digest('base64')}'`;
      assert.ok(scripts.includes(hash), `${hash} in ${csp}`);
      const asset = await http(stack.baseUrl, 'GET', '/docs/assets/standalone.js');
      assert.equal(asset.headers.get('x-content-type-options'), 'nosniff');
    });
  });
});
