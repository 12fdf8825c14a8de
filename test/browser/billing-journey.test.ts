// Billing journeys in a real browser, on the stack `npm start` builds: stripe-mock behind the local hosted
// checkout and portal (scripts/stand-ins/stripe-checkout.ts; the test run points STRIPE_API_URL at it). From a fresh
// account, only clicking and typing, following every redirect: buy a token pack and pay (the page waits for the
// confirmation while the worker is held back); the same and cancel;
// subscribe to Pro; in the portal switch to Business, cancel at the period end, then cancel now. Each Pay or portal
// action is the stand-in sending the service Stripe's signed events; the Billing page shows what they brought once
// they are applied. Every step is screenshotted into test-artifacts/billing-journey/.
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { randomSuffix } from '../../lib/ids';
import { checkEachTest, navigate, onPage, openBrowser, signUpInBrowser, type BrowserSession } from '../helpers/browser';
import { paidGrants, userIdByEmail } from '../helpers/db-inspect';
import { startStack, type Stack } from '../helpers/stack';

/** How long the page may take to show an applied event (the page itself polls for up to 60 s). */
const APPLIED_MS = 60_000;

describe('billing journeys in a real browser: local checkout and portal', function () {
  this.timeout(300_000);
  let stack: Stack;
  let session: BrowserSession;
  let page: Page;
  let origin: string;
  let checkoutOrigin: string;
  const email = `billing-${randomSuffix(8)}@example.test`;

  before(async () => {
    assert.ok(process.env.STRIPE_API_URL, 'the test run points STRIPE_API_URL at the local checkout');
    stack = await startStack('billing-journey');
    origin = stack.baseUrl;
    checkoutOrigin = new URL(process.env.STRIPE_API_URL).origin;
    session = await openBrowser('billing-journey', origin);
    session.allow(checkoutOrigin);
    page = session.page;
    await signUpInBrowser(page, origin, email, 'Correct-Horse-42');
    // the signed-out start page and the sign-up made no failing request either
    const early = session.takeProblems();
    assert.deepEqual(early, [], early.join('\n'));
  });
  checkEachTest(() => session);
  after(async () => {
    await session?.close();
    await stack?.stop();
  });

  const summary = () => page.locator('.summary');
  const balance = async () => Number((await summary().locator('.big strong').innerText()).trim());
  const notice = () => page.locator('.return-notice');
  const onCheckout = () =>
    page.waitForURL((u) => u.origin === checkoutOrigin && u.pathname.startsWith('/checkout/cs_'));
  const onPortal = () => page.waitForURL((u) => u.origin === checkoutOrigin && u.pathname.startsWith('/portal/'));
  const backOnBilling = async () => {
    await page.waitForURL((u) => u.origin === origin && u.hash.startsWith('#/billing'));
    await onPage(page, /Billing/);
  };

  it('buys 100 tokens: Billing → Buy 100 tokens → local checkout → Pay → the new balance on Billing', async () => {
    await navigate(page, 'Billing');
    await page.getByRole('heading', { name: 'Token packs' }).waitFor();
    assert.equal(await balance(), 50, 'a fresh account has the free allowance');
    await page.getByText('No paid subscription.').waitFor();
    await session.shot('billing-fresh');

    await page.getByRole('button', { name: 'Buy 100 tokens' }).click();
    await onCheckout();
    // the stand-in's page says what it is and shows the line item the service asked for
    await page.getByText('Local stand-in for Stripe').first().waitFor();
    await page.getByRole('heading', { name: '100 tokens' }).waitFor();
    await page.getByText('9.00 USD').waitFor();
    await session.shot('checkout-100-tokens');

    // The worker is held back for this payment (the service's side only: nothing is sent to the page or the API),
    // so the page is seen waiting for the confirmation before the event is applied.
    await stack.stopWorker();
    await page.getByRole('button', { name: 'Pay' }).click();
    await backOnBilling();
    await notice().getByText('Payment received. Waiting for confirmation from the payment provider…').waitFor();
    assert.equal(await balance(), 50);
    await session.shot('billing-payment-received-waiting');
    await stack.startWorker();
    await notice()
      .getByText('Payment received: 100 tokens added. Your balance is now 150 tokens.')
      .waitFor({ timeout: APPLIED_MS });
    assert.equal(await balance(), 150);
    assert.match(await page.locator('#account-balance').innerText(), /^150 tokens/);
    // the return address is not left in the bar: a reload shows the page, not the message again
    assert.equal(new URL(page.url()).hash, '#/billing');
    await session.shot('billing-150-tokens');
  });

  it('cancels a checkout: Buy 100 tokens → Cancel → Billing says cancelled, balance unchanged', async () => {
    await page.getByRole('button', { name: 'Buy 100 tokens' }).click();
    await onCheckout();
    await page.getByRole('heading', { name: '100 tokens' }).waitFor();
    await session.shot('checkout-before-cancel');
    await page.getByRole('link', { name: 'Cancel' }).click();
    await backOnBilling();
    await notice().getByText('Checkout cancelled; nothing was charged.').waitFor();
    assert.equal(await balance(), 150);
    await session.shot('billing-checkout-cancelled');
  });

  it('subscribes to Pro: Choose Pro → Pay → plan Pro and 500 tokens more', async () => {
    const before = await balance();
    await page.getByRole('button', { name: 'Choose Pro' }).click();
    await onCheckout();
    await page.getByRole('heading', { name: 'Pro plan' }).waitFor();
    await page.getByText('29.00 USD a month').waitFor();
    await page.getByText('500 tokens a month').waitFor();
    await session.shot('checkout-pro');

    await page.getByRole('button', { name: 'Pay' }).click();
    await backOnBilling();
    await notice()
      .getByText(
        `Payment received: you are now on Pro, with 500 tokens added. Your balance is now ${before + 500} tokens.`,
      )
      .waitFor({ timeout: APPLIED_MS });
    await summary().getByText('Plan: Pro').waitFor();
    assert.equal(await balance(), before + 500);
    await page.locator('#sub-h + p', { hasText: 'Pro · active' }).waitFor();
    await page.getByRole('button', { name: 'Switch to Business in the portal' }).waitFor();
    await session.shot('billing-pro');
  });

  it('switches to Business in the portal: Manage billing → Switch to Business → back → plan Business', async () => {
    await page.getByRole('button', { name: 'Manage billing' }).click();
    await onPortal();
    await page.getByText('Local stand-in for Stripe').first().waitFor();
    await page.getByRole('heading', { name: 'Pro plan' }).waitFor();
    await page.getByText('Status: active').waitFor();
    await session.shot('portal-pro');

    await page.getByRole('button', { name: 'Switch to Business' }).click();
    await page.getByText('Your plan was switched.').waitFor();
    await page.getByRole('heading', { name: 'Business plan' }).waitFor();
    await session.shot('portal-switched-to-business');

    await page.getByRole('link', { name: 'Return to the service' }).click();
    await backOnBilling();
    await notice().getByText('Your subscription was updated: Business · active.').waitFor({ timeout: APPLIED_MS });
    await summary().getByText('Plan: Business').waitFor();
    await page.locator('#sub-h + p', { hasText: 'Business · active' }).waitFor();
    await session.shot('billing-business');
  });

  it('cancels in the portal: at the period end (cancelling), then at once (cancelled, back to Free)', async () => {
    const tokens = await balance();
    await page.getByRole('button', { name: 'Manage billing' }).click();
    await onPortal();
    await page.getByRole('button', { name: 'Cancel subscription' }).click();
    await page.getByText('Your subscription is cancelled: it ends at the end of the period.').waitFor();
    await page.getByText(/cancels on \d{4}-\d\d-\d\d/).waitFor();
    await session.shot('portal-cancelling');
    await page.getByRole('link', { name: 'Return to the service' }).click();
    await backOnBilling();
    await notice()
      .getByText(/Your subscription is cancelled: Business until/)
      .waitFor({ timeout: APPLIED_MS });
    await page.locator('#sub-h + p', { hasText: 'Business · active · cancelled, ends at the period end' }).waitFor();
    await summary().getByText('Plan: Business').waitFor(); // the plan holds until the period ends
    await session.shot('billing-cancelling');

    await page.getByRole('button', { name: 'Manage billing' }).click();
    await onPortal();
    await page.getByRole('button', { name: 'Cancel immediately' }).click();
    await page.getByText('Your subscription has ended.').waitFor();
    await page.getByText('Status: canceled').waitFor();
    await session.shot('portal-cancelled');
    await page.getByRole('link', { name: 'Return to the service' }).click();
    await backOnBilling();
    await notice().getByText('Your subscription has ended; you are on the Free plan.').waitFor({ timeout: APPLIED_MS });
    await summary().getByText('Plan: Free').waitFor();
    await page.getByRole('button', { name: 'Choose Pro' }).waitFor();
    assert.equal(await balance(), tokens, 'granted tokens stay until they expire');
    await session.shot('billing-cancelled');

    // What the journey left in the ledger: the pack once, the Pro period once, nothing for the cancelled checkout.
    const grants = await paidGrants(await userIdByEmail(email));
    assert.deepEqual(
      grants.map((g) => [g.source, g.amount]),
      [
        ['payg_purchase', 100],
        ['plan', 500],
      ],
    );
  });
});
