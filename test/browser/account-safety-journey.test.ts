// Account safety in a real browser (issue 33, docs/security.md#account-takeover), by clicking and typing, the mails
// opened in Mailpit's own view of them and their links clicked there: the reset page's "Also sign out API clients"
// (on by default: the keys are revoked; unticked: they stay), and "This wasn't me" from the notice to the old address
// (the change stopped, everyone signed out, sign-in waits for a reset). Screenshots in test-artifacts/account-safety/.
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { checkEachTest, onPage, openBrowser, type BrowserSession } from '../helpers/browser';
import { apiKeysRevoked, userRow } from '../helpers/db-inspect';
import { createKey, GOOD_PASSWORD, http, sessionCookie, signup, uniqueEmail } from '../helpers/http';
import { linkIn, mailsTo, waitForMail, type MailSummary } from '../helpers/mailpit';
import { startStack, type Stack } from '../helpers/stack';
import { waitUpTo } from '../helpers/wait';

describe('account safety in a real browser: the reset checkbox, "This wasn\'t me" from the mail', function () {
  this.timeout(240_000);
  let stack: Stack;
  let browser: BrowserSession | undefined;
  let origin: string;
  const mailpit = process.env.MAILPIT_URL!;
  const newPassword = 'Battery-Staple-77';
  checkEachTest(() => browser);

  before(async () => {
    stack = await startStack('account-safety-browser');
    origin = stack.baseUrl;
    browser = await openBrowser('account-safety', origin);
    browser.allow(mailpit);
  });
  after(async () => {
    await browser?.close();
    await stack?.stop();
  });

  /** Waits for a mail to `to` with a matching subject that was not there in `before` (the newest first). */
  async function newMail(to: string, subject: RegExp, before: MailSummary[] = []): Promise<MailSummary> {
    const seen = new Set(before.map((m) => m.ID));
    const hit = await waitUpTo(
      async () => (await mailsTo(to)).find((m) => subject.test(m.Subject) && !seen.has(m.ID)),
      { ms: 15_000, every: 200 },
    );
    if (!hit) throw new Error(`no new mail to ${to} matching ${subject}`);
    return hit;
  }

  /** Opens the mail as Mailpit shows it and clicks its link that leads to `path` on the service. */
  async function clickLinkInMail(page: Page, mail: MailSummary, path: string) {
    await page.goto(`${mailpit}/view/${mail.ID}.html`);
    const link = page.locator(`a[href^="${origin}${path}?token="]`);
    assert.equal(await link.count(), 1, `one ${path} link in "${mail.Subject}"`);
    await link.click();
  }

  /** Forgot password in the browser, signed out, then the reset link clicked in the mail: the reset form. */
  async function openResetFromMail(page: Page, email: string) {
    const before = await mailsTo(email);
    await page.goto(`${origin}/#/forgot-password`);
    await onPage(page, 'Forgot your password?');
    await page.getByLabel('Email').fill(email);
    await page.getByRole('button', { name: 'Send reset link' }).click();
    await page
      .locator('#main')
      .getByText(/a link to reset its password is on its way/)
      .waitFor();
    await clickLinkInMail(page, await newMail(email, /reset your password/, before), '/reset-password');
    await onPage(page, 'Choose a new password');
  }

  const keyWorks = async (key: string) =>
    (await http(origin, 'GET', '/api/v1/garments?limit=1', { key })).status === 200;

  it('reset: "Also sign out API clients" unticked keeps the keys; ticked (the default) revokes them', async () => {
    const owner = await signup(origin);
    const { key } = await createKey(origin, owner.cookie);
    const page = (await browser!.newPerson()).page;

    await openResetFromMail(page, owner.email);
    const box = page.getByRole('checkbox', { name: 'Also sign out API clients' });
    assert.equal(await box.isChecked(), true, 'on by default');
    await page.getByText(/Revokes every API key of the account and replaces its webhook signing secret/).waitFor();
    await box.uncheck();
    await page.getByLabel('New password').fill(newPassword);
    await browser!.shot('reset-keys-kept', page);
    await page.getByRole('button', { name: 'Set new password' }).click();
    await onPage(page, /Sign in/);
    assert.equal(await keyWorks(key), true, 'unticked: the key still works');

    await openResetFromMail(page, owner.email);
    assert.equal(await page.getByRole('checkbox', { name: 'Also sign out API clients' }).isChecked(), true);
    await page.getByLabel('New password').fill('Another-Pass-99');
    await browser!.shot('reset-keys-revoked', page);
    await page.getByRole('button', { name: 'Set new password' }).click();
    await onPage(page, /Sign in/);
    assert.equal(await keyWorks(key), false, 'ticked: the key is revoked');
    const revoked = await apiKeysRevoked(owner.user.id);
    assert.ok(revoked.length > 0 && revoked.every(Boolean), 'every key of the account');
  });

  it('"This wasn\'t me" clicked in the notice stops the change, signs everyone out, sign-in waits for a reset', async () => {
    const owner = await signup(origin);
    // someone who has the password signs in elsewhere and asks to move the account to their address
    const intruder = sessionCookie(
      await http(origin, 'POST', '/api/auth/login', { json: { email: owner.email, password: GOOD_PASSWORD } }),
    );
    const intruderEmail = uniqueEmail('intruder');
    const asked = await http(origin, 'POST', '/api/auth/email/change', {
      cookie: intruder,
      json: { password: GOOD_PASSWORD, newEmail: intruderEmail },
    });
    assert.equal(asked.status, 202, asked.text);

    const page = (await browser!.newPerson()).page;
    const before = await mailsTo(owner.email);
    const notice = await newMail(owner.email, /your email address is being changed/);
    await clickLinkInMail(page, notice, '/email-not-me');
    await onPage(page, "This wasn't me");
    await page.getByText(/This stops the change, or gives your address back/).waitFor();
    await browser!.shot('not-me', page);
    await page.getByRole('button', { name: 'Stop the change and secure my account' }).click();
    await page.locator('#main .sent').waitFor();
    await browser!.shot('not-me-done', page);
    assert.equal(await page.getByRole('button', { name: 'Stop the change and secure my account' }).count(), 0);

    // the change is stopped: the intruder's confirmation link is no longer valid, both sessions ended
    const confirm = linkIn(await waitForMail(intruderEmail, /confirm your new email/), `${origin}/verify-email?token=`);
    const late = await http(origin, 'POST', '/api/auth/verify', {
      json: { token: new URL(confirm).searchParams.get('token') },
    });
    assert.equal(late.status, 400, late.text);
    assert.equal(late.body.error, 'This link is no longer valid');
    assert.equal((await userRow(owner.user.id))!.email, owner.email);
    for (const cookie of [owner.cookie, intruder])
      assert.equal((await http(origin, 'GET', '/api/auth/me', { cookie })).status, 401);

    // signing in with the known password waits for a reset, whose link came with the undo
    await page.goto(`${origin}/#/signin`);
    await onPage(page, /Sign in/);
    await page.getByLabel('Email').fill(owner.email);
    await page.getByLabel('Password').fill(GOOD_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page
      .locator('#main')
      .getByText(/locked until its password is reset/)
      .waitFor();
    const problems = browser!.takeProblems();
    assert.ok(problems.length > 0 && problems.every((p) => /403/.test(p)), problems.join('\n'));
    await clickLinkInMail(page, await newMail(owner.email, /reset your password/, before), '/reset-password');
    await onPage(page, 'Choose a new password');
    await page.getByLabel('New password').fill(newPassword);
    await page.getByRole('button', { name: 'Set new password' }).click();
    await onPage(page, /Sign in/);
    await page.getByLabel('Email').fill(owner.email);
    await page.getByLabel('Password').fill(newPassword);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await onPage(page, 'Mockup studio');
  });
});
