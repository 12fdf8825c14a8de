// A newcomer's first five minutes (issue 39), in a real browser by clicking and typing: the signed-out front page
// (real mockups this service rendered, the plans and packs, no failing request), a new account's first mockup from a
// sample in at most four clicks, keys created and revoked on Developers (the only place for them; the old #/keys
// address opens it), the onboarding checklist ticking from the server's data, axe-core on every page signed out and
// in (no serious or critical violation), and nothing scrolling sideways at 390 px.
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import sharp from 'sharp';
import { randomSuffix } from '../../lib/ids';
import {
  ARTIFACTS,
  assertAccessible,
  assertNoSideways,
  FRONT_PAGE,
  navigate,
  onPage,
  openAccountMenu,
  useJourney,
} from '../helpers/browser';
import { http } from '../helpers/http';
import { sleep } from '../helpers/wait';

/** Pages a signed-in person reaches from the top bar or the account menu: [link, page title]. */
const SIGNED_IN_PAGES = [
  ['Studio', 'Mockup studio'],
  ['Designs', 'Designs'],
  ['Design chat', 'Design chat'],
  ['Storefront', 'Storefront'],
  ['Developers', 'Developers'],
  ['Account', 'Account'],
  ['Billing', 'Billing'],
] as const;

/** The screenshots docs/dashboard.md shows, copied from this journey's artifacts. */
const DOCS_IMAGES = path.resolve(__dirname, '../../docs/images');

