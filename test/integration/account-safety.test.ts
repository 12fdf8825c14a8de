// Account safety against someone who has the password (issue 33, docs/security.md#account-takeover): through HTTP on
// the real stack, with the mails read from Mailpit. A reset or change of password cancels the outstanding links;
// "This wasn't me" undoes a change of email; a reset can sign out API clients; the account changes are throttled.
import assert from 'node:assert/strict';
import { loadConfig } from '../../lib/config';
import { randomSuffix } from '../../lib/ids';
import { maintenanceSweep } from '../../workflows';
import { insertAccountToken, storedAccountTokens } from '../helpers/db-inspect';
import { GOOD_PASSWORD, createKey, http, sessionCookie, signup, uniqueEmail } from '../helpers/http';
import { linkIn, mailsTo, waitForMail } from '../helpers/mailpit';
import { startStack, type Stack } from '../helpers/stack';
import { waitUpTo } from '../helpers/wait';

const NEW_PASSWORD = 'Battery-Staple-77';
const NO_LONGER_VALID = 'This link is no longer valid';

describe('account safety: cancelled links, "This wasn\'t me", signing out API clients, throttles', function () {
  this.timeout(180_000);
  let stack: Stack;
  before(async () => {
    // the documented defaults of the account-change limits (the test helper lifts them for other files)
    const d = loadConfig({}, {}).mail.accountChangesPerHour;
    stack = await startStack('account-safety', {
      env: {
        AUTH_EMAIL_CHANGES_PER_HOUR: String(d.emailChange),
        AUTH_PASSWORD_CHANGES_PER_HOUR: String(d.passwordChange),
        AUTH_DELETIONS_PER_HOUR: String(d.deletion),
        AUTH_EXPORTS_PER_HOUR: String(d.export),
      },
    });
  });
  after(async () => stack?.stop());

  /** Each request from its own client address (TRUST_PROXY=loopback), unless the test names one. */
  const ipHeader = (ip = `10.33.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`) => ({
    'x-forwarded-for': ip,
  });
  const tokenOf = (link: string) => new URL(link).searchParams.get('token')!;
  const login = (email: string, password: string) =>
    http(stack.baseUrl, 'POST', '/api/auth/login', { json: { email, password }, headers: ipHeader() });
  const me = (cookie: string) => http(stack.baseUrl, 'GET', '/api/auth/me', { cookie });
  const post = (path: string, json: unknown, cookie?: string, ip?: string) =>
    http(stack.baseUrl, 'POST', path, { json, headers: ipHeader(ip), ...(cookie ? { cookie } : {}) });
  const changeEmail = (cookie: string, newEmail: string, ip?: string) =>
    post('/api/auth/email/change', { password: GOOD_PASSWORD, newEmail }, cookie, ip);

  /** The owner signs up; an intruder who has the password signs in elsewhere and asks to move the account. */
  async function intrusion() {
    const owner = await signup(stack.baseUrl);
    const intruder = sessionCookie(await login(owner.email, GOOD_PASSWORD));
    const intruderEmail = uniqueEmail('intruder');
    const asked = await changeEmail(intruder, intruderEmail);
    assert.equal(asked.status, 202, asked.text);
    const confirm = linkIn(
      await waitForMail(intruderEmail, /confirm your new email/),
      `${stack.baseUrl}/verify-email?token=`,
    );
    return { owner, intruder, intruderEmail, confirm };
  }

  /** Asks for a reset link and uses the new mail's (a second reset of one account waits for its own mail). */
  async function resetByMail(email: string, body: Record<string, unknown> = {}) {
    const isReset = (m: { Subject: string }) => /reset your password/.test(m.Subject);
    const before = (await mailsTo(email)).filter(isReset).length;
    await post('/api/auth/password/forgot', { email });
    await waitUpTo(async () => (await mailsTo(email)).filter(isReset).length > before, { ms: 15_000, every: 200 });
    const link = linkIn(await waitForMail(email, /reset your password/), `${stack.baseUrl}/reset-password?token=`);
    return post('/api/auth/password/reset', { token: tokenOf(link), password: NEW_PASSWORD, ...body });
  }

  it('a password reset cancels a pending change of email: the intruder\'s link answers "no longer valid"', async () => {
    const { owner, intruder, intruderEmail, confirm } = await intrusion();
    const reset = await resetByMail(owner.email);
    assert.equal(reset.status, 204, reset.text);
    assert.equal((await me(intruder)).status, 401, 'the reset ended every session');
    const late = await post('/api/auth/verify', { token: tokenOf(confirm) });
    assert.equal(late.status, 400, late.text);
    assert.equal(late.body.error, NO_LONGER_VALID);
    // nothing changed: the owner signs in with the address and the new password
    const back = await login(owner.email, NEW_PASSWORD);
    assert.equal(back.status, 200, back.text);
    assert.equal(back.body.user.email, owner.email);
    assert.equal(back.body.user.pendingEmail, null);
    assert.equal((await login(intruderEmail, NEW_PASSWORD)).status, 401);
  });

  it('a password change cancels a pending change of email and every other outstanding link', async () => {
    const { owner, confirm } = await intrusion();
    const verify = linkIn(await waitForMail(owner.email, /verify your email/), `${stack.baseUrl}/verify-email?token=`);
    await post('/api/auth/password/forgot', { email: owner.email });
    const resetLink = linkIn(
      await waitForMail(owner.email, /reset your password/),
      `${stack.baseUrl}/reset-password?token=`,
    );
    const changed = await post(
      '/api/auth/password/change',
      { currentPassword: GOOD_PASSWORD, newPassword: NEW_PASSWORD },
      owner.cookie,
    );
    assert.equal(changed.status, 204, changed.text);
    for (const token of [tokenOf(confirm), tokenOf(verify)]) {
      const res = await post('/api/auth/verify', { token });
      assert.equal(res.status, 400);
      assert.equal(res.body.error, NO_LONGER_VALID);
    }
    const reset = await post('/api/auth/password/reset', { token: tokenOf(resetLink), password: 'Another-Pass-99' });
    assert.equal(reset.status, 400);
    assert.equal(reset.body.error, NO_LONGER_VALID);
    assert.equal((await me(owner.cookie)).body.user.email, owner.email);
    assert.equal((await login(owner.email, NEW_PASSWORD)).status, 200);
  });

  it('"This wasn\'t me" stops a pending change: everyone signed out, sign-in waits for a reset', async () => {
    const { owner, intruder, confirm } = await intrusion();
    const notice = await waitForMail(owner.email, /your email address is being changed/);
    assert.match(notice.Text, /This wasn't me/);
    assert.match(notice.Text, /7 days/);
    const link = linkIn(notice, `${stack.baseUrl}/email-not-me?token=`);
    // the link opens the dashboard's page, which posts the token when the owner presses its button
    const page = await http(stack.baseUrl, 'GET', new URL(link).pathname + new URL(link).search);
    assert.equal(page.status, 302);
    assert.equal(page.headers.get('location'), `/#/email-not-me?token=${tokenOf(link)}`);
    const undo = await post('/api/auth/email/not-me', { token: tokenOf(link) });
    assert.equal(undo.status, 200, undo.text);
    assert.equal(undo.body.status, 'cancelled');
    assert.equal(undo.body.email, owner.email);
    for (const cookie of [owner.cookie, intruder]) assert.equal((await me(cookie)).status, 401);
    const late = await post('/api/auth/verify', { token: tokenOf(confirm) });
    assert.equal(late.status, 400);
    assert.equal(late.body.error, NO_LONGER_VALID);
    // the password is taken as known: no sign-in with it until a reset
    const locked = await login(owner.email, GOOD_PASSWORD);
    assert.equal(locked.status, 403, locked.text);
    assert.match(locked.body.error, /locked until its password is reset/);
    assert.equal((await login(owner.email, 'Wrong-Password-1')).status, 401, 'a wrong password learns nothing');
    // a reset link was mailed with the undo
    const resetLink = linkIn(
      await waitForMail(owner.email, /reset your password/),
      `${stack.baseUrl}/reset-password?token=`,
    );
    const again = await post('/api/auth/email/not-me', { token: tokenOf(link) });
    assert.equal(again.status, 400, 'the link works once');
    const reset = await post('/api/auth/password/reset', { token: tokenOf(resetLink), password: NEW_PASSWORD });
    assert.equal(reset.status, 204, reset.text);
    assert.equal((await login(owner.email, NEW_PASSWORD)).status, 200);
  });

  it('"This wasn\'t me" after the change was made restores the old address and locks the intruder out', async () => {
    const { owner, intruder, intruderEmail, confirm } = await intrusion();
    const made = await post('/api/auth/verify', { token: tokenOf(confirm) });
    assert.equal(made.status, 200, made.text);
    assert.equal(made.body.user.email, intruderEmail);
    assert.equal((await login(owner.email, GOOD_PASSWORD)).status, 401, 'the owner is locked out by the change');
    // the intruder changes the password too: the owner's link still works
    const pw = await post(
      '/api/auth/password/change',
      { currentPassword: GOOD_PASSWORD, newPassword: 'Intruder-Pass-55' },
      intruder,
    );
    assert.equal(pw.status, 204, pw.text);
    const link = linkIn(
      await waitForMail(owner.email, /your email address is being changed/),
      `${stack.baseUrl}/email-not-me?token=`,
    );
    const undo = await post('/api/auth/email/not-me', { token: tokenOf(link) });
    assert.equal(undo.status, 200, undo.text);
    assert.equal(undo.body.status, 'restored');
    assert.equal(undo.body.email, owner.email);
    assert.equal((await me(intruder)).status, 401);
    assert.equal((await login(intruderEmail, 'Intruder-Pass-55')).status, 401, 'the address is no longer the account');
    assert.equal((await login(owner.email, 'Intruder-Pass-55')).status, 403, 'sign-in waits for a reset');
    // the intruder cannot reset from their address any more; the owner can
    await post('/api/auth/password/forgot', { email: intruderEmail });
    const resetLink = linkIn(
      await waitForMail(owner.email, /reset your password/),
      `${stack.baseUrl}/reset-password?token=`,
    );
    const reset = await post('/api/auth/password/reset', { token: tokenOf(resetLink), password: NEW_PASSWORD });
    assert.equal(reset.status, 204, reset.text);
    const back = await login(owner.email, NEW_PASSWORD);
    assert.equal(back.status, 200, back.text);
    assert.equal(back.body.user.email, owner.email);
    assert.equal((await mailsTo(intruderEmail)).filter((m) => /reset your password/.test(m.Subject)).length, 0);
  });

  it('a reset with revokeKeys revokes every API key and replaces the webhook secret; without it they stay', async () => {
    const a = await signup(stack.baseUrl);
    const { key } = await createKey(stack.baseUrl, a.cookie);
    const secret = (await http(stack.baseUrl, 'GET', '/api/v1/webhooks/secret', { cookie: a.cookie })).body.secret;
    assert.ok(secret);
    const kept = await resetByMail(a.email);
    assert.equal(kept.status, 204, kept.text);
    assert.equal((await http(stack.baseUrl, 'GET', '/api/v1/garments', { key })).status, 200, 'default: keys stay');

    const revoked = await resetByMail(a.email, { revokeKeys: true });
    assert.equal(revoked.status, 204, revoked.text);
    assert.equal((await http(stack.baseUrl, 'GET', '/api/v1/garments', { key })).status, 401);
    const cookie = sessionCookie(await login(a.email, NEW_PASSWORD));
    const now = await http(stack.baseUrl, 'GET', '/api/v1/webhooks/secret', { cookie });
    assert.notEqual(now.body.secret, secret);
    assert.equal(now.body.previousSecretExpiresAt ?? null, null, 'the old secret signs nothing more');
    const bad = await post('/api/auth/password/reset', {
      token: 'x'.repeat(43),
      password: NEW_PASSWORD,
      revokeKeys: 1,
    });
    assert.equal(bad.status, 400);
  });

  it('POST /api/auth/sessions/revoke-all signs out every other session, this one stays', async () => {
    const a = await signup(stack.baseUrl);
    const others = [
      sessionCookie(await login(a.email, GOOD_PASSWORD)),
      sessionCookie(await login(a.email, GOOD_PASSWORD)),
    ];
    const res = await post('/api/auth/sessions/revoke-all', undefined, a.cookie);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body, { sessionsEnded: 2 });
    assert.equal((await me(a.cookie)).status, 200);
    for (const c of others) assert.equal((await me(c)).status, 401);
    assert.equal((await post('/api/auth/sessions/revoke-all', undefined)).status, 401);
  });

  it('change email: 5 an hour per account and per IP, 429 with Retry-After; a taken address gets the same 202', async () => {
    const a = await signup(stack.baseUrl);
    const taken = await signup(stack.baseUrl);
    const free = await changeEmail(a.cookie, uniqueEmail('free'));
    const used = await changeEmail(a.cookie, taken.email);
    assert.equal(used.status, 202, used.text);
    assert.deepEqual(Object.keys(used.body), Object.keys(free.body));
    assert.equal(used.body.message.replace(taken.email, 'X'), free.body.message.replace(/\S+@example\.test/, 'X'));
    const toOwner = await waitForMail(taken.email, /someone tried to move an account to your email/);
    assert.ok(linkIn(toOwner, `${stack.baseUrl}/forgot-password`));
    for (let i = 0; i < 3; i++) assert.equal((await changeEmail(a.cookie, uniqueEmail('n'))).status, 202);
    const over = await changeEmail(a.cookie, uniqueEmail('n'));
    assert.equal(over.status, 429, over.text);
    assert.ok(Number(over.headers.get('retry-after')) > 0);
    assert.equal(typeof over.body.error, 'string', 'the Part B envelope');
    // per IP: five accounts behind one address
    const ip = `10.34.${randomSuffix(2).charCodeAt(0) % 250}.7`;
    for (let i = 0; i < 5; i++) {
      const s = await signup(stack.baseUrl);
      assert.equal((await changeEmail(s.cookie, uniqueEmail('ip'), ip)).status, 202);
    }
    const sixth = await signup(stack.baseUrl);
    assert.equal((await changeEmail(sixth.cookie, uniqueEmail('ip'), ip)).status, 429);
  });

  it('change password: 10 failed current passwords an hour, a success takes its count back', async () => {
    const a = await signup(stack.baseUrl);
    const attempt = (currentPassword: string, newPassword = NEW_PASSWORD) =>
      post('/api/auth/password/change', { currentPassword, newPassword }, a.cookie);
    for (let i = 0; i < 9; i++) assert.equal((await attempt(`Wrong-Password-${i}`)).status, 400);
    assert.equal((await attempt(GOOD_PASSWORD)).status, 204);
    assert.equal((await attempt('Wrong-Password-x', GOOD_PASSWORD)).status, 400, 'the success was not counted');
    const over = await attempt(NEW_PASSWORD, GOOD_PASSWORD);
    assert.equal(over.status, 429, 'refused even with the right password');
    assert.ok(Number(over.headers.get('retry-after')) > 0);
  });

  it('delete: 5 attempts an hour; export: 10 an hour', async () => {
    const a = await signup(stack.baseUrl);
    const del = () =>
      http(stack.baseUrl, 'DELETE', '/api/auth/account', {
        cookie: a.cookie,
        json: { password: 'Wrong-Password-1' },
        headers: ipHeader(),
      });
    for (let i = 0; i < 5; i++) assert.equal((await del()).status, 400);
    const overDel = await del();
    assert.equal(overDel.status, 429);
    assert.ok(Number(overDel.headers.get('retry-after')) > 0);
    const exp = () => http(stack.baseUrl, 'GET', '/api/auth/account/export', { cookie: a.cookie, headers: ipHeader() });
    for (let i = 0; i < 10; i++) assert.equal((await exp()).status, 200);
    const overExp = await exp();
    assert.equal(overExp.status, 429);
    assert.equal(typeof overExp.body.error, 'string');
  });

  it('change password, delete and export are counted per client IP too, across accounts', async () => {
    const ip = `10.35.${randomSuffix(2).charCodeAt(0) % 250}.9`;
    const [a, b, c] = [await signup(stack.baseUrl), await signup(stack.baseUrl), await signup(stack.baseUrl)];
    // 10 failed current passwords from one address, five on each of two accounts: the third account is refused
    for (const s of [a, b])
      for (let i = 0; i < 5; i++) {
        const res = await post(
          '/api/auth/password/change',
          { currentPassword: `Wrong-Password-${i}`, newPassword: NEW_PASSWORD },
          s.cookie,
          ip,
        );
        assert.equal(res.status, 400, res.text);
      }
    const pw = await post(
      '/api/auth/password/change',
      { currentPassword: GOOD_PASSWORD, newPassword: NEW_PASSWORD },
      c.cookie,
      ip,
    );
    assert.equal(pw.status, 429, 'the address used up its change-password hour');
    // 10 exports from one address over two accounts, then a third account's is refused
    const exp = (s: { cookie: string }) =>
      http(stack.baseUrl, 'GET', '/api/auth/account/export', { cookie: s.cookie, headers: ipHeader(ip) });
    for (const s of [a, b]) for (let i = 0; i < 5; i++) assert.equal((await exp(s)).status, 200);
    assert.equal((await exp(c)).status, 429);
    // 5 deletions asked from one address (wrong passwords, on two accounts), then a third account's is refused
    const del = (s: { cookie: string }, password: string) =>
      http(stack.baseUrl, 'DELETE', '/api/auth/account', {
        cookie: s.cookie,
        json: { password },
        headers: ipHeader(ip),
      });
    for (let i = 0; i < 5; i++) assert.equal((await del(i % 2 ? a : b, 'Wrong-Password-1')).status, 400);
    const refused = await del(c, GOOD_PASSWORD);
    assert.equal(refused.status, 429, refused.text);
    assert.ok(Number(refused.headers.get('retry-after')) > 0);
    assert.equal((await me(c.cookie)).status, 200, 'nothing was deleted');
  });

  it('the maintenance sweep deletes links used or expired over a day ago, and keeps the others', async () => {
    const a = await signup(stack.baseUrl);
    const hash = () => Buffer.from(randomSuffix(32));
    const [usedOld, expiredOld, usedNow, live] = [hash(), hash(), hash(), hash()];
    const link = (tokenHash: Buffer, purpose: string, created: string, expires: string, used: string | null) =>
      insertAccountToken({ tokenHash, userId: a.user.id, purpose, email: a.email, created, expires, used });
    await link(usedOld, 'reset_password', '-3 days', '1 hour', '-25 hours');
    await link(expiredOld, 'verify_email', '-4 days', '-25 hours', null);
    await link(usedNow, 'reset_password', '0 seconds', '1 hour', '0 seconds');
    await link(live, 'undo_email_change', '0 seconds', '7 days', null);
    const result = await stack.client.workflow.execute(maintenanceSweep, {
      workflowId: `maintenance-safety-${randomSuffix(6)}`,
      taskQueue: stack.taskQueue,
    });
    assert.ok((result.accountTokensPurged ?? 0) >= 2, JSON.stringify(result));
    const left = await storedAccountTokens([usedOld, expiredOld, usedNow, live]);
    const kept = left.map((h) => h.toString());
    assert.deepEqual(kept.sort(), [usedNow.toString(), live.toString()].sort());
  });
});
