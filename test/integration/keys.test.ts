import assert from 'node:assert/strict';
import { apiKeyStored, expireApiKey } from '../helpers/db-inspect';
import { createKey, http, signup } from '../helpers/http';
import { useStack } from '../helpers/stack';

describe('API keys (/api/v1/keys) and Bearer authentication', () => {
  const stack = useStack('keys', { worker: false });
  let cookie: string;
  before(async () => {
    cookie = (await signup(stack.baseUrl)).cookie;
  });

  const KEY_RE = /^amk_live_[0-9a-f]{64}$/;

  it('creates a key: full key once, metadata, warning; stored only as a hash', async () => {
    const res = await http(stack.baseUrl, 'POST', '/api/v1/keys', { cookie, json: { name: 'Production server' } });
    assert.equal(res.status, 201);
    assert.match(res.body.key, KEY_RE);
    assert.match(res.body.metadata.id, /^key_[a-z0-9]{16}$/);
    assert.equal(res.body.metadata.name, 'Production server');
    assert.equal(res.body.metadata.lastFour, res.body.key.slice(-4));
    assert.ok(!Number.isNaN(Date.parse(res.body.metadata.createdAt)));
    assert.equal(res.body.metadata.expiresAt, null);
    assert.match(res.body.warning, /only once/i);
    const stored = await apiKeyStored(res.body.metadata.id);
    const { createHash } = await import('node:crypto');
    assert.deepEqual(stored.keyHash, createHash('sha256').update(res.body.key).digest());
    assert.ok(!stored.text.includes(res.body.key.slice(9)), 'the key itself is nowhere in the row');
  });

  it('lists keys newest first with status and never the key', async () => {
    const { cookie: c } = await signup(stack.baseUrl);
    const a = await createKey(stack.baseUrl, c, { name: 'first' });
    const b = await createKey(stack.baseUrl, c, { name: 'second', expiresInDays: 30 });
    const res = await http(stack.baseUrl, 'GET', '/api/v1/keys', { cookie: c });
    assert.equal(res.status, 200);
    assert.deepEqual(
      res.body.keys.map((k: any) => k.id),
      [b.id, a.id],
    );
    for (const k of res.body.keys) {
      assert.deepEqual(Object.keys(k).sort(), [
        'createdAt',
        'expiresAt',
        'id',
        'lastFour',
        'lastUsedAt',
        'mode',
        'name',
        'revokedAt',
        'status',
      ]);
      assert.equal(k.status, 'active');
    }
    assert.ok(!res.text.includes(a.key) && !res.text.includes(b.key));
    const exp = Date.parse(res.body.keys[0].expiresAt) - Date.parse(res.body.keys[0].createdAt);
    assert.ok(Math.abs(exp - 30 * 86_400_000) < 5000);
  });

  for (const bad of [0, 366, 1.5, -3, '30', null, true]) {
    it(`refuses expiresInDays=${JSON.stringify(bad)} with 400 invalid_request`, async () => {
      const res = await http(stack.baseUrl, 'POST', '/api/v1/keys', {
        cookie,
        json: { name: 'x', expiresInDays: bad },
      });
      assert.equal(res.status, 400);
      assert.equal(res.body.error.code, 'invalid_request');
      assert.match(res.body.error.message, /expiresInDays/);
    });
  }

  it('accepts expiresInDays 1 and 365', async () => {
    for (const d of [1, 365]) {
      const res = await http(stack.baseUrl, 'POST', '/api/v1/keys', {
        cookie,
        json: { name: `d${d}`, expiresInDays: d },
      });
      assert.equal(res.status, 201);
    }
  });

  it('refuses a missing or empty name and unknown fields with 400', async () => {
    for (const body of [{}, { name: '' }, { name: '   ' }, { name: 'x', extra: 1 }, []]) {
      const res = await http(stack.baseUrl, 'POST', '/api/v1/keys', { cookie, json: body });
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.error.code, 'invalid_request');
    }
  });

  it('needs a session for create, list and delete (a key is not enough)', async () => {
    const { key, id } = await createKey(stack.baseUrl, cookie);
    for (const [m, p] of [
      ['POST', '/api/v1/keys'],
      ['GET', '/api/v1/keys'],
      ['DELETE', `/api/v1/keys/${id}`],
    ] as const) {
      const res = await http(stack.baseUrl, m, p, { key, json: m === 'POST' ? { name: 'x' } : undefined });
      assert.equal(res.status, 401, `${m} ${p}`);
      assert.equal(res.body.error.code, 'unauthorized');
    }
  });

  it('authenticates Part A calls with Bearer and records lastUsedAt', async () => {
    const { key, id } = await createKey(stack.baseUrl, cookie);
    const res = await http(stack.baseUrl, 'GET', '/api/v1/garments?limit=1', { key });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.headers.get('x-tokens-remaining'), '50');
    const list = await http(stack.baseUrl, 'GET', '/api/v1/keys', { cookie });
    const k = list.body.keys.find((x: any) => x.id === id);
    assert.ok(k.lastUsedAt);
  });

  it('answers 401 unauthorized for missing, malformed and unknown keys', async () => {
    const cases: Record<string, string>[] = [
      {},
      { authorization: 'Basic abc' },
      { authorization: 'Bearer' },
      { authorization: 'Bearer not-a-key' },
      { authorization: `Bearer amk_live_${'0'.repeat(64)}` },
      { authorization: `Bearer amk_test_${'a'.repeat(64)}` },
    ];
    for (const headers of cases) {
      const res = await http(stack.baseUrl, 'GET', '/api/v1/garments', { headers });
      assert.equal(res.status, 401, JSON.stringify(headers));
      assert.equal(res.body.error.code, 'unauthorized');
      assert.equal(res.body.error.details, undefined);
    }
  });

  it('revokes: the key gets 401 with reason revoked; revoking twice is harmless', async () => {
    const { key, id } = await createKey(stack.baseUrl, cookie);
    const first = await http(stack.baseUrl, 'DELETE', `/api/v1/keys/${id}`, { cookie });
    assert.equal(first.status, 200);
    assert.equal(first.body.status, 'revoked');
    const again = await http(stack.baseUrl, 'DELETE', `/api/v1/keys/${id}`, { cookie });
    assert.equal(again.status, 200);
    assert.equal(again.body.revokedAt, first.body.revokedAt);
    const res = await http(stack.baseUrl, 'GET', '/api/v1/garments', { key });
    assert.equal(res.status, 401);
    assert.equal(res.body.error.code, 'unauthorized');
    assert.match(res.body.error.details.reason, /revoked/);
    const list = await http(stack.baseUrl, 'GET', '/api/v1/keys', { cookie });
    assert.equal(list.body.keys.find((k: any) => k.id === id).status, 'revoked');
  });

  it('expired keys get 401 with reason expired and show as expired', async () => {
    const { key, id } = await createKey(stack.baseUrl, cookie, { name: 'short', expiresInDays: 1 });
    await expireApiKey(id);
    const res = await http(stack.baseUrl, 'GET', '/api/v1/garments', { key });
    assert.equal(res.status, 401);
    assert.match(res.body.error.details.reason, /expired/);
    const list = await http(stack.baseUrl, 'GET', '/api/v1/keys', { cookie });
    assert.equal(list.body.keys.find((k: any) => k.id === id).status, 'expired');
  });

  it('deletes permanently (active or revoked); then 404', async () => {
    const a = await createKey(stack.baseUrl, cookie);
    const b = await createKey(stack.baseUrl, cookie);
    await http(stack.baseUrl, 'DELETE', `/api/v1/keys/${b.id}`, { cookie });
    for (const k of [a, b]) {
      const res = await http(stack.baseUrl, 'DELETE', `/api/v1/keys/${k.id}?permanent=true`, { cookie });
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, { id: k.id, deleted: true });
      const gone = await http(stack.baseUrl, 'DELETE', `/api/v1/keys/${k.id}?permanent=true`, { cookie });
      assert.equal(gone.status, 404);
      assert.equal(gone.body.error.code, 'not_found');
      const call = await http(stack.baseUrl, 'GET', '/api/v1/garments', { key: k.key });
      assert.equal(call.status, 401);
    }
  });

  it("answers 404 for another account's key id and leaves it alone", async () => {
    const other = await signup(stack.baseUrl);
    const theirs = await createKey(stack.baseUrl, other.cookie);
    for (const q of ['', '?permanent=true']) {
      const res = await http(stack.baseUrl, 'DELETE', `/api/v1/keys/${theirs.id}${q}`, { cookie });
      assert.equal(res.status, 404);
      assert.equal(res.body.error.code, 'not_found');
    }
    const still = await http(stack.baseUrl, 'GET', '/api/v1/garments?limit=1', { key: theirs.key });
    assert.equal(still.status, 200);
  });

  it('refuses a bad permanent flag with 400 and a malformed key id with 404', async () => {
    const { id } = await createKey(stack.baseUrl, cookie);
    const bad = await http(stack.baseUrl, 'DELETE', `/api/v1/keys/${id}?permanent=yes`, { cookie });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.code, 'invalid_request');
    const weird = await http(stack.baseUrl, 'DELETE', '/api/v1/keys/..%2F..%2Fetc', { cookie });
    assert.equal(weird.status, 404);
  });
});
