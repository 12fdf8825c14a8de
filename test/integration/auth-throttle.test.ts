// Sign-in and signup throttling (docs/security.md): failed sign-ins per email and per client IP, signups per IP,
// and a bounded number of password checks at once.
import assert from 'node:assert/strict';
import { loadConfig } from '../../lib/config';
import { GOOD_PASSWORD, http, uniqueEmail } from '../helpers/http';
import { startStack, type Stack } from '../helpers/stack';

describe('sign-in and signup throttling', function () {
  this.timeout(120_000);
  let stack: Stack;
  before(async () => {
    stack = await startStack('auth-throttle', {
      worker: false,
      env: { AUTH_LOGIN_FAILURES_PER_EMAIL: '3', AUTH_LOGIN_FAILURES_PER_IP: '5', AUTH_SIGNUPS_PER_IP: '2' },
    });
  });
  after(async () => stack?.stop());

  // Requests come from 127.0.0.1, a trusted proxy by default (TRUST_PROXY=loopback), so X-Forwarded-For names the
  // client: each test uses its own client addresses.
  let nextIp = 1;
  const newIp = () => `203.0.113.${nextIp++}`;
  const login = (email: string, password: string, ip: string) =>
    http(stack.baseUrl, 'POST', '/api/auth/login', {
      json: { email, password },
      headers: { 'x-forwarded-for': ip },
    });
  /** An account made from an address of its own (signups are limited per address too). */
  const newAccount = async () => {
    const email = uniqueEmail('throttle');
    const res = await http(stack.baseUrl, 'POST', '/api/auth/signup', {
      json: { email, password: GOOD_PASSWORD },
      headers: { 'x-forwarded-for': newIp() },
    });
    assert.equal(res.status, 201, res.text);
    return email;
  };
  const signupFrom = (ip: string) =>
    http(stack.baseUrl, 'POST', '/api/auth/signup', {
      json: { email: uniqueEmail('throttle'), password: GOOD_PASSWORD },
      headers: { 'x-forwarded-for': ip },
    });

  it('locks an email after 3 failed sign-ins, with 429 and Retry-After, also for the right password', async () => {
    const email = await newAccount();
    const ips = [newIp(), newIp(), newIp(), newIp()];
    for (let i = 0; i < 3; i++) assert.equal((await login(email, 'Wrong-Password-1', ips[i % 2]!)).status, 401);
    const locked = await login(email, 'Wrong-Password-1', ips[2]!);
    assert.equal(locked.status, 429, locked.text);
    assert.equal(locked.body.error, 'Too many failed sign-in attempts: try again later');
    const retry = Number(locked.headers.get('retry-after'));
    assert.ok(retry > 0 && retry <= 15 * 60, `Retry-After ${retry}`);
    assert.equal(locked.body.retryAfter, retry);
    const right = await login(email, GOOD_PASSWORD, ips[3]!);
    assert.equal(right.status, 429, 'the right password gets the same answer while locked');
    assert.deepEqual(right.body, locked.body);
  });

  it('counts parallel attempts before checking passwords: 10 at once on one email, at most 3 get to try', async () => {
    const email = await newAccount();
    const results = await Promise.all(Array.from({ length: 10 }, () => login(email, 'Wrong-Password-1', newIp())));
    const statuses = results.map((r) => r.status);
    assert.equal(statuses.filter((s) => s === 401).length, 3, JSON.stringify(statuses));
    assert.equal(statuses.filter((s) => s === 429).length, 7, JSON.stringify(statuses));
  });

  it('does not count successful sign-ins as failures', async () => {
    const email = await newAccount();
    const ip = newIp();
    for (let i = 0; i < 6; i++) assert.equal((await login(email, GOOD_PASSWORD, ip)).status, 200);
  });

  it('locks a client IP after 5 failed sign-ins across emails; other addresses are unaffected', async () => {
    const ip = newIp();
    for (let i = 0; i < 5; i++) assert.equal((await login(uniqueEmail('nobody'), 'Wrong-Password-1', ip)).status, 401);
    const locked = await login(uniqueEmail('nobody'), 'Wrong-Password-1', ip);
    assert.equal(locked.status, 429);
    assert.ok(Number(locked.headers.get('retry-after')) > 15 * 60, 'the hour window');
    assert.equal((await login(uniqueEmail('nobody'), 'Wrong-Password-1', newIp())).status, 401);
  });

  it('limits signups per client IP (2 an hour here)', async () => {
    const ip = newIp();
    assert.equal((await signupFrom(ip)).status, 201);
    assert.equal((await signupFrom(ip)).status, 201);
    const third = await signupFrom(ip);
    assert.equal(third.status, 429, third.text);
    assert.match(third.body.error, /Too many signups/);
    assert.ok(Number(third.headers.get('retry-after')) > 0);
    assert.equal((await signupFrom(newIp())).status, 201);
  });

  it('bounds concurrent password checks: a flood gets 503 with Retry-After, never 500, and other routes answer', async () => {
    const flood = Promise.all(
      Array.from({ length: 60 }, () =>
        http(stack.baseUrl, 'POST', '/api/auth/login', {
          json: { email: uniqueEmail('flood'), password: 'Wrong-Password-1' },
          headers: { 'x-forwarded-for': newIp() },
        }),
      ),
    );
    const t0 = Date.now();
    const health = await http(stack.baseUrl, 'GET', '/healthz');
    const healthMs = Date.now() - t0;
    const statuses = (await flood).map((r) => r.status);
    assert.equal(health.status, 200);
    assert.ok(healthMs < 2000, `healthz took ${healthMs} ms during the flood`);
    assert.ok(!statuses.some((s) => s >= 500 && s !== 503), JSON.stringify(statuses));
    assert.ok(statuses.filter((s) => s === 503).length >= 20, `60 at once, 34 admitted: ${JSON.stringify(statuses)}`);
    assert.ok(statuses.every((s) => s === 401 || s === 503));
  });
});

describe('TRUST_PROXY parsing', () => {
  const base = { DATA_DIR: '/tmp/mockup-config-test', APP_SECRET: 'x'.repeat(40) };
  const trust = (v: string) => loadConfig({}, { ...base, TRUST_PROXY: v }).trustProxy;
  it('reads booleans, hop counts and address lists as Express expects', () => {
    assert.equal(trust('true'), true);
    assert.equal(trust('false'), false);
    assert.equal(trust('2'), 2);
    assert.equal(trust('loopback'), 'loopback');
    assert.equal(trust('loopback, 10.0.0.0/8 ,fd00::/8'), 'loopback,10.0.0.0/8,fd00::/8');
  });
  it('refuses anything else at start-up, naming the variable', () => {
    assert.throws(() => trust('yes please'), /TRUST_PROXY/);
    assert.throws(() => trust('10.0.0.0/33'), /TRUST_PROXY/);
  });
});
