// The storefront journeys in Chromium, on the stack `npm start` builds for it: the local development shop with
// SHOPIFY_DEV_SHOP_URL pointing the merchant's browser at it (as scripts/stand-ins/dev-shop-start.ts does). Only
// clicking and typing, following every redirect: Storefront → Connect → the dev shop's consent page → Install →
// back on Storefront, store active → Design chat → a design → Publish to store on its mockup → Publish → Open store
// → the product on the dev shop → Place test order → the order on Storefront (no reload, no sweep: the page looks again by itself) → its production ready, the order in
// the production queue → Download the ZIP, the job sheet and the print file → Send tracking → fulfilled, the queue
// empty. And the OAuth
// binding: user A's authorize URL approved in user B's browser connects nothing for either. Screenshots of each step
// go to test-artifacts/storefront-journey/.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import sharp from 'sharp';
import { randomSuffix } from '../../lib/ids';
import { checkEachTest, navigate, onPage, openBrowser, signUpInBrowser, type BrowserSession } from '../helpers/browser';
import { GOOD_PASSWORD, uniqueEmail } from '../helpers/http';
import * as inspect from '../helpers/db-inspect';
import { useShopStack } from '../helpers/storefront';
import { zipNames } from '../helpers/zip';

const INVALID_STATE = 'Invalid state: the authorization took too long or was abandoned';

