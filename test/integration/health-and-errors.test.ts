import assert from 'node:assert/strict';
import { createSql } from '../../db/client';
import { createLogger } from '../../lib/log';
import { account, http } from '../helpers/http';
import { startStack, withApp, type Stack } from '../helpers/stack';
import { sleep } from '../helpers/wait';

describe('health, readiness and the error envelope', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack('health');
  });
  after(async () => stack?.stop());

  it('GET /healthz answers 200 while the process lives', async () => {
    const res = await http(stack.baseUrl, 'GET', '/healthz');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { status: 'ok' });
  });

  it('GET /readyz answers 200 when PostgreSQL answers and a worker polls the task queue', async () => {
    const res = await http(stack.baseUrl, 'GET', '/readyz');
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.status, 'ready');
    assert.equal(res.body.checks.database.ok, true);
    assert.ok(res.body.checks.worker.pollers >= 1);
  });

  it('GET /readyz answers 503 naming the worker when no worker polls', async () => {
    const lonely = await startStack('health-noworker', { worker: false });
    try {
      const res = await http(lonely.baseUrl, 'GET', '/readyz');
      assert.equal(res.status, 503);
      assert.deepEqual(res.body.missing, ['worker']);
      assert.equal(res.body.checks.database.ok, true);
      assert.match(res.body.checks.worker.error, /no worker is polling task queue/);
    } finally {
      await lonely.stop();
    }
  });

  it('GET /readyz answers 503 naming the database when PostgreSQL does not answer', async () => {
    // A pool pointing at a closed port: PostgreSQL "down" without disturbing the shared server.
    const deadSql = createSql('postgres://nobody:nothing@127.0.0.1:9/none', { max: 1 });
    try {
      await withApp(
        { ...stack, sql: deadSql, temporal: stack.client, log: createLogger({ level: 'error' }) },
        async (url) => {
          const res = await http(url, 'GET', '/readyz');
          assert.equal(res.status, 503);
          assert.ok(res.body.missing.includes('database'));
          assert.equal(res.body.checks.database.ok, false);
          // says what is missing, never the raw error (it names internal addresses and users)
          assert.equal(res.body.checks.database.error, 'PostgreSQL is not answering');
          assert.doesNotMatch(res.text, /127\.0\.0\.1|ECONNREFUSED|nobody|:9\b/);
        },
      );
    } finally {
      await deadSql.end({ timeout: 1 });
    }
  });

  it('GET /readyz runs its checks at most once a second, however often and concurrently it is asked', async () => {
    let queries = 0;
    const countingSql = new Proxy(stack.sql, {
      apply(target, thisArg, args) {
        queries++;
        return Reflect.apply(target, thisArg, args);
      },
    });
    await withApp(
      {
        ...stack,
        sql: countingSql,
        temporal: stack.client,
        log: createLogger({ level: 'error' }),
      },
      async (url) => {
        const answers = await Promise.all(Array.from({ length: 20 }, () => http(url, 'GET', '/readyz')));
        assert.ok(answers.every((a) => a.status === 200));
        for (let i = 0; i < 5; i++) assert.equal((await http(url, 'GET', '/readyz')).status, 200);
        assert.ok(queries <= 2, `${queries} database checks for 25 hits`);
      },
    );
  });

  it('answers unknown Part A routes with 404 not_found in the envelope', async () => {
    const { key } = await account(stack.baseUrl);
    for (const [m, p] of [
      ['GET', '/api/v1/nothing-here'],
      ['POST', '/api/v1/garments'],
      ['GET', '/api/v1'],
    ] as const) {
      const res = await http(stack.baseUrl, m, p, { key });
      assert.equal(res.status, 404, `${m} ${p}`);
      assert.equal(res.body.error.code, 'not_found');
      assert.equal(typeof res.body.error.message, 'string');
    }
  });

  it('answers malformed JSON on a Part A route with 400 invalid_request', async () => {
    const { cookie } = await account(stack.baseUrl);
    const res = await http(stack.baseUrl, 'POST', '/api/v1/keys', {
      cookie,
      body: '{"name": ',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(res.status, 400);
    assert.deepEqual(res.body, { error: { code: 'invalid_request', message: 'Malformed JSON body' } });
  });

  it('answers an oversized JSON body with 413 in the envelope', async () => {
    const { cookie } = await account(stack.baseUrl);
    const res = await http(stack.baseUrl, 'POST', '/api/v1/keys', { cookie, json: { name: 'x'.repeat(200_000) } });
    assert.equal(res.status, 413);
    assert.equal(res.body.error.code, 'payload_too_large');
  });

  it('turns an unexpected failure into 500 internal_error without a stack, logged with the request id', async () => {
    const lines: string[] = [];
    // A database whose every query throws: the route cannot complete, nothing about it may leak.
    const sql = new Proxy(stack.sql, {
      apply: () => Promise.reject(new Error('secret internal detail: connection to db-7 refused')),
    });
    await withApp(
      {
        ...stack,
        sql,
        temporal: stack.client,
        log: createLogger({ level: 'info', write: (l) => lines.push(l) }),
      },
      async (url) => {
        const res = await http(url, 'GET', '/api/v1/garments', {
          headers: { authorization: `Bearer amk_live_${'a'.repeat(64)}`, 'x-request-id': 'req-test-500' },
        });
        assert.equal(res.status, 500);
        assert.deepEqual(res.body, { error: { code: 'internal_error', message: 'Internal server error' } });
        assert.ok(!res.text.includes('secret internal detail'));
        assert.equal(res.headers.get('x-request-id'), 'req-test-500');
        const logged = lines.map((l) => JSON.parse(l)).find((l) => l.msg === 'request failed');
        assert.ok(logged, 'the failure is logged');
        assert.equal(logged.requestId, 'req-test-500');
        assert.match(logged.err.message, /secret internal detail/);
      },
    );
  });

  it('logs one structured JSON line per request with a request id', async () => {
    const lines: string[] = [];
    await withApp(
      {
        ...stack,
        temporal: stack.client,
        log: createLogger({ level: 'info', write: (l) => lines.push(l) }),
      },
      async (url) => {
        const res = await http(url, 'GET', '/api/v1/garments');
        const id = res.headers.get('x-request-id');
        assert.match(id ?? '', /^[0-9a-f-]{36}$/);
        await sleep(20);
        const rec = lines.map((l) => JSON.parse(l)).find((l) => l.msg === 'request' && l.requestId === id);
        assert.ok(rec);
        assert.equal(rec.status, 401);
        assert.equal(rec.method, 'GET');
        assert.equal(typeof rec.durationMs, 'number');
      },
    );
  });
});
