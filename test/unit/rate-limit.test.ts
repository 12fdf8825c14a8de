// Rate-limit building blocks without a database: header choice, the 429 shape, per-process counters, the store
// guard (timeouts, fallback, closed mode, logging) and the concurrency middleware in a tiny Express app.
import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import type { Sql } from '../../db/client';
import { ApiError, errorHandler } from '../../api/errors';
import { concurrencyLimiter } from '../../api/middleware/rate-limit/concurrency';
import { MemorySlots, MemoryWindows, type Lease, type SlotPool } from '../../api/middleware/rate-limit/memory';
import { PgSlots } from '../../api/middleware/rate-limit/pg-slots';
import { RateLimits } from '../../api/middleware/rate-limit';
import { Housekeeping, PgWindowStore } from '../../api/middleware/rate-limit/pg-store';
import {
  closestToRunningOut,
  rateLimited,
  rateLimitHeaders,
  secondsUntil,
} from '../../api/middleware/rate-limit/report';
import { StoreGuard } from '../../api/middleware/rate-limit/store-guard';
import { loadConfig } from '../../lib/config';
import { createLogger, type Logger } from '../../lib/log';
import { until as waitUntil } from '../helpers/wait';

function captureLog(): { log: Logger; lines: Record<string, any>[] } {
  const lines: Record<string, any>[] = [];
  return { lines, log: createLogger({ level: 'debug', write: (l) => lines.push(JSON.parse(l)) }) };
}

/** A `postgres` tag whose queries all fail, or never answer. */
function brokenSql(kind: 'refuse' | 'hang'): Sql {
  const tag = () =>
    kind === 'refuse'
      ? Promise.reject(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }))
      : new Promise(() => {});
  return tag as unknown as Sql;
}

/** The waits of this file: 5 s at most, asking every 10 ms. */
const until = (what: string, cond: () => boolean | Promise<boolean>) => waitUntil(what, cond, { ms: 5000, every: 10 });

describe('rate limit: configuration', () => {
  it('defaults to the spec numbers and lets the environment lower them', () => {
    const c = loadConfig({ NODE_ENV: 'test', APP_SECRET: 'x'.repeat(32) });
    assert.deepEqual(c.rateLimit, {
      perMinute: 60,
      perHour: 1000,
      concurrency: 10,
      endpointPerMinute: { generate: 30, analyze: 60, garments: 60, upload: 20, preview: 120 },
      account: {
        perMinute: 180,
        perHour: 3000,
        concurrency: 30,
        analyzeConcurrency: 10,
        endpointPerMinute: { generate: 90, analyze: 180, garments: 180, upload: 60, preview: 360 },
      },
      leaseMs: 30_000,
      storeTimeoutMs: 500,
      onStoreError: 'local',
    });
    const low = loadConfig({
      NODE_ENV: 'test',
      APP_SECRET: 'x'.repeat(32),
      RATE_LIMIT_PER_MINUTE: '5',
      RATE_LIMIT_ON_STORE_ERROR: 'closed',
    });
    assert.equal(low.rateLimit.perMinute, 5);
    assert.equal(low.rateLimit.account.perMinute, 15, 'account ceilings follow the per-key figures by default');
    assert.equal(low.rateLimit.onStoreError, 'closed');
    const own = loadConfig({
      NODE_ENV: 'test',
      APP_SECRET: 'x'.repeat(32),
      RATE_LIMIT_ACCOUNT_PER_MINUTE: '100',
      RATE_LIMIT_ACCOUNT_CONCURRENCY: '12',
      RATE_LIMIT_ACCOUNT_ANALYZE_CONCURRENCY: '4',
      RATE_LIMIT_ACCOUNT_GENERATE_PER_MINUTE: '40',
    });
    assert.deepEqual(
      [own.rateLimit.account.perMinute, own.rateLimit.account.concurrency, own.rateLimit.account.analyzeConcurrency],
      [100, 12, 4],
    );
    assert.equal(own.rateLimit.account.endpointPerMinute.generate, 40);
    assert.throws(
      () => loadConfig({ APP_SECRET: 'x'.repeat(32), RATE_LIMIT_ACCOUNT_CONCURRENCY: '0' }),
      /RATE_LIMIT_ACCOUNT_CONCURRENCY/,
    );
    assert.throws(
      () => loadConfig({ APP_SECRET: 'x'.repeat(32), RATE_LIMIT_CONCURRENCY: '0' }),
      /RATE_LIMIT_CONCURRENCY/,
    );
    assert.throws(
      () => loadConfig({ APP_SECRET: 'x'.repeat(32), RATE_LIMIT_ON_STORE_ERROR: 'open' }),
      /RATE_LIMIT_ON_STORE_ERROR/,
    );
  });
});

