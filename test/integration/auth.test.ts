import assert from 'node:assert/strict';
import { expireSessions, sessionTokenHashes, userRow } from '../helpers/db-inspect';
import { GOOD_PASSWORD, http, sessionCookie, signup, uniqueEmail } from '../helpers/http';
import { startStack, type Stack, useStack } from '../helpers/stack';

describe('accounts and sessions (/api/auth)', () => {
  const stack = useStack('auth', { worker: false });

  it('signs up: 201, HttpOnly SameSite=Lax session cookie, Free plan with 50 tokens', async () => {
    const email = uniqueEmail();
    const res = await http(stack.baseUrl, 'POST', '/api/auth/signup', { json: { email, password: GOOD_PASSWORD } });
    assert.equal(res.status, 201);
    assert.equal(res.body.user.email, email);
    assert.deepEqual(res.body.user.plan, { id: 'free', name: 'Free' });
    assert.equal(res.body.user.tokenBalance, 50);
    assert.equal('passwordHash' in res.body.user, false);
    const set = res.headers.getSetCookie()[0]!;
    assert.match(set, /HttpOnly/i);
    assert.match(set, /SameSite=Lax/i);
    assert.match(set, /Expires=/i);
    assert.doesNotMatch(set, /Secure/i, 'plain http public URL: no Secure flag');
    const me = await http(stack.baseUrl, 'GET', '/api/auth/me', { cookie: sessionCookie(res) });
    assert.equal(me.status, 200);
    assert.equal(me.body.user.email, email);
    assert.equal(me.body.user.tokenBalance, 50);
  });

  it('stores the password as an scrypt hash, never in clear', async () => {
    const s = await signup(stack.baseUrl);
    const { passwordHash } = (await userRow(s.user.id))!;
    assert.match(passwordHash, /^scrypt\$131072\$8\$1\$/);
    assert.ok(!passwordHash.includes(GOOD_PASSWORD));
  });

  it('stores only a hash of the session token', async () => {
    const s = await signup(stack.baseUrl);
    const token = s.cookie.split('=')[1]!;
    const hashes = await sessionTokenHashes(s.user.id);
    assert.equal(hashes.length, 1);
    assert.notEqual(hashes[0]!.toString('base64url'), token);
  });

  it('refuses a duplicate email with 409, case-insensitively', async () => {
    const email = uniqueEmail('dup');
    await signup(stack.baseUrl, email);
    const res = await http(stack.baseUrl, 'POST', '/api/auth/signup', {
      json: { email: email.toUpperCase(), password: GOOD_PASSWORD },
    });
    assert.equal(res.status, 409);
    assert.equal(typeof res.body.error, 'string');
  });

  for (const [label, body] of [
    ['missing email', { password: GOOD_PASSWORD }],
    ['missing password', { email: 'a@example.test' }],
    ['invalid email', { email: 'not-an-email', password: GOOD_PASSWORD }],
    ['short password', { email: 'b@example.test', password: 'Ab1!' }],
    ['single-class password', { email: 'c@example.test', password: 'abcdefghijkl' }],
    ['common password', { email: 'd@example.test', password: 'password123' }],
    ['non-string password', { email: 'e@example.test', password: 12345678901 }],
  ] as const) {
    it(`refuses signup with ${label}: 400`, async () => {
      const res = await http(stack.baseUrl, 'POST', '/api/auth/signup', { json: body });
      assert.equal(res.status, 400, res.text);
      assert.equal(typeof res.body.error, 'string');
    });
  }

  it('answers malformed JSON with 400', async () => {
    const res = await http(stack.baseUrl, 'POST', '/api/auth/signup', {
      body: '{"email":',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(res.status, 400);
    assert.equal(res.body.error, 'Malformed JSON body');
  });

  it('logs in with the right password; same 401 for unknown email and wrong password', async () => {
    const s = await signup(stack.baseUrl);
    const ok = await http(stack.baseUrl, 'POST', '/api/auth/login', { json: { email: s.email, password: s.password } });
    assert.equal(ok.status, 200);
    assert.ok(sessionCookie(ok));
    const wrong = await http(stack.baseUrl, 'POST', '/api/auth/login', {
      json: { email: s.email, password: 'Wrong-password-1' },
    });
    const unknown = await http(stack.baseUrl, 'POST', '/api/auth/login', {
      json: { email: uniqueEmail('nobody'), password: 'Wrong-password-1' },
    });
    assert.equal(wrong.status, 401);
    assert.equal(unknown.status, 401);
    assert.deepEqual(wrong.body, unknown.body);
    assert.equal(wrong.headers.getSetCookie().length, 0);
  });

  it('logs out: the session stops working and the cookie is cleared', async () => {
    const s = await signup(stack.baseUrl);
    const out = await http(stack.baseUrl, 'POST', '/api/auth/logout', { cookie: s.cookie });
    assert.equal(out.status, 204);
    assert.match(out.headers.getSetCookie()[0] ?? '', /Expires=Thu, 01 Jan 1970/);
    const me = await http(stack.baseUrl, 'GET', '/api/auth/me', { cookie: s.cookie });
    assert.equal(me.status, 401);
  });

  it('answers /me with 401 without a session, with a forged one, and after expiry', async () => {
    assert.equal((await http(stack.baseUrl, 'GET', '/api/auth/me')).status, 401);
    const forged = await http(stack.baseUrl, 'GET', '/api/auth/me', {
      cookie: `${stack.config.sessionCookieName}=${'A'.repeat(43)}`,
    });
    assert.equal(forged.status, 401);
    const s = await signup(stack.baseUrl);
    await expireSessions(s.user.id);
    const expired = await http(stack.baseUrl, 'GET', '/api/auth/me', { cookie: s.cookie });
    assert.equal(expired.status, 401);
    assert.deepEqual(Object.keys(expired.body), ['error']);
  });

  it('answers the sign-in check /session with 200: the account when signed in, {user: null} otherwise', async () => {
    const none = await http(stack.baseUrl, 'GET', '/api/auth/session');
    assert.equal(none.status, 200);
    assert.deepEqual(none.body, { user: null });
    assert.equal(none.headers.get('cache-control'), 'no-store');
    const forged = await http(stack.baseUrl, 'GET', '/api/auth/session', {
      cookie: `${stack.config.sessionCookieName}=${'A'.repeat(43)}`,
    });
    assert.equal(forged.status, 200);
    assert.deepEqual(forged.body, { user: null });
    const s = await signup(stack.baseUrl);
    const signedIn = await http(stack.baseUrl, 'GET', '/api/auth/session', { cookie: s.cookie });
    assert.equal(signedIn.status, 200);
    const me = await http(stack.baseUrl, 'GET', '/api/auth/me', { cookie: s.cookie });
    assert.deepEqual(signedIn.body, me.body);
    assert.equal(signedIn.body.user.email, s.user.email);
    await expireSessions(s.user.id);
    const expired = await http(stack.baseUrl, 'GET', '/api/auth/session', { cookie: s.cookie });
    assert.equal(expired.status, 200);
    assert.deepEqual(expired.body, { user: null });
  });
});

describe('session cookie on an https public URL', () => {
  let stack: Stack;
  before(async () => {
    // PUBLIC_BASE_URL decides at start-up (the stack then points URLs in answers at its own address)
    stack = await startStack('auth-https', { worker: false, env: { PUBLIC_BASE_URL: 'https://mockups.example.com' } });
  });

  it('sets Secure, under the __Host- name', async () => {
    const res = await http(stack.baseUrl, 'POST', '/api/auth/signup', {
      json: { email: uniqueEmail(), password: GOOD_PASSWORD },
    });
    assert.equal(res.status, 201);
    assert.match(res.headers.getSetCookie()[0]!, /^__Host-amk_session=.*; Secure/);
  });
});
