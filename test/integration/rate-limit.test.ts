// Part A rate and concurrency limits through HTTP. The real app serves GET /api/v1/garments; routes
// for the other endpoints, and routes that hold a request open or throw, are mounted on a small app made here
// behind the production partA() chain, on the same database, so it is a second API instance for the limiter.
import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import postgres from 'postgres';
import type { AppDeps } from '../../api/context';
import { errorHandler, notFoundHandler } from '../../api/errors';
import { partA, type LimitedEndpoint } from '../../api/middleware/part-a';
import { RateLimits } from '../../api/middleware/rate-limit';
import { Housekeeping } from '../../api/middleware/rate-limit/pg-store';
import { StoreGuard } from '../../api/middleware/rate-limit/store-guard';
import { requireApiKey } from '../../api/auth/api-keys';
import { requestContext } from '../../api/middleware/request-context';
import { createLogger } from '../../lib/log';
import type { Env } from '../../lib/config';
import {
  databaseNowMs,
  endRateLimitWindows,
  insertLeases,
  insertRateLimitWindows,
  latestLeaseExpiry,
  leaseCount,
  rateLimitHits,
  rateLimitKeys,
} from '../helpers/db-inspect';
import { account, createKey, http, type HttpResult } from '../helpers/http';
import { startStack, type Stack } from '../helpers/stack';
import { until as waitUntil } from '../helpers/wait';

type EnvOverrides = Partial<Record<keyof Env, string>>;

// The spec's numbers (also the defaults, see the unit test), given explicitly so that a test helper raising the
// limits for other test files cannot change what these tests see.
const SPEC: EnvOverrides = {
  RATE_LIMIT_PER_MINUTE: '60',
  RATE_LIMIT_PER_HOUR: '1000',
  RATE_LIMIT_CONCURRENCY: '10',
  RATE_LIMIT_GENERATE_PER_MINUTE: '30',
  RATE_LIMIT_ANALYZE_PER_MINUTE: '60',
  RATE_LIMIT_GARMENTS_PER_MINUTE: '60',
  RATE_LIMIT_UPLOAD_PER_MINUTE: '20',
  RATE_LIMIT_ON_STORE_ERROR: 'local',
};

/** The waits of this file: 10 s at most, asking every 20 ms. */
const until = (what: string, cond: () => boolean | Promise<boolean>) =>
  waitUntil(what, cond, { ms: 10_000, every: 20 });

const garments = (s: { baseUrl: string }, key: string) => http(s.baseUrl, 'GET', '/api/v1/garments?limit=1', { key });

function limitHeaders(res: HttpResult) {
  return {
    limit: Number(res.headers.get('x-ratelimit-limit')),
    remaining: Number(res.headers.get('x-ratelimit-remaining')),
    reset: Number(res.headers.get('x-ratelimit-reset')),
  };
}

/** Asserts the 429 shape of the spec: rate_limited, details.retryAfter = Retry-After, X-RateLimit-* present. */
function assertRateLimited(res: HttpResult, scope: string, limit: number) {
  assert.equal(res.status, 429, res.text);
  assert.equal(res.body.error.code, 'rate_limited');
  assert.equal(typeof res.body.error.message, 'string');
  assert.equal(res.body.error.details.scope, scope);
  assert.equal(res.body.error.details.limit, limit);
  const retryAfter = res.body.error.details.retryAfter;
  assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1, `retryAfter ${retryAfter}`);
  assert.equal(res.headers.get('retry-after'), String(retryAfter));
  assert.match(res.headers.get('x-ratelimit-limit') ?? '', /^\d+$/);
  assert.match(res.headers.get('x-ratelimit-remaining') ?? '', /^\d+$/);
  assert.match(res.headers.get('x-ratelimit-reset') ?? '', /^\d{10}$/);
  return retryAfter as number;
}

/**
 * A second API instance for the same database: the production partA() chain in front of test routes, one per
 * limited endpoint, plus /hold (answers when the test opens the gate) and /boom (throws).
 */
class TestApp {
  server!: Server;
  baseUrl!: string;
  readonly gates: (() => void)[] = [];

  constructor(readonly deps: AppDeps) {}