describe('rate limit: what the client is told', () => {
  const at = (s: number) => new Date(1_700_000_000_000 + s * 1000);

  it('reports the window with the fewest requests left', () => {
    const w = closestToRunningOut([
      { name: 'garments-minute', limit: 60, remaining: 12, resetTime: at(30) },
      { name: 'minute', limit: 60, remaining: 3, resetTime: at(40) },
      { name: 'hour', limit: 1000, remaining: 900, resetTime: at(3000) },
    ]);
    assert.equal(w?.name, 'minute');
  });

  it('on a tie reports the window that resets later (the real wait)', () => {
    const w = closestToRunningOut([
      { name: 'minute', limit: 60, remaining: 0, resetTime: at(40) },
      { name: 'hour', limit: 5, remaining: 0, resetTime: at(3000) },
    ]);
    assert.equal(w?.name, 'hour');
    assert.equal(closestToRunningOut([]), undefined);
  });

  it('formats X-RateLimit-* with Reset in whole Unix seconds', () => {
    assert.deepEqual(
      rateLimitHeaders({ name: 'minute', limit: 60, remaining: 7, resetTime: new Date(1_700_000_000_400) }),
      {
        'X-RateLimit-Limit': '60',
        'X-RateLimit-Remaining': '7',
        'X-RateLimit-Reset': '1700000001',
      },
    );
  });

  it('never advises Retry-After 0', () => {
    const now = 1_000_000;
    assert.equal(secondsUntil(new Date(now + 100), now), 1);
    assert.equal(secondsUntil(new Date(now - 5000), now), 1);
    assert.equal(secondsUntil(new Date(now + 59_001), now), 60);
  });

  it('builds 429 rate_limited with details.retryAfter equal to Retry-After', () => {
    const reported = { name: 'minute', limit: 60, remaining: 0, resetTime: new Date(Date.now() + 42_000) };
    const err = rateLimited({ scope: 'minute', limit: 60, retryAfter: 42, reported });
    assert.ok(err instanceof ApiError);
    assert.equal(err.status, 429);
    assert.equal(err.code, 'rate_limited');
    assert.equal(err.details?.retryAfter, 42);
    assert.equal(err.headers?.['Retry-After'], '42');
    assert.equal(err.headers?.['X-RateLimit-Remaining'], '0');
    assert.match(err.message, /60 requests per minute/);
    assert.match(
      rateLimited({ scope: 'upload-minute', limit: 20, retryAfter: 1 }).message,
      /20 upload requests per minute/,
    );
    assert.match(rateLimited({ scope: 'concurrency', limit: 10, retryAfter: 1 }).message, /10 concurrent requests/);
    assert.match(
      rateLimited({ scope: 'account-generate-minute', limit: 90, retryAfter: 1 }).message,
      /90 generate requests per minute per account/,
    );
    assert.match(
      rateLimited({ scope: 'account-concurrency', limit: 30, retryAfter: 1 }).message,
      /30 concurrent requests per account/,
    );
    assert.match(
      rateLimited({ scope: 'account-analyze-concurrency', limit: 10, retryAfter: 1 }).message,
      /10 concurrent analyze requests per account/,
    );
  });
});

