// The account lifecycle in a real browser, by clicking and typing, with the mails read from Mailpit and their links
// opened in the browser as a person would: signup → mail → link → tokens shown; forgot → mail → reset → the old
// session is gone; delete → cannot sign in, files gone. Screenshots in test-artifacts/account/.
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { randomSuffix } from '../../lib/ids';
import { choosePng, FRONT_PAGE, navigate, onPage, signUpInBrowser, useJourney } from '../helpers/browser';
import { uploadKeys, userIdByEmail } from '../helpers/db-inspect';
import * as F from '../helpers/fixtures';
import { linkIn, waitForMail } from '../helpers/mailpit';
import { workflowResultWhenStarted } from '../helpers/stack';

describe('account journeys in a real browser', function () {
  this.timeout(240_000);
  const { stack, browser } = useJourney('account-browser', {
    env: { EMAIL_VERIFICATION: 'required' },
    artifacts: 'account',
  });
  let page: Page;
  let origin: string;
  const password = 'Correct-Horse-42';
  const newPassword = 'Battery-Staple-77';
  before(() => {
    origin = stack.baseUrl;
    page = browser.page;
  });

  /** A 4xx provoked on purpose is logged by Chromium: exactly those, and nothing else. */
  function expectLogged(what: RegExp) {
    const problems = browser.takeProblems();
    assert.ok(problems.length > 0 && problems.every((p) => what.test(p)), problems.join('\n'));
  }

  const signUp = (p: Page, email: string) => signUpInBrowser(p, origin, email, password);

  async function signIn(p: Page, email: string, pw: string) {
    await p.goto(`${origin}/#/signin`);
    await onPage(p, /Sign in/);
    await p.getByLabel('Email').fill(email);
    await p.getByLabel('Password').fill(pw);
    await p.getByRole('button', { name: 'Sign in' }).click();
  }

  it('signup → the mail in Mailpit → its link → the free tokens are shown', async () => {
    const email = `verify-${randomSuffix(8)}@example.test`;
    await signUp(page, email);
    const banner = page.getByRole('region', { name: 'Verify your email' });
    await banner.getByText('Verify your email to receive your free tokens').waitFor();
    assert.match(await page.locator('#account-balance').innerText(), /^0 tokens/);
    await browser.shot('unverified');
    const link = linkIn(await waitForMail(email, /verify your email/), `${origin}/verify-email?token=`);
    await page.goto(link);
    await onPage(page, 'Verify your email');
    await page.getByText(/is verified\. Your balance: 50 tokens/).waitFor();
    await page
      .locator('#account-balance')
      .getByText(/^50 tokens/)
      .waitFor();
    await browser.shot('verified');
    await navigate(page, 'Studio', 'Mockup studio');
    assert.equal(await banner.count(), 0, 'no banner once verified');
  });

  it('forgot → the mail → reset → the old session is gone, the new password signs in', async () => {
    const email = `reset-${randomSuffix(8)}@example.test`;
    page = (await browser.newPerson()).page; // a person of their own, signed out
    await signUp(page, email);
    // another person (a second browser profile) asks for the reset, signed out
    const other = await browser.newPerson();
    await other.page.goto(`${origin}/`);
    await onPage(other.page, FRONT_PAGE);
    await other.page.getByRole('link', { name: 'Sign in', exact: true }).click();
    await onPage(other.page, /Sign in/);
    await other.page.getByRole('link', { name: 'Forgot your password?' }).click();
    await onPage(other.page, 'Forgot your password?');
    await other.page.getByLabel('Email').fill(email);
    await other.page.getByRole('button', { name: 'Send reset link' }).click();
    await other.page
      .locator('#main')
      .getByText(/a link to reset its password is on its way/)
      .waitFor();
    const link = linkIn(await waitForMail(email, /reset your password/), `${origin}/reset-password?token=`);
    await other.page.goto(link);
    await onPage(other.page, 'Choose a new password');
    await other.page.getByLabel('New password').fill(newPassword);
    await other.page.getByRole('button', { name: 'Set new password' }).click();
    await onPage(other.page, /Sign in/);
    await browser.shot('reset-done', other.page);

    // the first browser's session ended: a reload lands on Sign in
    await page.reload();
    await onPage(page, /Sign in/);
    await signIn(page, email, password);
    await page.locator('#main').getByText('Email or password is incorrect').waitFor();
    expectLogged(/401/);
    await signIn(page, email, newPassword);
    await onPage(page, 'Mockup studio');
  });

  it('delete with typed confirmation → cannot sign in, the files are gone', async () => {
    const email = `delete-${randomSuffix(8)}@example.test`;
    page = (await browser.newPerson()).page;
    await signUp(page, email);
    await navigate(page, 'Designs');
    await choosePng(page, 'logo.png', await F.crispLogo(600, 750));
    await page.locator('.upload-result').getByRole('heading', { name: 'logo.png' }).waitFor();
    const userId = await userIdByEmail(email);
    const [key] = await uploadKeys(userId);
    assert.ok(key);
    assert.equal((await fetch(`${origin}/files/${key}`)).status, 200);

    await navigate(page, 'Account');
    const form = page.getByRole('form', { name: 'Delete account' });
    await form.getByLabel('Type DELETE to confirm').fill('DELETE');
    await form.getByLabel('Current password').fill(password);
    await browser.shot('delete');
    await form.getByRole('button', { name: 'Delete my account' }).click();
    await onPage(page, /Sign in/);

    await workflowResultWhenStarted(stack.client, `account-deletion-${userId}`);
    assert.equal((await fetch(`${origin}/files/${key}`)).status, 404);
    await signIn(page, email, password);
    await page.locator('#main').getByText('Email or password is incorrect').waitFor();
    expectLogged(/401/);
  });
});
