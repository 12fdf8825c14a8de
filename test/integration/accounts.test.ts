// The account lifecycle through HTTP against the real stack, with the mails read from Mailpit (docs/accounts.md).
import assert from 'node:assert/strict';
import { Context } from '@temporalio/activity';
import type { Activities } from '../../activities';
import { accountTokens, expireAccountTokens, ownedRowCounts, userRow } from '../helpers/db-inspect';
import * as F from '../helpers/fixtures';
import { GOOD_PASSWORD, createKey, http, sessionCookie, signup, uniqueEmail } from '../helpers/http';
import { linkIn, mailsTo, waitForMail } from '../helpers/mailpit';
import { startStack, workflowResultWhenStarted, type Stack } from '../helpers/stack';
import { waitUpTo } from '../helpers/wait';

const NEW_PASSWORD = 'Battery-Staple-77';

describe('account lifecycle (/api/auth: verify, reset, change, export, delete)', function () {
  this.timeout(120_000);
  let stack: Stack;
  before(async () => {
    stack = await startStack('accounts', {
      env: { EMAIL_VERIFICATION: 'required', AUTH_VERIFY_RESENDS_PER_HOUR: '2' },
    });
  });
  after(async () => stack?.stop());

  const tokenOf = (link: string) => new URL(link).searchParams.get('token')!;
  const login = (email: string, password: string) =>
    http(stack.baseUrl, 'POST', '/api/auth/login', { json: { email, password } });

  it('signup with EMAIL_VERIFICATION=required: no Free tokens until the link in the mail is opened, once', async () => {
    const s = await signup(stack.baseUrl);
    assert.equal(s.user.tokenBalance, 0);
    assert.equal(s.user.emailVerified, false);
    assert.equal(s.user.freeGrantPending, true);
    const mail = await waitForMail(s.email, /verify your email/);
    assert.match(mail.Subject, /^Apparel mockups: /);
    assert.match(mail.HTML, /<a href="http:\/\/127\.0\.0\.1:\d+\/verify-email\?token=/);
    assert.doesNotMatch(mail.HTML, /<img/i, 'no tracking pixel');
    const link = linkIn(mail, `${stack.baseUrl}/verify-email?token=`);
    // the stored token is a hash, not the token of the link
    const [row] = await accountTokens(s.user.id);
    assert.notEqual(row!.tokenHash.toString('base64url'), tokenOf(link));
    // the link opens the dashboard's page
    const page = await http(stack.baseUrl, 'GET', new URL(link).pathname + new URL(link).search);
    assert.equal(page.status, 302);
    assert.equal(page.headers.get('location'), `/#/verify-email?token=${tokenOf(link)}`);

    const ok = await http(stack.baseUrl, 'POST', '/api/auth/verify', { json: { token: tokenOf(link) } });
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.body.user.emailVerified, true);
    assert.equal(ok.body.user.tokenBalance, 50);
    const again = await http(stack.baseUrl, 'POST', '/api/auth/verify', { json: { token: tokenOf(link) } });
    assert.equal(again.status, 400);
    assert.match(again.body.error, /invalid, already used or expired/);
    const me = await http(stack.baseUrl, 'GET', '/api/auth/me', { cookie: s.cookie });
    assert.equal(me.body.user.tokenBalance, 50, 'granted once');
  });

  it('a signup farm gets nothing: unverified accounts have no tokens and paid calls answer 402', async () => {
    const s = await signup(stack.baseUrl);
    const { key } = await createKey(stack.baseUrl, s.cookie);
    const garments = await http(stack.baseUrl, 'GET', '/api/v1/garments', { key });
    const garment = garments.body.garments[0];
    const gen = await http(stack.baseUrl, 'POST', '/api/v1/generate', {
      key,
      json: {
        garmentId: garment.id,
        garmentImageUrl: garment.colors[0].imageUrl,
        designUrl: `${stack.baseUrl}/files/uploads/upl_1_nothinghere.png`,
      },
    });
    assert.equal(gen.status, 402, gen.text);
    assert.equal(gen.body.error.code, 'insufficient_tokens');
    assert.equal(gen.body.error.details.reason, 'email_unverified');
    const chat = await http(stack.baseUrl, 'POST', '/api/chat', { cookie: s.cookie, json: { prompt: 'a red fox' } });
    assert.equal(chat.status, 402, chat.text);
    assert.equal(chat.body.error, 'Verify your email to receive your free tokens');
  });

  it('resends the verification link, rate-limited per account (AUTH_VERIFY_RESENDS_PER_HOUR)', async () => {
    const s = await signup(stack.baseUrl);
    await waitForMail(s.email, /verify your email/);
    const first = await http(stack.baseUrl, 'POST', '/api/auth/verify/resend', { cookie: s.cookie });
    assert.equal(first.status, 202, first.text);
    await http(stack.baseUrl, 'POST', '/api/auth/verify/resend', { cookie: s.cookie });
    const third = await http(stack.baseUrl, 'POST', '/api/auth/verify/resend', { cookie: s.cookie });
    assert.equal(third.status, 429);
    assert.ok(Number(third.headers.get('retry-after')) > 0);
    assert.equal(typeof third.body.error, 'string');
    // only the newest link works
    await waitUpTo(async () => (await mailsTo(s.email)).length >= 3, { ms: 15_000, every: 200 });
    const mails = await mailsTo(s.email);
    assert.equal(mails.length, 3);
  });

  it('signing up with a taken email keeps the 409 and tells the owner', async () => {
    const s = await signup(stack.baseUrl);
    const res = await http(stack.baseUrl, 'POST', '/api/auth/signup', {
      json: { email: s.email.toUpperCase(), password: GOOD_PASSWORD },
    });
    assert.equal(res.status, 409);
    assert.deepEqual(Object.keys(res.body), ['error']);
    const mail = await waitForMail(s.email, /someone tried to create an account/);
    assert.match(mail.Text, /reset your password/i);
    assert.ok(linkIn(mail, `${stack.baseUrl}/forgot-password`));
  });

  it('forgot password: 202 whatever the email; the link resets it once and ends every session', async () => {
    const unknown = uniqueEmail('nobody');
    const none = await http(stack.baseUrl, 'POST', '/api/auth/password/forgot', { json: { email: unknown } });
    assert.equal(none.status, 202);
    const s = await signup(stack.baseUrl);
    const other = sessionCookie(await login(s.email, GOOD_PASSWORD));
    const res = await http(stack.baseUrl, 'POST', '/api/auth/password/forgot', { json: { email: s.email } });
    assert.equal(res.status, 202);
    assert.deepEqual(res.body, none.body, 'the same answer for an unknown email');
    const bad = await http(stack.baseUrl, 'POST', '/api/auth/password/forgot', { json: { email: 'not-an-email' } });
    assert.equal(bad.status, 400);

    const link = linkIn(await waitForMail(s.email, /reset your password/), `${stack.baseUrl}/reset-password?token=`);
    const weak = await http(stack.baseUrl, 'POST', '/api/auth/password/reset', {
      json: { token: tokenOf(link), password: 'short' },
    });
    assert.equal(weak.status, 400);
    const reset = await http(stack.baseUrl, 'POST', '/api/auth/password/reset', {
      json: { token: tokenOf(link), password: NEW_PASSWORD },
    });
    assert.equal(reset.status, 204, reset.text);
    for (const cookie of [s.cookie, other])
      assert.equal((await http(stack.baseUrl, 'GET', '/api/auth/me', { cookie })).status, 401);
    assert.equal((await login(s.email, GOOD_PASSWORD)).status, 401);
    assert.equal((await login(s.email, NEW_PASSWORD)).status, 200);
    const reuse = await http(stack.baseUrl, 'POST', '/api/auth/password/reset', {
      json: { token: tokenOf(link), password: 'Another-Password-9' },
    });
    assert.equal(reuse.status, 400);
    await waitForMail(s.email, /your password was changed/);
    assert.equal((await mailsTo(unknown)).length, 0);
  });

  it('a reset link expires after an hour', async () => {
    const s = await signup(stack.baseUrl);
    await http(stack.baseUrl, 'POST', '/api/auth/password/forgot', { json: { email: s.email } });
    const link = linkIn(await waitForMail(s.email, /reset your password/), `${stack.baseUrl}/reset-password?token=`);
    const [t] = await accountTokens(s.user.id, 'reset_password');
    assert.equal(t!.ttlSeconds, 3600);
    await expireAccountTokens(s.user.id, 'reset_password');
    const res = await http(stack.baseUrl, 'POST', '/api/auth/password/reset', {
      json: { token: tokenOf(link), password: NEW_PASSWORD },
    });
    assert.equal(res.status, 400);
  });

  it('changes the password with the current one, ending the other sessions only', async () => {
    const s = await signup(stack.baseUrl);
    const other = sessionCookie(await login(s.email, GOOD_PASSWORD));
    const wrong = await http(stack.baseUrl, 'POST', '/api/auth/password/change', {
      cookie: s.cookie,
      json: { currentPassword: 'Wrong-Password-1', newPassword: NEW_PASSWORD },
    });
    assert.equal(wrong.status, 400);
    assert.equal(wrong.body.error, 'Current password is incorrect');
    const ok = await http(stack.baseUrl, 'POST', '/api/auth/password/change', {
      cookie: s.cookie,
      json: { currentPassword: GOOD_PASSWORD, newPassword: NEW_PASSWORD },
    });
    assert.equal(ok.status, 204, ok.text);
    assert.equal((await http(stack.baseUrl, 'GET', '/api/auth/me', { cookie: s.cookie })).status, 200);
    assert.equal((await http(stack.baseUrl, 'GET', '/api/auth/me', { cookie: other })).status, 401);
    await waitForMail(s.email, /your password was changed/);
  });

  it('changes the email once the new address is verified; the old one is told', async () => {
    const s = await signup(stack.baseUrl);
    const newEmail = uniqueEmail('moved');
    const res = await http(stack.baseUrl, 'POST', '/api/auth/email/change', {
      cookie: s.cookie,
      json: { password: GOOD_PASSWORD, newEmail },
    });
    assert.equal(res.status, 202, res.text);
    const me = await http(stack.baseUrl, 'GET', '/api/auth/me', { cookie: s.cookie });
    assert.equal(me.body.user.email, s.email, 'unchanged until verified');
    assert.equal(me.body.user.pendingEmail, newEmail);
    const notice = await waitForMail(s.email, /your email address is being changed/);
    assert.ok(notice.Text.includes(newEmail));
    const link = linkIn(await waitForMail(newEmail, /confirm your new email/), `${stack.baseUrl}/verify-email?token=`);
    const ok = await http(stack.baseUrl, 'POST', '/api/auth/verify', { json: { token: tokenOf(link) } });
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.body.user.email, newEmail);
    assert.equal(ok.body.user.emailVerified, true);
    assert.equal((await login(newEmail, GOOD_PASSWORD)).status, 200);
    assert.equal((await login(s.email, GOOD_PASSWORD)).status, 401);
    const taken = await http(stack.baseUrl, 'POST', '/api/auth/email/change', {
      cookie: s.cookie,
      json: { password: GOOD_PASSWORD, newEmail: (await signup(stack.baseUrl)).email },
    });
    assert.equal(taken.status, 202, 'the same answer whether or not the address has an account');
  });

  it('exports everything held about the account, with links to its files', async () => {
    const s = await signup(stack.baseUrl);
    const { key } = await createKey(stack.baseUrl, s.cookie);
    const up = await http(stack.baseUrl, 'POST', '/api/v1/upload', {
      key,
      json: { imageData: F.toDataUrl(await F.crispLogo(300, 375)) },
    });
    assert.equal(up.status, 201, up.text);
    const res = await http(stack.baseUrl, 'GET', '/api/auth/account/export', { cookie: s.cookie });
    assert.equal(res.status, 200, res.text);
    assert.match(res.headers.get('content-disposition') ?? '', /attachment/);
    assert.equal(res.body.profile.email, s.email);
    assert.equal(res.body.apiKeys.length, 1);
    assert.equal('keyHash' in res.body.apiKeys[0], false);
    assert.equal(res.body.uploads.length, 1);
    const file = await fetch(res.body.uploads[0].storageUrl);
    assert.equal(file.status, 200);
    assert.ok(Array.isArray(res.body.ledger.grants));
    assert.ok(res.body.mails.some((m: { kind: string }) => m.kind === 'verify_email'));
    assert.equal(JSON.stringify(res.body).includes('scrypt$'), false, 'no password hash');
    assert.equal((await http(stack.baseUrl, 'GET', '/api/auth/account/export')).status, 401);
  });

  /** A signed-up account with an API key and one upload; returns its upload's file URL. */
  async function accountWithFile() {
    const s = await signup(stack.baseUrl);
    const { key } = await createKey(stack.baseUrl, s.cookie);
    const up = await http(stack.baseUrl, 'POST', '/api/v1/upload', {
      key,
      json: { imageData: F.toDataUrl(await F.crispLogo(300, 376)) },
    });
    assert.equal(up.status, 201, up.text);
    return { ...s, key, fileUrl: up.body.url as string };
  }

  it('deletes the account: password required, signed out, cannot sign in, files and personal data gone', async () => {
    const a = await accountWithFile();
    const wrong = await http(stack.baseUrl, 'DELETE', '/api/auth/account', {
      cookie: a.cookie,
      json: { password: 'Wrong-Password-1' },
    });
    assert.equal(wrong.status, 400);
    const res = await http(stack.baseUrl, 'DELETE', '/api/auth/account', {
      cookie: a.cookie,
      json: { password: GOOD_PASSWORD },
    });
    assert.equal(res.status, 202, res.text);
    assert.equal(res.body.workflowId, `account-deletion-${a.user.id}`);
    assert.equal((await http(stack.baseUrl, 'GET', '/api/auth/me', { cookie: a.cookie })).status, 401);
    assert.equal((await login(a.email, GOOD_PASSWORD)).status, 401);
    assert.equal((await http(stack.baseUrl, 'GET', '/api/v1/garments', { key: a.key })).status, 401);
    const result = await workflowResultWhenStarted<{ filesDeleted: number }>(stack.client, res.body.workflowId);
    assert.ok(result.filesDeleted >= 2, JSON.stringify(result));
    assert.equal((await fetch(a.fileUrl)).status, 404);
    const u = await userRow(a.user.id);
    assert.equal(u!.email, `deleted-${a.user.id}@invalid`);
    assert.ok(u!.erasedAt);
    const left = await ownedRowCounts(a.user.id, ['uploads', 'token_grants']);
    assert.equal(left.uploads, 0);
    assert.equal(left.token_grants, 0, 'unverified: nothing was granted, so nothing to keep');
    // the address is free again
    assert.equal((await signup(stack.baseUrl, a.email)).email, a.email);
  });

  it('a deletion cut off by a worker crash finishes when a worker comes back', async () => {
    const a = await accountWithFile();
    await stack.stopWorker();
    let entered!: () => void;
    const reached = new Promise<void>((r) => (entered = r));
    // a worker whose file deletion never ends: the deletion is under way in it when it is stopped
    const hanging: Partial<Activities> = {
      deleteAccountFiles: () => {
        entered();
        // ends only when the worker shutting down cancels it
        return new Promise((_, reject) => Context.current().cancelled.catch(reject));
      },
    };
    await stack.startWorker(hanging);
    const res = await http(stack.baseUrl, 'DELETE', '/api/auth/account', {
      cookie: a.cookie,
      json: { password: GOOD_PASSWORD },
    });
    assert.equal(res.status, 202, res.text);
    await reached;
    await stack.stopWorker();
    assert.equal((await userRow(a.user.id))!.erasedAt, null, 'not finished while the worker was down');
    await stack.startWorker();
    const result = await workflowResultWhenStarted<{ filesDeleted: number }>(stack.client, res.body.workflowId, 90_000);
    assert.ok(result.filesDeleted >= 2);
    assert.equal((await fetch(a.fileUrl)).status, 404);
  });
});