describe('rate limit: per-process counters', () => {
  it('MemoryWindows counts in fixed windows that restart after they end', () => {
    let now = 0;
    const w = new MemoryWindows(1000, 100, () => now);
    assert.equal(w.increment('a').totalHits, 1);
    assert.equal(w.increment('a').totalHits, 2);
    assert.equal(w.increment('b').totalHits, 1);
    assert.equal(w.get('a')?.resetTime.getTime(), 1000);
    now = 999;
    assert.equal(w.increment('a').totalHits, 3);
    now = 1000;
    assert.equal(w.get('a'), undefined);
    const fresh = w.increment('a');
    assert.equal(fresh.totalHits, 1);
    assert.equal(fresh.resetTime.getTime(), 2000);
  });

  it('MemoryWindows drops expired entries when full', () => {
    let now = 0;
    const w = new MemoryWindows(1000, 3, () => now);
    for (const k of ['a', 'b', 'c']) w.increment(k);
    now = 5000;
    w.increment('d');
    assert.equal(w.size, 1);
  });

  it('MemorySlots refuses above the limit; release is idempotent', () => {
    const s = new MemorySlots();
    const a = s.tryAcquire('k', 2)!;
    const b = s.tryAcquire('k', 2)!;
    assert.ok(a && b);
    assert.equal(s.tryAcquire('k', 2), null);
    assert.ok(s.tryAcquire('other', 2), 'keys are independent');
    a.release();
    a.release();
    assert.equal(s.count('k'), 1);
    assert.ok(s.tryAcquire('k', 2));
  });
});