describe('storefront journeys in a real browser', function () {
  this.timeout(300_000);
  let s: BrowserSession;
  let origin: string;
  after(async () => s?.close());
  // the merchant's browser is sent to the dev shop itself (SHOPIFY_DEV_SHOP_URL), as under `npm start`
  const t = useShopStack('storefront-journey', {
    apiKey: 'journey-app',
    tokenKey: false,
    env: (shop) => ({ SHOPIFY_DEV_SHOP_URL: shop.url }),
  });
  const { stack, shop } = t;

  before(async () => {
    origin = stack.baseUrl;
    t.shopOptions.appUrl = `${origin}/api/storefront/app`;
    s = await openBrowser('storefront-journey', origin);
    s.allow(shop.url);
  });
  checkEachTest(() => s);

  /** Signs up through the dashboard; nothing may have gone wrong on the way (the harness checks the rest). */
  async function signUp(page: BrowserSession['page'], tag: string) {
    await signUpInBrowser(page, origin, uniqueEmail(tag), GOOD_PASSWORD);
    assert.deepEqual(s.takeProblems(), []);
  }

  it('connects the dev shop, publishes a design-chat mockup, takes a test order from the store and fulfils it', async () => {
    const page = s.page;
    const shopDomain = `journey-${randomSuffix(6)}.myshopify.com`;
    await signUp(page, 'journey');

    // Storefront → Shop domain → Connect → the link to the store's authorize page
    await navigate(page, 'Storefront');
    await page.getByText('No store connected.').waitFor();
    await s.shot('storefront-empty');
    await page.getByLabel('Shop domain').fill(shopDomain);
    await page.getByRole('button', { name: 'Connect' }).click();
    const authorize = page.getByRole('link', { name: `Open ${shopDomain}` });
    await authorize.waitFor();
    await s.shot('connect-started');

    // the dev shop's consent page (this machine, not https://<shop>): the scopes, Install
    await authorize.click();
    await page.getByRole('heading', { name: 'Install app' }).waitFor();
    assert.equal(new URL(page.url()).origin, shop.url);
    await page.getByText('Development stand-in shop').first().waitFor();
    for (const scope of ['write_products', 'read_orders', 'write_fulfillments'])
      await page.getByText(scope, { exact: true }).waitFor();
    await s.shot('dev-shop-consent');
    await page.getByRole('button', { name: 'Install' }).click();

    // back on Storefront: "Store connected", the store active
    await onPage(page, 'Storefront');
    await page.getByText('Store connected.').waitFor();
    assert.match(page.url(), /#\/storefront\?connected=shc_/);
    const connection = page.locator('.connection', { hasText: shopDomain });
    await connection.getByText('active').waitFor();
    await s.shot('store-connected');

    // the Studio's onboarding checklist ticks "connect a store", from the server's data
    await navigate(page, 'Studio', 'Mockup studio');
    const checklist = page.getByRole('region', { name: 'Getting started' });
    await checklist.getByText('1 of 4 done.').waitFor();
    assert.equal(await checklist.locator('li[data-step="store"].done').count(), 1);

    // design in the chat (the built-in local renderer: no provider keys in tests), on a garment
    await navigate(page, 'Design chat');
    await page.getByLabel('Describe the design').fill('a lighthouse on a rocky coast at dusk');
    await page.getByLabel('Model').selectOption('nano-banana');
    await page.locator('.garment-picks input[type=checkbox]').first().check();
    await page.getByRole('button', { name: 'Create design' }).click();
    await page.getByText(/Design ready: 12 tokens spent/).waitFor({ timeout: 60_000 });
    await s.shot('chat-design');

    // Publish to store on its first mockup: the storefront's publish form with that mockup chosen and its economics
    await page.locator('.message.assistant').last().getByRole('link', { name: 'Publish to store: Mockup 1' }).click();
    await onPage(page, 'Storefront');
    assert.match(page.url(), /#\/storefront\?chatJobId=job_\w+&mockupIndex=0/);
    await page.getByRole('img', { name: 'The mockup to publish' }).waitFor();
    const perUnit = page.getByRole('group', { name: 'Per unit (estimate)' });
    await perUnit.getByText('Margin').waitFor();
    await page.getByLabel('Product title').fill('Journey tee');
    await s.shot('publish-chat-mockup');
    await page.getByRole('button', { name: 'Publish' }).click();
    const row = page.locator('tr', { hasText: 'Journey tee' });
    await row.getByText('published').waitFor({ timeout: 60_000 });
    await row.getByText('Design chat, mockup 1').waitFor();
    await s.shot('published');

    // Open store (a tab of its own, as a shop admin link opens): the product, with its image and price
    const [store] = await Promise.all([
      s.context.waitForEvent('page'),
      connection.getByRole('link', { name: `Open store ${shopDomain}` }).click(),
    ]);
    await store.getByRole('heading', { level: 1, name: shopDomain }).waitFor();
    assert.equal(new URL(store.url()).origin, shop.url);
    const product = store.getByRole('region', { name: 'Journey tee' });
    await product.getByText('59.99 USD').waitFor();
    const img = product.getByRole('img');
    await img.waitFor();
    await store.waitForFunction(
      () => [...(globalThis as any).document.images].every((i: any) => i.complete && i.naturalWidth > 0),
      undefined,
      { timeout: 30_000 },
    );
    await s.shot('dev-shop-store', store);

    // Place test order: the signed orders/create and orders/paid go to the service, and the page says how they went
    await product.getByRole('button', { name: /Place test order/ }).click();
    await store.getByText(/Test order #\d+ placed for Journey tee/).waitFor();
    await store.getByText('orders/create webhook answered 200').waitFor();
    await store.getByText('orders/paid webhook answered 200').waitFor();
    await s.shot('dev-shop-order-placed', store);

    // the app opened from the store's side (Shopify's app URL, signed, no state): signed in, a fresh install
    await store.getByRole('link', { name: 'Open the app' }).click();
    await store.getByRole('heading', { name: 'Install app' }).waitFor();
    await s.shot('app-url-consent', store);
    await store.getByRole('button', { name: 'Install' }).click();
    await onPage(store, 'Storefront');
    await store.getByText('Store connected.').waitFor();
    await store.locator('.connection', { hasText: shopDomain }).getByText('active').waitFor();
    await s.shot('app-url-connected', store);
    await store.close();

    // back in the dashboard's tab: the order shows without a reload (the page looks again every few seconds)
    await page.bringToFront();
    const order = page.locator('.order').first();
    await order.waitFor({ timeout: 30_000 });
    await order.locator('.badge', { hasText: 'paid' }).waitFor({ timeout: 30_000 });
    await order.getByText('1 × Journey tee').waitFor();
    await s.shot('order-shown');

    // production (issue 36): the paid order's print file and job sheet are made by themselves; the order says so and
    // the production queue lists it with its Download links (the page looks again by itself)
    const production = order.getByRole('region', { name: /^Production of / });
    await production.locator('.badge', { hasText: 'ready' }).waitFor({ timeout: 90_000 });
    await production.getByText('1 print file ready').waitFor();
    const printed = production.locator('.print-files li');
    assert.equal(await printed.count(), 1);
    assert.match(
      await printed.innerText(),
      /^Journey tee \(\S+, [^,]+, front\) × 1 · [\d.]+ × [\d.]+ in \(\d+ × \d+ px, 300 DPI\) · preflight/,
    );
    const queueSection = page.getByRole('region', { name: 'Production queue' });
    const queued = queueSection.locator('tbody tr');
    await queued.first().locator('.badge', { hasText: 'ready' }).waitFor({ timeout: 30_000 });
    assert.equal(await queued.count(), 1);
    assert.match(await queued.first().innerText(), /Journey tee/);
    await s.shot('production-ready');

    // Download from the queue: the ZIP (the job sheet and the print file) and the job sheet PDF
    const [zipDownload] = await Promise.all([
      page.waitForEvent('download'),
      queueSection.getByRole('link', { name: /Download print files of .* \(ZIP\)/ }).click(),
    ]);
    assert.match(zipDownload.suggestedFilename(), /\.zip$/);
    const names = await zipNames(await readFile((await zipDownload.path())!));
    assert.equal(names.filter((n) => n.endsWith('.pdf')).length, 1, names.join(', '));
    assert.ok(names.filter((n) => n.endsWith('.png')).length >= 1, names.join(', '));
    const [sheetDownload] = await Promise.all([
      page.waitForEvent('download'),
      queueSection.getByRole('link', { name: /Download job sheet of .* \(PDF\)/ }).click(),
    ]);
    assert.match(sheetDownload.suggestedFilename(), /\.pdf$/);
    const sheet = await readFile((await sheetDownload.path())!);
    assert.equal(sheet.subarray(0, 5).toString('latin1'), '%PDF-');
    const [printDownload] = await Promise.all([
      page.waitForEvent('download'),
      production.getByRole('link', { name: 'Print file', exact: true }).click(),
    ]);
    const print = await sharp(await readFile((await printDownload.path())!)).metadata();
    assert.equal(print.format, 'png');
    assert.equal(print.density, 300);

    // fulfil with tracking
    await order.getByLabel('Tracking number').fill('1Z999');
    await order.getByLabel('Carrier').fill('UPS');
    await s.shot('tracking-filled');
    await order.getByRole('button', { name: 'Send tracking' }).click();
    await page.locator('.order').first().getByText('Tracking: UPS 1Z999').waitFor({ timeout: 30_000 });
    await page.locator('.order').first().locator('.badge', { hasText: 'fulfilled' }).waitFor();
    // fulfilled: nothing left to print
    await queueSection.getByText('Nothing waiting to be printed.').waitFor();
    await s.shot('fulfilled');
  });

  it("connects nothing when user A's authorize URL is approved in user B's browser; B sees the error", async () => {
    const shopDomain = `victim-${randomSuffix(6)}.myshopify.com`;
    const a = await s.newPerson();
    const b = await s.newPerson();
    await signUp(a.page, 'attacker');
    await signUp(b.page, 'victim');

    // A starts connecting the victim's store and takes the authorize link instead of following it
    await navigate(a.page, 'Storefront');
    await a.page.getByLabel('Shop domain').fill(shopDomain);
    await a.page.getByRole('button', { name: 'Connect' }).click();
    const link = a.page.getByRole('link', { name: `Open ${shopDomain}` });
    await link.waitFor();
    await s.shot('attacker-has-link', a.page);
    const sent = (await link.getAttribute('href'))!;

    // B (the merchant, signed in to the service too) opens the link A sent them: what a person does with a link
    await b.page.goto(sent);
    await b.page.getByRole('heading', { name: 'Install app' }).waitFor();
    await s.shot('victim-consent', b.page);
    await b.page.getByRole('button', { name: 'Install' }).click();
    await b.page.getByText(INVALID_STATE).waitFor();
    assert.match(b.page.url(), /\/api\/storefront\/callback\?/);
    await s.shot('victim-sees-error', b.page);
    // the browser logs the 400 document it was shown; that is the expected outcome here
    const problems = s.takeProblems().filter((p) => !/status of 400/.test(p));
    assert.deepEqual(problems, []);

    // nothing connected, for either: A looks again in the dashboard; B opens the dashboard afresh (its address)
    await navigate(a.page, 'Developers');
    await navigate(a.page, 'Storefront');
    await b.page.goto(`${origin}/storefront`);
    for (const p of [a.page, b.page]) {
      await onPage(p, 'Storefront');
      await p.getByText('No store connected.').waitFor();
    }
    await s.shot('attacker-nothing-connected', a.page);
    await s.shot('victim-nothing-connected', b.page);
    assert.deepEqual(await inspect.shopifyConnectionIds(shopDomain), []);
  });
  it('takes a signed-out merchant who opens the app from the store through sign-up, then Connect and Install', async () => {
    const shopDomain = `fromshop-${randomSuffix(6)}.myshopify.com`;
    const m = await s.newPerson();
    // the journey starts in the store's admin (the dev shop), where the merchant opens the app
    await m.page.goto(`${shop.url}/admin?shop=${shopDomain}`);
    await m.page.getByRole('heading', { level: 1, name: shopDomain }).waitFor();
    await s.shot('store-signed-out', m.page);
    await m.page.getByRole('link', { name: 'Open the app' }).click();
    // signed out: the dashboard asks to sign in first; a new merchant creates an account
    await onPage(m.page, 'Sign in');
    await m.page.getByRole('link', { name: 'Create an account' }).click();
    await onPage(m.page, 'Create an account');
    await m.page.getByLabel('Email').fill(uniqueEmail('merchant'));
    await m.page.getByLabel('Password').fill(GOOD_PASSWORD);
    await s.shot('app-url-sign-up', m.page);
    await m.page.getByRole('button', { name: 'Create account' }).click();
    // back on Storefront with the shop filled in; nothing started until Connect
    await onPage(m.page, 'Storefront');
    await m.page.getByText(`Shopify sent you here to connect ${shopDomain}: press Connect.`).waitFor();
    assert.equal(await m.page.getByLabel('Shop domain').inputValue(), shopDomain);
    await s.shot('app-url-shop-filled', m.page);
    await m.page.getByRole('button', { name: 'Connect' }).click();
    await m.page.getByRole('link', { name: `Open ${shopDomain}` }).click();
    await m.page.getByRole('heading', { name: 'Install app' }).waitFor();
    await m.page.getByRole('button', { name: 'Install' }).click();
    await onPage(m.page, 'Storefront');
    await m.page.getByText('Store connected.').waitFor();
    await m.page.locator('.connection', { hasText: shopDomain }).getByText('active').waitFor();
    await s.shot('app-url-signed-out-connected', m.page);
  });
});