  static async start(
    stack: Stack,
    chainFor?: (endpoint: LimitedEndpoint) => express.RequestHandler[],
  ): Promise<TestApp> {
    const deps: AppDeps = {
      config: stack.config,
      sql: stack.sql,
      storage: stack.storage,
      temporal: stack.client,
      log: createLogger({ level: 'error', write: () => {} }),
    };
    const t = new TestApp(deps);
    const chain = chainFor ?? ((e: LimitedEndpoint) => partA(deps, e));
    const app = express();
    app.use(requestContext(deps.log));
    for (const e of ['generate', 'analyze', 'garments', 'upload', 'other'] as const) {
      app.get(`/t/${e}`, ...chain(e), (_req, res) => {
        res.json({ endpoint: e });
      });
    }
    app.get('/t/hold', ...chain('other'), async (_req, res) => {
      await new Promise<void>((r) => t.gates.push(r));
      res.json({ held: true });
    });
    app.get('/t/hold-analyze', ...chain('analyze'), async (_req, res) => {
      await new Promise<void>((r) => t.gates.push(r));
      res.json({ held: true });
    });
    app.get('/t/boom', ...chain('other'), async () => {
      throw new Error('handler failed on purpose');
    });
    app.use(notFoundHandler);
    app.use(errorHandler);
    t.server = await new Promise((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    t.baseUrl = `http://127.0.0.1:${(t.server.address() as AddressInfo).port}`;
    return t;
  }

  openGates() {
    this.gates.splice(0).forEach((g) => g());
  }

  async stop() {
    this.openGates();
    this.server.closeAllConnections();
    await new Promise((r) => this.server.close(r));
  }
}

describe('rate limits', function () {
  this.timeout(120_000);
  const stacks: Stack[] = [];
  const apps: TestApp[] = [];
  const stack = async (name: string, env: EnvOverrides) => {
    const s = await startStack(name, { worker: false, env: { ...SPEC, ...env } });
    stacks.push(s);
    return s;
  };
  const testApp = async (s: Stack, chainFor?: (e: LimitedEndpoint) => express.RequestHandler[]) => {
    const t = await TestApp.start(s, chainFor);
    apps.push(t);
    return t;
  };
  after(async () => {
    for (const a of apps) await a.stop();
    for (const s of stacks) await s.stop();
  });

  describe('with the spec numbers', () => {
    let s: Stack;
    before(async () => {
      s = await stack('rl-defaults', {});
    });

    it('refuses the 61st call in a minute with 429 rate_limited and the right headers; another key is unaffected', async () => {
      const a = await account(s.baseUrl);
      const b = await account(s.baseUrl);
      for (let i = 1; i <= 60; i++) {
        const res = await garments(s, a.key);
        assert.equal(res.status, 200, `call ${i}: ${res.text}`);
        const h = limitHeaders(res);
        assert.equal(h.limit, 60);
        assert.equal(h.remaining, 60 - i);
      }
      const refused = await garments(s, a.key);
      const retryAfter = assertRateLimited(refused, 'garments-minute', 60);
      assert.ok(retryAfter <= 60);
      const h = limitHeaders(refused);
      assert.deepEqual([h.limit, h.remaining], [60, 0]);
      const nowS = Date.now() / 1000;
      assert.ok(h.reset > nowS && h.reset <= nowS + 61, `reset ${h.reset} is within the minute`);

      const other = await garments(s, b.key);
      assert.equal(other.status, 200);
      assert.deepEqual([limitHeaders(other).limit, limitHeaders(other).remaining], [60, 59]);
    });

    it('does not count or limit key management (session routes), and has no X-RateLimit-* there', async () => {
      const a = await account(s.baseUrl);
      for (let i = 0; i < 65; i++) {
        const res = await http(s.baseUrl, 'GET', '/api/v1/keys', { cookie: a.cookie });
        assert.equal(res.status, 200);
        assert.equal(res.headers.get('x-ratelimit-limit'), null);
      }
      const res = await garments(s, a.key);
      assert.equal(limitHeaders(res).remaining, 59);
    });

    it('leaves unauthenticated requests to the 401 (limits are per key)', async () => {
      const res = await http(s.baseUrl, 'GET', '/api/v1/garments');
      assert.equal(res.status, 401);
      assert.equal(res.headers.get('x-ratelimit-limit'), null);
    });
  });

  describe('per-endpoint budgets', () => {
    let s: Stack;
    let t: TestApp;
    before(async () => {
      s = await stack('rl-endpoints', {
        RATE_LIMIT_PER_MINUTE: '20',
        RATE_LIMIT_GENERATE_PER_MINUTE: '2',
        RATE_LIMIT_ANALYZE_PER_MINUTE: '3',
        RATE_LIMIT_GARMENTS_PER_MINUTE: '4',
        RATE_LIMIT_UPLOAD_PER_MINUTE: '1',
      });
      t = await testApp(s);
    });

    for (const [endpoint, limit] of [
      ['generate', 2],
      ['analyze', 3],
      ['garments', 4],
      ['upload', 1],
    ] as const) {
      it(`${endpoint}: ${limit} a minute per key, reported in the headers, independent of other endpoints`, async () => {
        const a = await account(s.baseUrl);
        for (let i = 1; i <= limit; i++) {
          const res = await http(t.baseUrl, 'GET', `/t/${endpoint}`, { key: a.key });
          assert.equal(res.status, 200, res.text);
          assert.deepEqual([limitHeaders(res).limit, limitHeaders(res).remaining], [limit, limit - i]);
        }
        assertRateLimited(await http(t.baseUrl, 'GET', `/t/${endpoint}`, { key: a.key }), `${endpoint}-minute`, limit);
        // The general budget is still there for other endpoints; the refused call did not consume it.
        const other = await http(t.baseUrl, 'GET', '/t/other', { key: a.key });
        assert.equal(other.status, 200);
        assert.deepEqual([limitHeaders(other).limit, limitHeaders(other).remaining], [20, 20 - limit - 1]);
      });
    }

    it('GET /garments and GET /garments/<id> share the garments budget in the real app', async () => {
      const a = await account(s.baseUrl);
      const list = await garments(s, a.key);
      const id = list.body.garments[0].id;
      assert.deepEqual([limitHeaders(list).limit, limitHeaders(list).remaining], [4, 3]);
      for (const remaining of [2, 1, 0]) {
        const one = await http(s.baseUrl, 'GET', `/api/v1/garments/${id}`, { key: a.key });
        assert.equal(one.status, 200);
        assert.equal(limitHeaders(one).remaining, remaining);
      }
      assertRateLimited(await garments(s, a.key), 'garments-minute', 4);
      assertRateLimited(await http(s.baseUrl, 'GET', `/api/v1/garments/${id}`, { key: a.key }), 'garments-minute', 4);
    });

    it('the general minute budget refuses when endpoints together exceed it', async () => {
      const a = await account(s.baseUrl);
      for (let i = 0; i < 20; i++) assert.equal((await http(t.baseUrl, 'GET', '/t/other', { key: a.key })).status, 200);
      assertRateLimited(await garments(s, a.key), 'minute', 20);
    });

    it('a window that has ended starts again from zero', async () => {
      const a = await account(s.baseUrl);
      await http(t.baseUrl, 'GET', '/t/upload', { key: a.key });
      assertRateLimited(await http(t.baseUrl, 'GET', '/t/upload', { key: a.key }), 'upload-minute', 1);
      // End the window in the database instead of waiting a minute.
      await endRateLimitWindows(`upload-minute:${a.keyId}`);
      const res = await http(t.baseUrl, 'GET', '/t/upload', { key: a.key });
      assert.equal(res.status, 200);
      assert.deepEqual([limitHeaders(res).limit, limitHeaders(res).remaining], [1, 0]);
      assert.equal(await rateLimitHits(`upload-minute:${a.keyId}`), 1);
    });
  });

  describe('batches count by their items', () => {
    it('a batch of N costs N against the generate minute; one that does not fit is refused, uncharged', async () => {
      const s = await stack('rl-batch', { RATE_LIMIT_GENERATE_PER_MINUTE: '5' });
      const a = await account(s.baseUrl);
      const g = (await garments(s, a.key)).body.garments[0];
      const colors = g.colors.filter((c: { available: boolean }) => c.available).slice(0, 3);
      const batch = (n: number) =>
        http(s.baseUrl, 'POST', '/api/v1/generate/batch', {
          key: a.key,
          headers: { prefer: 'respond-async' },
          json: {
            designUrl: g.colors[0].imageUrl,
            garmentId: g.id,
            items: colors.slice(0, n).map((c: { name: string }) => ({ color: c.name })),
          },
        });
      const first = await batch(3);
      assert.equal(first.status, 202, first.text);
      assert.deepEqual([limitHeaders(first).limit, limitHeaders(first).remaining], [5, 2]);
      const before = await http(s.baseUrl, 'GET', '/api/auth/me', { cookie: a.cookie });
      const refused = await batch(3);
      assertRateLimited(refused, 'generate-minute', 5);
      const after = await http(s.baseUrl, 'GET', '/api/auth/me', { cookie: a.cookie });
      assert.equal(after.body.user.tokenBalance, before.body.user.tokenBalance, 'nothing charged');
      // the refused request counted itself, as every refused request does: one item still fits
      const fits = await batch(1);
      assert.equal(fits.status, 202, fits.text);
      assert.equal(limitHeaders(fits).remaining, 0);
      assert.equal(await rateLimitHits(`generate-minute:${a.keyId}`), 5, '3 items, the refused request itself, 1 item');
    });
  });

  describe('the hour window', () => {
    let s: Stack;
    before(async () => {
      s = await stack('rl-hour', { RATE_LIMIT_PER_HOUR: '4' });
    });

    it('counts across minutes, is reported when it is closest to running out, and refuses with an hour-long Retry-After', async () => {
      const a = await account(s.baseUrl);
      for (let i = 1; i <= 4; i++) {
        const res = await garments(s, a.key);
        assert.equal(res.status, 200);
        const h = limitHeaders(res);
        assert.deepEqual(
          [h.limit, h.remaining],
          [4, 4 - i],
          'the hour window has fewer requests left than the minute windows',
        );
        assert.ok(h.reset > Date.now() / 1000 + 3000, 'Reset is the hour window reset');
      }
      const refused = await garments(s, a.key);
      const retryAfter = assertRateLimited(refused, 'hour', 4);
      assert.ok(retryAfter > 3000 && retryAfter <= 3600, `retryAfter ${retryAfter}`);
      assert.ok(limitHeaders(refused).reset > Date.now() / 1000 + 3000);
      // A new minute does not help: end the minute windows and try again.
      await endRateLimitWindows(`minute:${a.keyId}`, `garments-minute:${a.keyId}`);
      assertRateLimited(await garments(s, a.key), 'hour', 4);
    });
  });

  describe('two API instances on one database', () => {
    it('share one budget per key', async () => {
      const env = { RATE_LIMIT_PER_MINUTE: '6' };
      const one = await stack('rl-shared-1', env);
      const two = await stack('rl-shared-2', env);
      assert.notEqual(one.baseUrl, two.baseUrl);
      const a = await account(one.baseUrl);
      const seen: number[] = [];
      for (let i = 0; i < 6; i++) {
        const res = await garments(i % 2 === 0 ? one : two, a.key);
        assert.equal(res.status, 200);
        seen.push(limitHeaders(res).remaining);
      }
      assert.deepEqual(seen, [5, 4, 3, 2, 1, 0], 'each instance sees the calls served by the other');
      assertRateLimited(await garments(two, a.key), 'minute', 6);
      assertRateLimited(await garments(one, a.key), 'minute', 6);
    });
  });

  describe('concurrency', () => {
    let s: Stack;
    let t: TestApp;
    // Every lease recorded for the key, live or expired.
    const leases = (keyId: string) => leaseCount(`concurrency:${keyId}`);

    before(async () => {
      s = await stack('rl-concurrency', { RATE_LIMIT_CONCURRENCY: '3' });
      t = await testApp(s);
    });

    async function hold(key: string, n: number, keyId: string) {
      const before = t.gates.length;
      const pending = Array.from({ length: n }, () => http(t.baseUrl, 'GET', '/t/hold', { key }));
      await until(`${n} requests held`, async () => t.gates.length === before + n && (await leases(keyId)) >= n);
      return pending;
    }

    it('refuses the request over the limit at once with the 429 shape, on any instance; another key is unaffected', async () => {
      const a = await account(s.baseUrl);
      const b = await account(s.baseUrl);
      const held = await hold(a.key, 3, a.keyId);
      const refused = await http(t.baseUrl, 'GET', '/t/other', { key: a.key });
      assert.equal(assertRateLimited(refused, 'concurrency', 3), 1);
      // The real app is another instance: the slots held over there count here too.
      const real = await garments(s, a.key);
      assertRateLimited(real, 'concurrency', 3);
      assert.equal(limitHeaders(real).limit, 60, 'X-RateLimit-* still report the closest window');
      assert.equal(limitHeaders(real).remaining, 60 - 3, 'refused requests did not consume the minute budget');
      assert.equal((await garments(s, b.key)).status, 200);
      t.openGates();
      for (const r of await Promise.all(held)) assert.equal(r.status, 200);
      await until('slots released', async () => (await leases(a.keyId)) === 0);
      assert.equal((await garments(s, a.key)).status, 200);
    });

    it('releases the slot when the handler throws', async () => {
      const a = await account(s.baseUrl);
      const held = await hold(a.key, 2, a.keyId);
      const boom = await http(t.baseUrl, 'GET', '/t/boom', { key: a.key });
      assert.equal(boom.status, 500);
      assert.equal(boom.body.error.code, 'internal_error');
      await until('slot of the failed request released', async () => (await leases(a.keyId)) === 2);
      const third = await hold(a.key, 1, a.keyId);
      t.openGates();
      await Promise.all([...held, ...third]);
    });

    it('releases the slot when the client disconnects', async () => {
      const a = await account(s.baseUrl);
      const aborts = [new AbortController(), new AbortController(), new AbortController()];
      const before = t.gates.length;
      const pending = aborts.map((ac) =>
        http(t.baseUrl, 'GET', '/t/hold', { key: a.key, signal: ac.signal }).catch((e) => e),
      );
      await until('3 held', async () => t.gates.length === before + 3 && (await leases(a.keyId)) === 3);
      assertRateLimited(await garments(s, a.key), 'concurrency', 3);
      aborts.forEach((ac) => ac.abort());
      for (const e of await Promise.all(pending)) assert.equal(e.name, 'AbortError');
      // The handlers are still waiting on their gates: only the disconnect can have freed the slots.
      await until('slots released after the disconnects', async () => (await leases(a.keyId)) === 0);
      assert.equal((await garments(s, a.key)).status, 200);
      t.openGates();
    });

    it('does not count leases that expired (an instance that died mid-request)', async () => {
      const a = await account(s.baseUrl);
      // Three leases that were never released nor renewed, and expired a second ago.
      await insertLeases(`concurrency:${a.keyId}`, { 'dead-1': -1000, 'dead-2': -1000, 'dead-3': -1000 });
      assert.equal(await leases(a.keyId), 3);
      assert.equal((await garments(s, a.key)).status, 200);
      await until('expired leases dropped', async () => (await leases(a.keyId)) === 0);
    });
  });

  describe('account-wide ceilings', () => {
    let s: Stack;
    let t: TestApp;
    // Per key: 5 a minute, generate 2 a minute, 2 at once. Per account: 8 a minute, generate 3 a minute, 3 at once,
    // 2 analyses at once.
    before(async () => {
      s = await stack('rl-account', {
        RATE_LIMIT_PER_MINUTE: '5',
        RATE_LIMIT_GENERATE_PER_MINUTE: '2',
        RATE_LIMIT_CONCURRENCY: '2',
        RATE_LIMIT_ACCOUNT_PER_MINUTE: '8',
        RATE_LIMIT_ACCOUNT_GENERATE_PER_MINUTE: '3',
        RATE_LIMIT_ACCOUNT_CONCURRENCY: '3',
        RATE_LIMIT_ACCOUNT_ANALYZE_CONCURRENCY: '2',
      });
      t = await testApp(s);
    });

    /** An account with `n` API keys. */
    async function accountWithKeys(n: number) {
      const a = await account(s.baseUrl);
      const keys = [a.key];
      for (let i = 1; i < n; i++) keys.push((await createKey(s.baseUrl, a.cookie, { name: `key ${i}` })).key);
      return { ...a, keys };
    }

    // Leases held by the account's requests in flight, over all its keys.
    const accountLeases = (userId: string) => leaseCount(`account-concurrency:${userId}`);

    it('test keys count in windows of their own: test traffic cannot use up the live budget', async () => {
      const a = await account(s.baseUrl);
      const testKeys = [
        (await createKey(s.baseUrl, a.cookie, { name: 'test 1', mode: 'test' })).key,
        (await createKey(s.baseUrl, a.cookie, { name: 'test 2', mode: 'test' })).key,
      ];
      // the account's 8 a minute, spent by its test keys (5 + 3), then refused
      for (let i = 0; i < 5; i++) assert.equal((await garments(s, testKeys[0]!)).status, 200);
      for (let i = 0; i < 3; i++) assert.equal((await garments(s, testKeys[1]!)).status, 200);
      assertRateLimited(await garments(s, testKeys[1]!), 'account-minute', 8);
      // the live key of the same account still has the whole live budget
      for (let i = 0; i < 5; i++) {
        const live = await garments(s, a.key);
        assert.equal(live.status, 200, live.text);
        if (i === 0) assert.deepEqual([limitHeaders(live).limit, limitHeaders(live).remaining], [5, 4]);
      }
    });

    it("several keys of one account share the account's minute budget; another account is unaffected", async () => {
      const a = await accountWithKeys(3);
      const b = await account(s.baseUrl);
      for (let i = 1; i <= 4; i++)
        assert.equal((await http(t.baseUrl, 'GET', '/t/other', { key: a.keys[0] })).status, 200);
      let last: HttpResult | undefined;
      for (let i = 1; i <= 4; i++) {
        last = await http(t.baseUrl, 'GET', '/t/other', { key: a.keys[1] });
        assert.equal(last.status, 200, last.text);
      }
      // The second key has 1 of its own 5 left, the account 0 of 8: the headers report the account's window.
      assert.deepEqual([limitHeaders(last!).limit, limitHeaders(last!).remaining], [8, 0]);
      // A third key that has made no call, on the other instance (the real app): refused by the account's window.
      const refused = await garments(s, a.keys[2]!);
      const retryAfter = assertRateLimited(refused, 'account-minute', 8);
      assert.ok(retryAfter <= 60);
      assert.match(refused.body.error.message, /per account/);
      assert.deepEqual([limitHeaders(refused).limit, limitHeaders(refused).remaining], [8, 0]);
      // The first key still has 1 of its own: the account refuses it too.
      assertRateLimited(await http(t.baseUrl, 'GET', '/t/other', { key: a.keys[0] }), 'account-minute', 8);
      const other = await garments(s, b.key);
      assert.equal(other.status, 200, other.text);
      assert.deepEqual([limitHeaders(other).limit, limitHeaders(other).remaining], [5, 4]);
    });

    it("several keys of one account share the account's generate budget", async () => {
      const a = await accountWithKeys(2);
      for (let i = 0; i < 2; i++)
        assert.equal((await http(t.baseUrl, 'GET', '/t/generate', { key: a.keys[0] })).status, 200);
      assert.equal((await http(t.baseUrl, 'GET', '/t/generate', { key: a.keys[1] })).status, 200);
      assertRateLimited(await http(t.baseUrl, 'GET', '/t/generate', { key: a.keys[1] }), 'account-generate-minute', 3);
      // The account's other budgets are still there.
      assert.equal((await http(t.baseUrl, 'GET', '/t/other', { key: a.keys[1] })).status, 200);
    });

    it('several keys of one account share its concurrency; another account is unaffected', async () => {
      const a = await accountWithKeys(2);
      const b = await account(s.baseUrl);
      const before = t.gates.length;
      const held = [
        http(t.baseUrl, 'GET', '/t/hold', { key: a.keys[0] }),
        http(t.baseUrl, 'GET', '/t/hold', { key: a.keys[0] }),
        http(t.baseUrl, 'GET', '/t/hold', { key: a.keys[1] }),
      ];
      await until('3 held', async () => t.gates.length === before + 3 && (await accountLeases(a.userId)) === 3);
      // The second key holds 1 of its own 2 slots, but the account's 3 are taken, on either instance.
      const refused = await garments(s, a.keys[1]!);
      assert.equal(assertRateLimited(refused, 'account-concurrency', 3), 1);
      assertRateLimited(await http(t.baseUrl, 'GET', '/t/other', { key: a.keys[1] }), 'account-concurrency', 3);
      // Refused requests took no slot and counted in no window: 1 of the key's 5 minute calls is used (its hold).
      assert.deepEqual([limitHeaders(refused).limit, limitHeaders(refused).remaining], [5, 4]);
      assert.equal(await accountLeases(a.userId), 3);
      assert.equal((await garments(s, b.key)).status, 200);
      t.openGates();
      for (const r of await Promise.all(held)) assert.equal(r.status, 200);
      await until('slots released', async () => (await accountLeases(a.userId)) === 0);
      assert.equal((await garments(s, a.keys[1]!)).status, 200);
    });

    it('bounds the analyses an account has in flight, whatever its keys', async () => {
      const a = await accountWithKeys(3);
      const b = await account(s.baseUrl);
      const before = t.gates.length;
      const held = [
        http(t.baseUrl, 'GET', '/t/hold-analyze', { key: a.keys[0] }),
        http(t.baseUrl, 'GET', '/t/hold-analyze', { key: a.keys[1] }),
      ];
      await until('2 analyses held', async () => t.gates.length === before + 2);
      assertRateLimited(
        await http(t.baseUrl, 'GET', '/t/analyze', { key: a.keys[2] }),
        'account-analyze-concurrency',
        2,
      );
      // Other calls of the account still have its third slot; another account analyzes.
      assert.equal((await http(t.baseUrl, 'GET', '/t/other', { key: a.keys[2] })).status, 200);
      assert.equal((await http(t.baseUrl, 'GET', '/t/analyze', { key: b.key })).status, 200);
      t.openGates();
      await Promise.all(held);
      await until('analysis slots released', async () => (await accountLeases(a.userId)) === 0);
      assert.equal((await http(t.baseUrl, 'GET', '/t/analyze', { key: a.keys[2] })).status, 200);
    });
  });

  describe('account-wide ceilings weigh batches too', () => {
    it("a batch that does not fit the account's generate budget is refused, uncharged", async () => {
      const s = await stack('rl-account-batch', {
        RATE_LIMIT_GENERATE_PER_MINUTE: '5',
        RATE_LIMIT_ACCOUNT_GENERATE_PER_MINUTE: '5',
      });
      const a = await account(s.baseUrl);
      const second = await createKey(s.baseUrl, a.cookie, { name: 'second' });
      const g = (await garments(s, a.key)).body.garments[0];
      const colors = g.colors.filter((c: { available: boolean }) => c.available).slice(0, 3);
      const batch = (key: string, n: number) =>
        http(s.baseUrl, 'POST', '/api/v1/generate/batch', {
          key,
          headers: { prefer: 'respond-async' },
          json: {
            designUrl: g.colors[0].imageUrl,
            garmentId: g.id,
            items: colors.slice(0, n).map((c: { name: string }) => ({ color: c.name })),
          },
        });
      const first = await batch(a.key, 3);
      assert.equal(first.status, 202, first.text);
      const before = await http(s.baseUrl, 'GET', '/api/auth/me', { cookie: a.cookie });
      // The second key has its own 5, but the account has 2 left.
      const refused = await batch(second.key, 3);
      assertRateLimited(refused, 'account-generate-minute', 5);
      const after = await http(s.baseUrl, 'GET', '/api/auth/me', { cookie: a.cookie });
      assert.equal(after.body.user.tokenBalance, before.body.user.tokenBalance, 'nothing charged');
      assert.equal(
        await rateLimitHits(`generate-minute:${second.id}`),
        1,
        "the refused batch's items were not counted against the key either",
      );
    });
  });

  describe('housekeeping', () => {
    it('purges ended windows and slot rows without live leases, and keeps the rest', async () => {
      const s = await stack('rl-purge', {});
      const tag = `purge-${Date.now()}`;
      await insertRateLimitWindows([
        { key: `${tag}:ended`, hits: 3, endsInMs: -1000 },
        { key: `${tag}:live`, hits: 3, endsInMs: 60_000 },
      ]);
      await insertLeases(`${tag}:dead`, { a: -1000 });
      await insertLeases(`${tag}:busy`, { a: -1000, b: 60_000 });
      await new Housekeeping(
        s.sql,
        new StoreGuard({ timeoutMs: 1000, mode: 'local', log: createLogger({ level: 'error', write: () => {} }) }),
      ).purge();
      assert.deepEqual(await rateLimitKeys(tag), { windows: [`${tag}:live`], slots: [`${tag}:busy`] });
    });
  });

  describe('a request that outlives its lease', () => {
    it('keeps its slot: the lease is renewed while the request runs', async () => {
      const s = await stack('rl-renew', { RATE_LIMIT_CONCURRENCY: '1', RATE_LIMIT_LEASE_SECONDS: '3' });
      const t = await testApp(s);
      const a = await account(s.baseUrl);
      const expiry = () => latestLeaseExpiry(`concurrency:${a.keyId}`);
      const held = http(t.baseUrl, 'GET', '/t/hold', { key: a.key });
      await until('held', async () => (await expiry()) !== null && t.gates.length === 1);
      const first = (await expiry())!;
      await until('lease renewed', async () => ((await expiry()) ?? 0) > first);
      // Past the original expiry the slot is still taken.
      await until('original lease time over', async () => (await databaseNowMs()) > first);
      assertRateLimited(await garments(s, a.key), 'concurrency', 1);
      t.openGates();
      assert.equal((await held).status, 200);
    });
  });

  describe('database unavailable for the limiter', () => {
    let s: Stack;
    const deadSql = postgres('postgres://nobody:nothing@127.0.0.1:1/none', {
      max: 1,
      connect_timeout: 2,
      onnotice: () => {},
    });
    after(() => deadSql.end({ timeout: 0 }));

    before(async () => {
      s = await stack('rl-db-down', { RATE_LIMIT_PER_MINUTE: '3' });
    });

    async function appWithDeadStore(mode: 'local' | 'closed', lines: any[]) {
      const log = createLogger({ level: 'warn', write: (l) => lines.push(JSON.parse(l)) });
      const config = { ...s.config, rateLimit: { ...s.config.rateLimit, onStoreError: mode } };
      // Authentication uses the working database; only the limiter's queries fail.
      const authDeps: AppDeps = { config, sql: s.sql, storage: s.storage, temporal: s.client, log };
      const limits = new RateLimits({ config, sql: deadSql, log });
      return testApp(s, (e) => [requireApiKey(authDeps), ...limits.chain(e)]);
    }

    it('local mode: keeps serving, enforces the limits per process, and logs the outage', async () => {
      const lines: any[] = [];
      const t = await appWithDeadStore('local', lines);
      const a = await account(s.baseUrl);
      for (let i = 1; i <= 3; i++) {
        const res = await http(t.baseUrl, 'GET', '/t/other', { key: a.key });
        assert.equal(res.status, 200, res.text);
        assert.equal(limitHeaders(res).remaining, 3 - i);
      }
      assertRateLimited(await http(t.baseUrl, 'GET', '/t/other', { key: a.key }), 'minute', 3);
      const outage = lines.filter((l) => l.msg === 'rate limit store unavailable');
      assert.equal(outage.length, 1);
      assert.equal(outage[0].level, 'error');
      assert.equal(outage[0].mode, 'local');
    });

    it('closed mode: answers 503 service_unavailable in the envelope', async () => {
      const lines: any[] = [];
      const t = await appWithDeadStore('closed', lines);
      const a = await account(s.baseUrl);
      const res = await http(t.baseUrl, 'GET', '/t/other', { key: a.key });
      assert.equal(res.status, 503);
      assert.equal(res.body.error.code, 'service_unavailable');
      assert.equal(res.headers.get('retry-after'), '1');
      assert.ok(lines.some((l) => l.msg === 'rate limit store unavailable'));
    });
  });
});