describe('rate limit: database unavailable', () => {
  it('local mode: the window store falls back to per-process counts and logs the outage once', async () => {
    const { log, lines } = captureLog();
    const guard = new StoreGuard({ timeoutMs: 1000, mode: 'local', log });
    const store = new PgWindowStore({ sql: brokenSql('refuse'), guard, prefix: 'minute:', windowMs: 60_000 });
    for (let i = 1; i <= 3; i++) assert.equal((await store.increment('key_a')).totalHits, i);
    assert.equal((await store.increment('key_b')).totalHits, 1);
    assert.equal((await store.get('key_a'))?.totalHits, 3);
    assert.ok(guard.unavailable);
    const errors = lines.filter((l) => l.level === 'error');
    assert.equal(errors.length, 1, 'one line per outage, not per request');
    assert.equal(errors[0]!.msg, 'rate limit store unavailable');
    assert.match(errors[0]!.err.message, /ECONNREFUSED/);
  });

  it('a query that hangs counts as a failure after the timeout', async () => {
    const { log, lines } = captureLog();
    const guard = new StoreGuard({ timeoutMs: 20, mode: 'local', log });
    const store = new PgWindowStore({ sql: brokenSql('hang'), guard, prefix: 'minute:', windowMs: 60_000 });
    assert.equal((await store.increment('key_a')).totalHits, 1);
    assert.match(lines[0]!.err.message, /longer than 20 ms/);
  });

  it('closed mode: answers 503 service_unavailable with Retry-After', async () => {
    const { log } = captureLog();
    const guard = new StoreGuard({ timeoutMs: 1000, mode: 'closed', log });
    const store = new PgWindowStore({ sql: brokenSql('refuse'), guard, prefix: 'minute:', windowMs: 60_000 });
    await assert.rejects(
      store.increment('key_a'),
      (e: ApiError) => e.status === 503 && e.code === 'service_unavailable' && e.headers?.['Retry-After'] === '1',
    );
  });

  it('reminds while the outage lasts and says when it is over', async () => {
    const { log, lines } = captureLog();
    let now = 0;
    const guard = new StoreGuard({ timeoutMs: 1000, mode: 'local', log, reportEveryMs: 30_000, now: () => now });
    const fail = () => guard.run('increment', () => Promise.reject(new Error('down')));
    await fail();
    now = 10_000;
    await fail();
    now = 31_000;
    await fail();
    now = 40_000;
    await guard.run('increment', async () => 1);
    await guard.run('increment', async () => 1);
    assert.deepEqual(
      lines.map((l) => l.msg),
      ['rate limit store unavailable', 'rate limit store still unavailable', 'rate limit store recovered'],
    );
    assert.equal(lines[2]!.downForMs, 40_000);
    assert.equal(lines[2]!.decisionsWithoutStore, 3);
    assert.equal(guard.unavailable, false);
  });

  it('during an outage only one request per probe interval waits for the database', async () => {
    const { log } = captureLog();
    let now = 0;
    let calls = 0;
    const guard = new StoreGuard({ timeoutMs: 1000, mode: 'local', log, probeEveryMs: 1000, now: () => now });
    const op = () => {
      calls++;
      return Promise.reject(new Error('down'));
    };
    assert.deepEqual(await guard.run('increment', op), { ok: false });
    now = 500;
    assert.deepEqual(await guard.run('increment', op), { ok: false });
    assert.equal(calls, 1, 'decided without asking the database');
    now = 1000;
    await guard.run('increment', op);
    assert.equal(calls, 2, 'the probe');
    now = 2000;
    assert.deepEqual(await guard.run('increment', async () => 'back'), { ok: true, value: 'back' });
    assert.equal(guard.unavailable, false);
  });

  it('slots fall back to per-process counting, and a lease acquired after the timeout is handed back', async () => {
    const { log } = captureLog();
    const guard = new StoreGuard({ timeoutMs: 20, mode: 'local', log });
    const queries: string[] = [];
    let answerAcquire: ((rows: { ok: boolean }[]) => void) | undefined;
    const sql = ((strings: TemplateStringsArray) => {
      const text = strings.join('?');
      queries.push(text);
      if (text.includes('rate_limit_acquire')) return new Promise((r) => (answerAcquire = r));
      return Promise.resolve([]);
    }) as unknown as Sql;
    const slots = new PgSlots({ sql, guard, leaseMs: 30_000 });
    const lease = await slots.acquire('concurrency:key_a', 1);
    assert.ok(lease, 'served from the per-process pool');
    assert.equal(await slots.acquire('concurrency:key_a', 1), null, 'the per-process pool enforces the limit');
    answerAcquire!([{ ok: true }]);
    await until('late lease released', () => queries.some((q) => q.includes('set leases = s.leases - r.ids')));
    lease.release();
    assert.equal(slots.local.count('concurrency:key_a'), 0);
  });
});

describe('rate limit: slot releases', () => {
  it('sends the releases of one event-loop turn in one statement', async () => {
    const releases: string[][] = [];
    const sql = ((strings: TemplateStringsArray, ...values: unknown[]) => {
      const text = strings.join('?');
      if (text.includes('rate_limit_acquire')) return Promise.resolve([{ ok: true }]);
      if (text.includes('set leases = s.leases - r.ids')) releases.push(values[1] as string[]);
      return Promise.resolve([]);
    }) as unknown as Sql;
    const slots = new PgSlots({
      sql,
      guard: new StoreGuard({ timeoutMs: 1000, mode: 'local', log: captureLog().log }),
      leaseMs: 30_000,
    });
    const leases = await Promise.all([
      slots.acquire('concurrency:a', 5),
      slots.acquire('concurrency:a', 5),
      slots.acquire('concurrency:b', 5),
    ]);
    for (const l of leases) l!.release();
    leases[0]!.release(); // idempotent
    await until('flushed', () => releases.length > 0);
    await new Promise((r) => setImmediate(r));
    assert.equal(releases.length, 1);
    assert.equal(releases[0]!.length, 3);
  });
});

