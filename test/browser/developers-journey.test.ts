// The Developers page in a real browser, by clicking and typing only: the Test mode switch (test keys, test history,
// live data hidden), a generation's callback deliveries with their response status and the Resend button, and the
// request log per key with its status-class and route filters.
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import sharp from 'sharp';
import { randomSuffix } from '../../lib/ids';
import { navigate, onPage, signUpInBrowser, useJourney } from '../helpers/browser';
import { createKey, http, sessionCookie } from '../helpers/http';
import { startCallbackReceiver, type CallbackReceiver } from '../helpers/receiver';
import { storeDesign } from '../helpers/stack';
import { waitUpTo } from '../helpers/wait';

describe('Developers page: test mode, request log, deliveries and Resend (browser)', function () {
  this.timeout(240_000);
  const { stack, browser } = useJourney('developers-journey', { env: { ALLOW_PRIVATE_URLS: 'true' } });
  let page: Page;
  let receiver: CallbackReceiver;
  const email = `dev-${randomSuffix(8)}@example.test`;
  const password = 'Correct-Horse-42';
  let testKey = '';
  let liveKey = '';
  let testGen = '';
  let liveGen = '';

  before(async () => {
    receiver = await startCallbackReceiver();
    page = browser.page;
    await signUpInBrowser(page, stack.baseUrl, email, password);
  });
  after(async () => receiver?.close());

  it('switches to Test mode and creates a test key there', async () => {
    await navigate(page, 'Developers');
    await page.getByRole('switch', { name: 'Test mode' }).check();
    await page.getByText(/Test mode: test keys spend no tokens/).waitFor();
    await page.getByLabel('Key name').fill('sandbox');
    await page.getByRole('button', { name: 'Create key' }).click();
    const shown = page.getByLabel('Your new API key');
    await shown.waitFor();
    testKey = await shown.inputValue();
    assert.match(testKey, /^amk_test_[0-9a-f]{64}$/);
    await page.getByRole('table', { name: 'test keys' }).getByText('sandbox').waitFor();
    await browser.shot('test-mode-key');
  });

  it('shows test history only in Test mode; deliveries with their status; Resend sends a new signed delivery', async () => {
    // the integration's own server calls (not the browser): one test and one live generation, with callbacks
    const login = await http(stack.baseUrl, 'POST', '/api/auth/login', { json: { email, password } });
    liveKey = (await createKey(stack.baseUrl, sessionCookie(login), { name: 'server' })).key;
    const garment = (await http(stack.baseUrl, 'GET', '/api/v1/garments?limit=1', { key: testKey })).body.garments[0];
    const designUrl = await storeDesign(
      stack,
      await sharp({ create: { width: 300, height: 300, channels: 4, background: '#0033a0' } })
        .png()
        .toBuffer(),
    );
    const body = {
      designUrl,
      garmentId: garment.id,
      garmentImageUrl: garment.colors[0].imageUrl,
      webhookUrl: receiver.url,
    };
    testGen = (await http(stack.baseUrl, 'POST', '/api/v1/generate', { key: testKey, json: body })).body.id;
    liveGen = (await http(stack.baseUrl, 'POST', '/api/v1/generate', { key: liveKey, json: body })).body.id;
    await receiver.waitFor(testGen);
    await http(stack.baseUrl, 'POST', '/api/v1/generate', { key: testKey, json: { designUrl: 'not a url' } });

    // re-enter the page: still in Test mode (remembered), test history only
    await navigate(page, 'Studio', /Mockup studio/);
    await navigate(page, 'Developers');
    assert.equal(await page.getByRole('switch', { name: 'Test mode' }).isChecked(), true);
    const history = page.getByRole('table', { name: 'test generations' });
    await history.getByText(testGen).waitFor();
    assert.equal(await history.getByText(liveGen).count(), 0, 'live history hidden in test mode');

    await page.getByRole('button', { name: `Deliveries of ${testGen}` }).click();
    const list = page.getByRole('list', { name: `Deliveries of ${testGen}` });
    await list.getByText('HTTP 200').waitFor();
    assert.equal(await list.getByRole('listitem').count(), 1);
    await page.getByRole('button', { name: `Resend callback of ${testGen}` }).click();
    await list.getByRole('listitem').nth(1).waitFor();
    await list.getByText(/Resend to/).waitFor();
    await waitUpTo(() => receiver.count(testGen) >= 2, { ms: 30_000, every: 50 });
    assert.equal(receiver.count(testGen), 2, 'the resend reached the receiver');
    await browser.shot('deliveries-resend');

    // back to live mode: the live generation, not the test one
    await page.getByRole('switch', { name: 'Test mode' }).uncheck();
    const live = page.getByRole('table', { name: 'live generations' });
    await live.getByText(liveGen).waitFor();
    assert.equal(await live.getByText(testGen).count(), 0);
  });

  it('shows the request log per key, filtered by status class and route', async () => {
    await page.getByRole('switch', { name: 'Test mode' }).check();
    const log = page.getByRole('table', { name: 'Request log' });
    await log.waitFor();
    await page.getByLabel('Key', { exact: true }).selectOption({ label: `sandbox (…${testKey.slice(-4)})` });
    await page.getByLabel('Status').selectOption('4xx');
    // the table is redrawn when the filter's answer arrives: only 4xx rows, at least the bad request
    await page.waitForFunction(() => {
      const rows = (globalThis as any).document.querySelectorAll('table[aria-label="Request log"] tbody tr');
      return rows.length > 0 && [...rows].every((r: any) => r.dataset.status.startsWith('4'));
    });
    await log.getByText('invalid_request').first().waitFor();

    await page.getByLabel('Status').selectOption('');
    await page.getByLabel('Route').selectOption('/api/v1/generate');
    await page.waitForFunction(() => {
      const cells = (globalThis as any).document.querySelectorAll(
        'table[aria-label="Request log"] tbody td:nth-child(4)',
      );
      return cells.length > 0 && [...cells].every((c: any) => c.textContent === '/api/v1/generate');
    });
    await browser.shot('request-log');
    await onPage(page, 'Developers');
  });
});