describe("A newcomer's first five minutes (browser)", function () {
  this.timeout(300_000);
  const { stack, browser } = useJourney('newcomer');
  let origin: string;
  let page: Page;
  const email = `newcomer-${randomSuffix(8)}@example.test`;
  const password = 'Correct-Horse-42';
  let key = '';

  before(() => {
    origin = stack.baseUrl;
    page = browser.page;
  });

  /**
   * A screenshot for the docs: into test-artifacts like every step, and with UPDATE_DOCS_SCREENSHOTS=1 also into
   * docs/images (the pictures docs/dashboard.md shows).
   */
  async function docShot(name: string) {
    await browser.shot(name);
    if (!process.env.UPDATE_DOCS_SCREENSHOTS) return;
    const dir = path.join(ARTIFACTS, 'newcomer');
    const file = readdirSync(dir)
      .filter((f) => f.endsWith(`-${name}.png`))
      .sort()
      .pop()!;
    mkdirSync(DOCS_IMAGES, { recursive: true });
    // 1000 px wide, 256 colours: small enough to keep in the repository
    await sharp(path.join(dir, file))
      .resize({ width: 1000 })
      .png({ palette: true, quality: 90 })
      .toFile(path.join(DOCS_IMAGES, `dashboard-${name}.png`));
  }

  /** Shrinks the window to a phone, checks nothing scrolls sideways and axe finds nothing, and grows it back. */
  async function checkPage(where: string) {
    await assertAccessible(page, where);
    await page.setViewportSize({ width: 390, height: 844 });
    await assertNoSideways(page, `${where} at 390 px`);
    await assertAccessible(page, `${where} at 390 px`);
    await page.setViewportSize({ width: 1280, height: 900 });
  }

  it('shows a signed-out visitor real mockups, the plans and packs, and fails no request', async () => {
    const failed: string[] = [];
    page.on('response', (r) => {
      if (r.status() >= 400) failed.push(`${r.status()} ${r.url()}`);
    });
    await page.goto(`${origin}/`);
    await onPage(page, FRONT_PAGE);
    // at least three mockups, each an image this service rendered (a /files URL) that loaded
    const strip = page.getByRole('list', { name: 'Mockups made by this service' });
    await strip.waitFor({ timeout: 60_000 });
    await page.waitForFunction(
      () => {
        const imgs = [...(globalThis as any).document.querySelectorAll('.showcase img')];
        return imgs.length >= 3 && imgs.every((i: any) => i.complete && i.naturalWidth > 0);
      },
      undefined,
      { timeout: 60_000 },
    );
    const srcs = await strip.locator('img').evaluateAll((imgs) => imgs.map((i: any) => i.src as string));
    assert.ok(srcs.length >= 3);
    for (const src of srcs) assert.ok(src.startsWith(`${origin}/files/showcase/`), src);
    // the plans and packs with prices, as GET /api/payments/plans answers them
    const plans = (await http(origin, 'GET', '/api/payments/plans')).body;
    const planList = page.getByRole('list', { name: 'Plans' });
    for (const p of plans.plans) await planList.getByRole('heading', { name: p.name }).waitFor();
    const packs = page.getByRole('list', { name: 'Token packs' });
    for (const t of plans.tokenPacks) await packs.getByRole('heading', { name: `${t.tokens} tokens` }).waitFor();
    assert.ok(plans.tokenPacks.length > 0);
    await packs.getByText('$').first().waitFor();
    // links to the API reference and its quick start
    assert.equal(await page.getByRole('link', { name: 'API reference' }).getAttribute('href'), '/docs');
    assert.match((await page.getByRole('link', { name: 'Quick start' }).getAttribute('href')) ?? '', /^\/docs#/);
    await docShot('front-page');
    await checkPage('front page');

    // the other signed-out pages
    await page.getByRole('link', { name: 'Sign in', exact: true }).click();
    await onPage(page, 'Sign in');
    await checkPage('sign in');
    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    await onPage(page, /Forgot your password/);
    await checkPage('forgot password');
    await page.getByRole('link', { name: 'Apparel mockups' }).click();
    await onPage(page, FRONT_PAGE);
    await page.getByRole('link', { name: 'Create an account' }).click();
    await onPage(page, 'Create an account');
    await checkPage('create an account');
    assert.deepEqual(failed, [], `failed requests: ${failed.join(', ')}`);
  });

  it('makes a new account’s first mockup from a sample in at most four clicks', async () => {
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Create account' }).click();
    await onPage(page, 'Mockup studio');
    // the checklist: nothing done yet
    const checklist = page.getByRole('region', { name: 'Getting started' });
    await checklist.getByText('0 of 4 done.').waitFor();
    await page.getByRole('button', { name: 'Try Retro sunset' }).waitFor();
    await browser.shot('studio-new-account');

    let clicks = 0;
    // 1: the sample
    await page.getByRole('button', { name: 'Try Retro sunset' }).click();
    clicks++;
    await onPage(page, 'Mockup studio');
    await page.waitForFunction(() =>
      (globalThis as any).document
        .querySelector('select[name=design]')
        ?.selectedOptions[0]?.text.includes('Retro sunset'),
    );
    await page.getByText('Preview up to date').waitFor({ timeout: 30_000 });
    // 2: the garment
    await page.getByLabel('Garment').selectOption({ label: 'Gildan Heavy Blend Hooded Sweatshirt' });
    clicks++;
    // 3: the colour
    await page.getByRole('radio', { name: 'Navy' }).check();
    clicks++;
    await page.getByText('Preview up to date').waitFor({ timeout: 30_000 });
    // 4: Generate
    await page.getByRole('button', { name: 'Generate mockup (1 token)' }).click();
    clicks++;
    const figure = page.locator('figure.mockup');
    await figure.waitFor({ timeout: 90_000 });
    await page.waitForFunction(() => {
      const img = (globalThis as any).document.querySelector('figure.mockup img');
      return img?.complete && img.naturalWidth > 0;
    });
    assert.ok(clicks <= 4, `${clicks} clicks`);
    // the checklist ticks the mockup, from the server's data
    await checklist.getByText('1 of 4 done.').waitFor();
    assert.equal(await checklist.locator('li[data-step="mockup"].done').count(), 1);
    await docShot('studio');
  });

  it('keeps keys on Developers only: the top bar, the account menu, #/keys; a key created and revoked there', async () => {
    // at most seven items in the top bar, none of them about keys; Account and Billing in the account menu
    const items = await page.locator('#nav li').count();
    assert.ok(items <= 7, `${items} items in the top bar`);
    assert.equal(await page.locator('header').getByRole('link', { name: /key/i }).count(), 0);
    await openAccountMenu(page);
    const menu = page.getByRole('list', { name: 'Account menu' });
    await menu.getByRole('link', { name: 'Account', exact: true }).waitFor();
    await menu.getByRole('link', { name: 'Billing', exact: true }).waitFor();
    await page.keyboard.press('Escape');
    assert.equal(await page.locator('#account-menu').getAttribute('open'), null, 'Escape closes the menu');

    // the old address of the keys page opens Developers (a bookmark, an old link)
    await page.goto(`${origin}/keys`);
    await onPage(page, 'Developers');
    assert.match(page.url(), /#\/developers$/);

    await page.getByLabel('Key name').fill('my server');
    await page.getByRole('button', { name: 'Create key' }).click();
    const box = page.getByLabel('Your new API key');
    await box.waitFor();
    key = await box.inputValue();
    assert.match(key, /^[a-z]+_live_[0-9a-f]{64}$/);
    const row = page.getByRole('table', { name: 'live keys' }).locator('tr', { hasText: 'my server' });
    await row.getByText('active').waitFor();
    await docShot('developers');

    // the person's server calls the API with it, as the checklist's curl does
    assert.equal((await http(origin, 'GET', '/api/v1/garments?limit=1', { key })).status, 200);
    await navigate(page, 'Studio', 'Mockup studio');
    const checklist = page.getByRole('region', { name: 'Getting started' });
    await checklist.getByText(`curl -H "Authorization: Bearer $MOCKUP_API_KEY" ${origin}/api/v1/garments`).waitFor();
    // the request log is written just after the answer: the checklist may need a second look
    for (let i = 0; i < 20 && (await checklist.locator('li[data-step="api_call"].done').count()) === 0; i++) {
      await sleep(500);
      await navigate(page, 'Designs');
      await navigate(page, 'Studio', 'Mockup studio');
    }
    await checklist.getByText('3 of 4 done.').waitFor();
    assert.equal(await checklist.locator('li.done').count(), 3);

    // revoked on Developers: it stops working at once
    await navigate(page, 'Developers');
    await row.getByRole('button', { name: 'Revoke my server' }).click();
    await row.getByText('revoked').waitFor();
    assert.equal((await http(origin, 'GET', '/api/v1/garments?limit=1', { key })).status, 401);
  });

  it('passes axe-core on every signed-in page, and none scrolls sideways at 390 px', async () => {
    for (const [link, title] of SIGNED_IN_PAGES) {
      await navigate(page, link, title);
      if (link === 'Studio') await page.getByText('Preview up to date').waitFor({ timeout: 30_000 });
      await checkPage(title);
    }
    // the account menu open, on a phone
    await page.setViewportSize({ width: 390, height: 844 });
    await openAccountMenu(page);
    await assertNoSideways(page, 'the open account menu at 390 px');
    await assertAccessible(page, 'the open account menu at 390 px');
    await browser.shot('phone-menu');
    await page.keyboard.press('Escape');
    await page.setViewportSize({ width: 1280, height: 900 });
  });
});