describe('rate limit: housekeeping', () => {
  it('purges at most once per interval, riding on traffic', async () => {
    const queries: string[] = [];
    const sql = ((strings: TemplateStringsArray) => (
      queries.push(strings.join('?')),
      Promise.resolve([])
    )) as unknown as Sql;
    let now = 0;
    const h = new Housekeeping(
      sql,
      new StoreGuard({ timeoutMs: 1000, mode: 'local', log: captureLog().log }),
      60_000,
      () => now,
    );
    h.tick();
    now = 59_999;
    h.tick();
    assert.equal(queries.length, 0, 'not at start-up, not before the interval');
    now = 60_000;
    h.tick();
    h.tick();
    await until('purge ran', () => queries.length === 2);
    assert.match(queries[0]!, /delete from rate_limit_hits/);
    assert.match(queries[1]!, /delete from rate_limit_slots/);
  });
});

describe('rate limit: one round trip per request', () => {
  it('takes the slots and counts endpoint, minute and hour windows of key and account in one query, and reports from it', async () => {
    const hits = new Map<string, number>();
    const queries: string[] = [];
    const taken: string[] = [];
    const released: string[] = [];
    const sql = ((strings: TemplateStringsArray, ...values: unknown[]) => {
      const text = strings.join('?');
      queries.push(text);
      if (text.includes('set leases = s.leases - r.ids'))
        released.push(...(values[0] as string[]).map((k, i) => `${k} ${(values[1] as string[])[i]}`));
      if (text.includes('rate_limit_admit')) {
        const [slotKeys, , leaseId, , keys] = values as [string[], number[], string, number, string[]];
        for (const k of slotKeys) taken.push(`${k} ${leaseId}`);
        const windows = keys.map((k) => ({
          outKey: k,
          outHits: (hits.set(k, (hits.get(k) ?? 0) + 1), hits.get(k)!),
          outMsLeft: 30_000,
        }));
        return Promise.resolve([...slotKeys.map((k) => ({ outKey: k, outHits: 1, outMsLeft: 0 })), ...windows]);
      }
      return Promise.resolve([]);
    }) as unknown as Sql;
    const config = loadConfig({ NODE_ENV: 'test', APP_SECRET: 'x'.repeat(32), RATE_LIMIT_GARMENTS_PER_MINUTE: '2' });
    const limits = new RateLimits({ config, sql, log: captureLog().log });
    const app = express();
    app.get(
      '/g',
      (req, _res, next) => {
        req.apiKeyId = 'key_unit';
        req.user = { id: 'user_unit', email: 'u@example.test', plan: 'free', createdAt: new Date() };
        next();
      },
      ...limits.chain('garments'),
      (_req, res) => {
        res.json({});
      },
    );
    app.use(errorHandler);
    const server: Server = await new Promise((resolve) => {
      const x = app.listen(0, '127.0.0.1', () => resolve(x));
    });
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/g`;
      const first = await fetch(url);
      assert.equal(first.status, 200);
      assert.equal(first.headers.get('x-ratelimit-limit'), '2');
      assert.equal(first.headers.get('x-ratelimit-remaining'), '1');
      assert.equal(
        queries.filter((q) => /rate_limit_(admit|hit|acquire)/.test(q)).length,
        1,
        'one query for the two slots and six windows',
      );
      assert.deepEqual(
        [...hits.keys()],
        [
          'garments-minute:key_unit',
          'minute:key_unit',
          'account-garments-minute:user_unit',
          'account-minute:user_unit',
          'hour:key_unit',
          'account-hour:user_unit',
        ],
        'short windows first, a key before its account',
      );
      await fetch(url);
      const third = await fetch(url);
      assert.equal(third.status, 429);
      assert.equal(queries.filter((q) => q.includes('rate_limit_admit')).length, 3);
      await until('every lease released', () => released.length === 6);
      assert.deepEqual(released.sort(), taken.sort());
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});

describe('rate limit: concurrency middleware', () => {
  let server: Server;
  let base: string;
  const pool = new MemorySlots();
  const gates: (() => void)[] = [];
  const entered: string[] = [];

  before(async () => {
    const app = express();
    const limiter = concurrencyLimiter({
      pool,
      limit: 2,
      key: (req) => String(req.headers['x-key']),
      refuse: () => rateLimited({ scope: 'concurrency', limit: 2, retryAfter: 1 }),
    });
    app.get('/hold', limiter, async (req, res) => {
      entered.push(String(req.headers['x-key']));
      await new Promise<void>((r) => gates.push(r));
      res.json({ ok: true });
    });
    app.get('/fast', limiter, (_req, res) => {
      res.json({ ok: true });
    });
    app.get('/boom', limiter, async () => {
      throw new Error('handler failed');
    });
    app.use(errorHandler);
    server = await new Promise((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    gates.forEach((g) => g());
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  const get = (path: string, key: string, signal?: AbortSignal) =>
    fetch(base + path, { headers: { 'x-key': key }, signal });
  const openGates = () => gates.splice(0).forEach((g) => g());

  it('refuses at once above the limit with 429 rate_limited, and frees slots when responses end', async () => {
    const held = [get('/hold', 'a'), get('/hold', 'a')];
    await until('both held', () => pool.count('a') === 2 && gates.length === 2);
    const refused = await get('/fast', 'a');
    assert.equal(refused.status, 429);
    assert.equal(refused.headers.get('retry-after'), '1');
    const body: any = await refused.json();
    assert.equal(body.error.code, 'rate_limited');
    assert.equal(body.error.details.retryAfter, 1);
    assert.equal((await get('/fast', 'b')).status, 200, 'another key is not affected');
    openGates();
    for (const r of await Promise.all(held)) assert.equal(r.status, 200);
    await until('slots freed', () => pool.count('a') === 0);
    assert.equal((await get('/fast', 'a')).status, 200);
  });

  it('frees the slot when the handler throws', async () => {
    const res = await get('/boom', 'c');
    assert.equal(res.status, 500);
    assert.equal(((await res.json()) as any).error.code, 'internal_error');
    await until('slot freed', () => pool.count('c') === 0);
  });

  it('frees the slot when the client disconnects mid-request', async () => {
    const ac = new AbortController();
    const pending = get('/hold', 'd', ac.signal).catch((e) => e);
    await until('held', () => pool.count('d') === 1 && entered.includes('d'));
    ac.abort();
    assert.equal((await pending).name, 'AbortError');
    await until('slot freed after abort', () => pool.count('d') === 0);
    openGates();
  });

  it('frees a slot acquired after the client already left', async () => {
    let grant: ((l: Lease | null) => void) | undefined;
    let released = 0;
    const slow: SlotPool = { acquire: () => new Promise((r) => (grant = r)) };
    let clientGone = false;
    const app = express();
    app.use((_req, res, next) => {
      res.once('close', () => (clientGone = true));
      next();
    });
    app.get(
      '/x',
      concurrencyLimiter({ pool: slow, limit: 1, key: () => 'k', refuse: () => new Error('no') }),
      (_req, res) => {
        res.json({});
      },
    );
    const s: Server = await new Promise((resolve) => {
      const x = app.listen(0, '127.0.0.1', () => resolve(x));
    });
    try {
      const ac = new AbortController();
      const pending = fetch(`http://127.0.0.1:${(s.address() as AddressInfo).port}/x`, { signal: ac.signal }).catch(
        (e) => e,
      );
      await until('acquire started', () => grant !== undefined);
      ac.abort();
      await pending;
      await until('server saw the disconnect', () => clientGone);
      grant!({ release: () => released++ });
      await until('late slot released', () => released === 1);
    } finally {
      s.closeAllConnections();
      await new Promise((r) => s.close(r));
    }
  });
});
