// The dashboard in a real browser, on the shared harness (test/helpers/browser.ts: a page error, a console
// error or a request to another origin fails the test). Sign up → key → upload (drag and drop, the picker) →
// analysis → place with the live preview (drag, resize, rotate, keyboard) → generate → the mockup and its download →
// history and webhook deliveries; billing; design chat; the API reference at /docs; a phone-width layout; sign out.
// Every page is screenshotted into test-artifacts/dashboard/. The purchase, store and generate journeys have their
// own files (billing-journey, storefront-journey, generate-journey).
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page, Request } from 'playwright-core';
import sharp from 'sharp';
import { MODEL_COST } from '../../lib/chat/types';
import { randomSuffix } from '../../lib/ids';
import {
  checkEachTest,
  FRONT_PAGE,
  navigate,
  onPage,
  openAccountMenu,
  openBrowser,
  type BrowserSession,
} from '../helpers/browser';
import * as F from '../helpers/fixtures';
import { http } from '../helpers/http';
import { startStack, type Stack } from '../helpers/stack';
import { waitUpTo } from '../helpers/wait';

/** A 1200x1500 two-colour logo on transparency: analysis finds 2 colours (red and navy). */
const logo = () => F.crispLogo(1200, 1500);

describe('dashboard in a real browser', function () {
  this.timeout(240_000);
  let stack: Stack;
  let browser: BrowserSession | undefined;
  let page: Page;
  let receiver: Server;
  let receiverUrl: string;
  const received: string[] = [];
  let origin: string;
  const email = `browser-${randomSuffix(8)}@example.test`;
  const password = 'Correct-Horse-42';

  const shot = (name: string) => browser!.shot(name);
  checkEachTest(() => browser);

  // In-page checks run in the browser; this file is compiled without the DOM library, so they reach the page's
  // globals through `globalThis` as untyped values.

  /** Every form control on the page has an accessible name; every image has alt text. */
  async function assertLabelled(where: string) {
    const problems: string[] = await page.evaluate(() => {
      const w = globalThis as any;
      const out: string[] = [];
      for (const el of w.document.querySelectorAll('input, select, textarea, button')) {
        if (el.type === 'hidden' || el.closest('[hidden]')) continue;
        const labelled =
          (el.labels?.length ?? 0) > 0 ||
          el.getAttribute('aria-label') ||
          el.getAttribute('aria-labelledby') ||
          (el.tagName === 'BUTTON' && el.textContent.trim());
        if (!labelled) out.push(`${el.tagName.toLowerCase()}[name=${el.getAttribute('name')}] has no label`);
      }
      for (const img of w.document.querySelectorAll('img'))
        if (!img.hasAttribute('alt')) out.push(`img ${img.src} has no alt`);
      return out;
    });
    assert.deepEqual(problems, [], `${where}: ${problems.join('; ')}`);
  }

  /** Text contrast (WCAG AA: 4.5:1, 3:1 for large text) of every visible text element on the page. */
  async function assertContrast(where: string) {
    const problems: string[] = await page.evaluate(() => {
      const w = globalThis as any;
      const parse = (c: string) => {
        const m = c.match(/rgba?\(([^)]+)\)/);
        if (!m) return null;
        const [r, g, b, a = 1] = m[1]!
          .split(/[\s,/]+/)
          .filter(Boolean)
          .map(Number);
        return { r: r!, g: g!, b: b!, a };
      };
      const lum = ({ r, g, b }: { r: number; g: number; b: number }) => {
        const f = (v: number) => {
          const s = v / 255;
          return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
        };
        return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
      };
      const background = (el: any): { r: number; g: number; b: number } => {
        for (let e = el; e; e = e.parentElement) {
          const c = parse(w.getComputedStyle(e).backgroundColor);
          if (c && c.a > 0.5) return c;
        }
        return { r: 255, g: 255, b: 255 };
      };
      const out: string[] = [];
      for (const el of w.document.querySelectorAll('body *')) {
        if (!el.offsetParent && w.getComputedStyle(el).position !== 'fixed') continue;
        const own = [...el.childNodes].some((n: any) => n.nodeType === 3 && n.textContent.trim());
        if (!own) continue;
        const style = w.getComputedStyle(el);
        if (style.visibility === 'hidden' || Number(style.opacity) < 0.5) continue;
        if (el.disabled) continue;
        const fg = parse(style.color);
        if (!fg) continue;
        const bg = background(el);
        const [a, b] = [lum(fg), lum(bg)].sort((x, y) => y - x);
        const ratio = (a! + 0.05) / (b! + 0.05);
        const size = parseFloat(style.fontSize);
        const large = size >= 24 || (size >= 18.66 && Number(style.fontWeight) >= 700);
        if (ratio < (large ? 3 : 4.5)) out.push(`"${el.textContent.trim().slice(0, 40)}" ${ratio.toFixed(2)}:1`);
      }
      return out;
    });
    assert.deepEqual(problems, [], `${where}: low contrast: ${problems.join('; ')}`);
  }

  /**
   * A check that provokes an error answer on purpose (a 402, a 429): Chromium logs "Failed to load resource" for any
   * 4xx. Takes the problems recorded so far, which must be exactly that one console error.
   */
  function expectLogged(what: RegExp) {
    const problems = browser!.takeProblems();
    assert.ok(
      problems.length === 1 && what.test(problems[0]!),
      `expected only ${what} to be logged, got:\n${problems.join('\n')}`,
    );
  }

  /** The token balance the header shows ("49 tokens · Free"). */
  async function shownBalance(): Promise<number> {
    const text = await page.locator('#account-balance').innerText();
    const m = text.match(/^(\d+) tokens/);
    assert.ok(m, `the header shows no balance: "${text}"`);
    return Number(m[1]);
  }

  before(async () => {
    stack = await startStack('dashboard', { env: { ALLOW_PRIVATE_URLS: 'true' } });
    origin = stack.baseUrl;
    // a receiver for generation callbacks (the worker posts to it; the browser never does)
    receiver = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        received.push(String(req.headers['x-mockup-event']));
        res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
    browser = await openBrowser('dashboard', origin);
    page = browser.page;
  });

  after(async () => {
    await browser?.close();
    receiver?.close();
    await stack?.stop();
  });

  it('signs up, and sends the signed-out visitor to sign in', async () => {
    // a signed-out visitor's first visit: no request fails (the sign-in check answers 200 {user: null}), so nothing
    // is logged either (the harness fails the test on a console error)
    const failed: string[] = [];
    const onResponse = (r: { status(): number; url(): string }) => {
      if (r.status() >= 400) failed.push(`${r.status()} ${r.url()}`);
    };
    page.on('response', onResponse);
    await page.goto(`${origin}/`);
    await onPage(page, FRONT_PAGE);
    await page.getByRole('link', { name: 'Sign in', exact: true }).click();
    await onPage(page, 'Sign in');
    page.off('response', onResponse);
    assert.deepEqual(failed, [], `failed requests: ${failed.join(', ')}`);
    assert.match(page.url(), /#\/signin$/);
    await assertLabelled('sign in');
    await assertContrast('sign in');
    await shot('signin');
    await page.getByRole('link', { name: 'Create an account' }).click();
    await page.getByRole('heading', { level: 1, name: 'Create an account' }).waitFor();
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('short');
    await page.getByRole('button', { name: 'Create account' }).click();
    // the browser's own validation (minlength) or the API's message: not signed up
    await page.getByLabel('Password').fill(password);
    await shot('signup');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { level: 1, name: 'Mockup studio' }).waitFor();
    // signed in as the new account (the verify-email banner names the address too)
    await page.locator('#account-email').getByText(email).waitFor();
    await page
      .locator('#account-balance')
      .getByText(/50 tokens/)
      .waitFor();
  });

  it('creates a key (shown once, copied), lists it, revokes and deletes it', async () => {
    await navigate(page, 'Developers');
    await page.getByLabel('Key name').fill('browser server');
    await page.getByRole('button', { name: 'Create key' }).click();
    const box = page.getByLabel('Your new API key');
    await box.waitFor();
    const key = await box.inputValue();
    assert.match(key, /^[a-z]+_live_[0-9a-f]{64}$/);
    await page.getByRole('button', { name: 'Copy' }).first().click();
    assert.equal(await page.evaluate(() => (globalThis as any).navigator.clipboard.readText()), key);
    const row = page.locator('tr', { hasText: 'browser server' });
    await row.getByText('active').waitFor();
    // the key works against the API, as the person's server would use it (the browser never holds a key)
    const res = await http(origin, 'GET', '/api/v1/garments?limit=1', { key });
    assert.equal(res.status, 200);
    await assertLabelled('keys');
    await assertContrast('keys');
    await shot('keys');
    await row.getByRole('button', { name: 'Revoke browser server' }).click();
    await row.getByText('revoked').waitFor();
    assert.equal((await http(origin, 'GET', '/api/v1/garments?limit=1', { key })).status, 401);
    await row.getByRole('button', { name: 'Delete browser server' }).click();
    await page.getByText('No live keys yet').waitFor();
    // a key for the rest of the run
    await page.getByLabel('Key name').fill('kept');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByLabel('Your new API key').waitFor();
    // the webhook signing secret
    await page.getByRole('button', { name: 'Show signing secret' }).click();
    assert.match(
      await page.getByRole('textbox', { name: 'Webhook signing secret' }).inputValue(),
      /^whsec_[0-9a-f]{64}$/,
    );
  });

  it('uploads a design by drag and drop and shows its analysis', async () => {
    await navigate(page, 'Designs');
    const png = (await logo()).toString('base64');
    // a real drop event carrying a File, as a desktop drag would deliver it
    await page.evaluate(async (b64) => {
      const w = globalThis as any;
      const bytes = Uint8Array.from(w.atob(b64) as string, (c) => c.charCodeAt(0));
      const dt = new w.DataTransfer();
      dt.items.add(new w.File([bytes], 'logo.png', { type: 'image/png' }));
      const zone = w.document.querySelector('.dropzone');
      zone.dispatchEvent(new w.DragEvent('dragover', { dataTransfer: dt, bubbles: true, cancelable: true }));
      zone.dispatchEvent(new w.DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
    }, png);
    const result = page.locator('.upload-result');
    await result.getByRole('heading', { name: 'logo.png' }).waitFor();
    await result.getByText('2 colours').waitFor({ timeout: 30_000 });
    const swatches = result.getByRole('list', { name: 'Dominant colours' }).locator('li');
    assert.equal(await swatches.count(), 2);
    const text = await result.innerText();
    assert.match(text, /#C8102E/i);
    assert.match(text, /Pantone/);
    assert.match(text, /Recommended: (SCREEN|VINYL|EMBROIDERY|DTG)/);
    assert.match(text, /DTG/);
    assert.match(text, /setup, minimum \d+/);
    await assertLabelled('designs');
    await assertContrast('designs');
    await shot('designs');
  });

  it('also uploads with the file picker, with progress', async () => {
    const jpeg = await sharp(await logo())
      .flatten({ background: '#ffffff' })
      .jpeg()
      .toBuffer();
    await page.locator('input[type=file]').setInputFiles({ name: 'second.jpg', mimeType: 'image/jpeg', buffer: jpeg });
    await page.locator('.upload-result').getByRole('heading', { name: 'second.jpg' }).waitFor();
    await page.locator('.gallery').getByRole('heading', { name: 'logo', exact: true }).waitFor();
  });

  it('places the design with the live preview (drag, resize, rotate, keyboard) and generates the mockup', async () => {
    const previews: { placement: Record<string, number>; status?: number }[] = [];
    page.on('request', (r) => {
      if (r.url().endsWith('/api/v1/preview')) previews.push({ placement: JSON.parse(r.postData()!).placement });
    });
    await navigate(page, 'Designs');
    // the library names a design after its file, without the extension
    await page.locator('.gallery li', { hasText: 'logo' }).getByRole('link', { name: 'Place' }).click();
    await page.getByRole('heading', { level: 1, name: 'Mockup studio' }).waitFor();
    await page.waitForFunction(() =>
      (globalThis as any).document.querySelector('img.preview')?.src.startsWith('blob:'),
    );
    assert.equal(
      await page
        .getByLabel('Design', { exact: true })
        .inputValue()
        .then((v) => v.startsWith('upl_')),
      true,
    );
    await page.getByText('Preview up to date').waitFor();
    const frame = page.getByRole('group', { name: /Design placement/ });
    const x0 = Number(await page.getByRole('slider', { name: 'Across' }).inputValue());

    // drag the frame 60 px right and 30 px down
    const b = (await frame.boundingBox())!;
    await page.mouse.move(b.x + b.width / 2, b.y + b.height / 2);
    await page.mouse.down();
    for (let i = 1; i <= 6; i++) await page.mouse.move(b.x + b.width / 2 + i * 10, b.y + b.height / 2 + i * 5);
    await page.mouse.up();
    const x1 = Number(await page.getByRole('slider', { name: 'Across' }).inputValue());
    assert.ok(x1 > x0 + 5, `x ${x0} -> ${x1}`);

    // resize from the corner handle: smaller
    const s0 = Number(await page.getByRole('slider', { name: 'Size' }).inputValue());
    const corner = (await frame.locator('.handle.scale').boundingBox())!;
    await page.mouse.move(corner.x + 11, corner.y + 11);
    await page.mouse.down();
    await page.mouse.move(corner.x - 30, corner.y - 30, { steps: 5 });
    await page.mouse.up();
    const s1 = Number(await page.getByRole('slider', { name: 'Size' }).inputValue());
    assert.ok(s1 < s0, `scale ${s0} -> ${s1}`);

    // rotate from the knob: drag it to the right of the centre (about +90°)
    const knob = (await frame.locator('.handle.rotate').boundingBox())!;
    const fb = (await frame.boundingBox())!;
    await page.mouse.move(knob.x + 11, knob.y + 11);
    await page.mouse.down();
    await page.mouse.move(fb.x + fb.width / 2 + 150, fb.y + fb.height / 2, { steps: 5 });
    await page.mouse.up();
    const rot = Number(await page.getByRole('slider', { name: 'Rotation' }).inputValue());
    assert.ok(rot > 45 && rot <= 135, `rotation ${rot}`);

    // the keyboard moves it too
    await frame.focus();
    const xk = Number(await page.getByRole('slider', { name: 'Across' }).inputValue());
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('ArrowLeft');
    assert.equal(Number(await page.getByRole('slider', { name: 'Across' }).inputValue()), xk - 2);

    // the preview caught up with the final placement
    await page.waitForFunction(() => !(globalThis as any).document.querySelector('.stage[aria-busy]'));
    await page.getByText('Preview up to date').waitFor();
    const final = {
      x: Number(await page.getByRole('slider', { name: 'Across' }).inputValue()),
      y: Number(await page.getByRole('slider', { name: 'Down' }).inputValue()),
      scale: Number(await page.getByRole('slider', { name: 'Size' }).inputValue()),
      rotation: Number(await page.getByRole('slider', { name: 'Rotation' }).inputValue()),
    };
    await page.waitForTimeout(300);
    assert.ok(previews.length >= 4, `previews asked: ${previews.length}`);
    assert.deepEqual(previews[previews.length - 1]!.placement, final);

    // a colour and the callback URL, then generate (1 token)
    await page.getByLabel('Callback URL (optional)').fill(receiverUrl);
    await assertLabelled('studio');
    await assertContrast('studio');
    await shot('studio');
    await page.getByRole('button', { name: 'Generate mockup (1 token)' }).click();
    const figure = page.locator('figure.mockup');
    await figure.waitFor({ timeout: 90_000 });
    await page.getByText('49 tokens').waitFor();
    const href = await figure.getByRole('link', { name: 'Download mockup' }).getAttribute('href');
    assert.match(href!, /^http:\/\/127\.0\.0\.1:\d+\/files\/mockups\/gen_\d+_[a-z0-9]+\.jpg$/);
    // a real download from the browser: the saved file is the full-size JPEG
    const [file] = await Promise.all([
      page.waitForEvent('download'),
      figure.getByRole('link', { name: 'Download mockup' }).click(),
    ]);
    assert.match(file.suggestedFilename(), /^gen_\d+_[a-z0-9]+\.jpg$/);
    const meta = await sharp(await file.path()).metadata();
    assert.equal(meta.format, 'jpeg');
    assert.ok(meta.width! >= 2000, `width ${meta.width}`);
    await shot('studio-generated');

    // history: the generation, completed, with its delivered callback
    const item = page.locator('.history-item').first();
    await item.getByText('completed').waitFor();
    await waitUpTo(() => received.includes('generation.completed'), { ms: 30_000, every: 200 });
    await item.getByRole('button', { name: 'Webhook deliveries' }).click();
    await item.locator('.delivery').getByText('delivered').waitFor();
    assert.match(await item.locator('.delivery').innerText(), /generation\.completed/);
    await shot('history');
  });

  it('paces previews to the preview budget (X-RateLimit-*) and waits out a 429', async () => {
    await navigate(page, 'Studio', 'Mockup studio');
    await page.getByText('Preview up to date').waitFor();
    const sent: number[] = [];
    let mode: 'tight' | 'refuse' | 'pass' = 'tight';
    await page.route(`${origin}/api/v1/preview`, async (route) => {
      sent.push(Date.now());
      if (mode === 'refuse') {
        mode = 'pass';
        return route.fulfill({
          status: 429,
          headers: { 'retry-after': '1' },
          json: { error: { code: 'rate_limited', message: 'Rate limit exceeded', details: { retryAfter: 1 } } },
        });
      }
      const res = await route.fetch();
      const headers = { ...res.headers() };
      if (mode === 'tight') {
        // one request left in a window that resets in 3 s: the next may go in ~3 s, not at once
        headers['x-ratelimit-remaining'] = '1';
        headers['x-ratelimit-reset'] = String(Math.ceil(Date.now() / 1000) + 3);
      }
      return route.fulfill({ response: res, headers });
    });
    try {
      const frame = page.getByRole('group', { name: /Design placement/ });
      await frame.focus();
      await page.keyboard.press('ArrowDown');
      // the placement change reaches the preview on the next animation frame (and may itself be paced by the
      // minimum interval): wait for its request to be answered, not merely for the stage to look idle
      await waitUpTo(() => sent.length >= 1, { ms: 10_000, every: 20 });
      assert.equal(sent.length, 1, 'the first placement change sends one preview');
      await page.waitForFunction(() => !(globalThis as any).document.querySelector('.stage[aria-busy]'));
      await page.keyboard.press('ArrowDown'); // paced: waits for the budget
      await page.getByText('Preview in a moment…').waitFor();
      mode = 'pass';
      await page.getByText('Preview up to date').waitFor({ timeout: 10_000 });
      assert.ok(sent.length >= 2);
      assert.ok(sent[1]! - sent[0]! >= 1500, `paced by ${sent[1]! - sent[0]!} ms`);
      // a 429: the preview pauses for Retry-After, says so, then renders the latest placement
      mode = 'refuse';
      const before = sent.length;
      await page.keyboard.press('ArrowDown');
      await page.getByText(/Preview paused/).waitFor();
      await page.getByText('Preview up to date').waitFor({ timeout: 10_000 });
      assert.ok(sent.length >= before + 2);
      assert.ok(sent[sent.length - 1]! - sent[before]! >= 900);
      // Chromium logs the 429 this test answers on purpose ("Failed to load resource"): that one and nothing else
      expectLogged(/status of 429 \(Too Many Requests\)/);
    } finally {
      await page.unroute(`${origin}/api/v1/preview`);
    }
  });

  it('shows billing: the balance and plan, the plans and token packs, checkout and the portal', async () => {
    await navigate(page, 'Billing');
    await page.getByText('49', { exact: true }).waitFor();
    await page.getByText('Plan:').waitFor();
    await page.getByRole('heading', { name: 'Plans' }).waitFor();
    assert.ok((await page.locator('.plan').count()) >= 3);
    await page.getByRole('button', { name: 'Choose Pro' }).waitFor();
    await page
      .getByRole('button', { name: /^Buy \d+ tokens$/ })
      .first()
      .waitFor();
    await page.getByRole('button', { name: 'Manage billing' }).waitFor();
    await page.getByText('No paid subscription.').waitFor();
    await assertLabelled('billing');
    await assertContrast('billing');
    await shot('billing');
  });

  it('shows design chat in the menu, with every model at the cost the server charges', async () => {
    await navigate(page, 'Design chat');
    await page.getByLabel('Describe the design').waitFor();
    await page.getByLabel('Model').selectOption('nano-banana');
    // every model with the cost the server charges (lib/chat/types.ts), so the page cannot drift from it
    const options = await page.getByLabel('Model').innerText();
    for (const [model, cost] of Object.entries(MODEL_COST))
      assert.ok(options.includes(`${model}: ${cost} tokens`), `${model} at ${cost} tokens in "${options}"`);
    await assertLabelled('chat');
    await assertContrast('chat');
    await shot('chat');
  });

  it('designs in the chat with the real route: 402 for a model above the balance, then a design with mockups', async () => {
    const balance = await shownBalance();
    assert.ok(balance < 90, `the 402 check needs a balance below 90, got ${balance}`);
    await navigate(page, 'Design chat');
    const prompt = page.getByLabel('Describe the design');
    await prompt.fill('a retro sunset over blue mountains');
    await page.getByLabel('Model').selectOption('nano-banana-pro-4k');
    // each submit carries its own Idempotency-Key: a resent request is answered from the first job
    const keys: (string | undefined)[] = [];
    const onRequest = (r: Request) => {
      if (r.url() === `${origin}/api/chat` && r.method() === 'POST') keys.push(r.headers()['idempotency-key']);
    };
    page.on('request', onRequest);
    await page.getByRole('button', { name: 'Create design' }).click();
    await page.getByRole('alert').getByText(`Token balance too low (needs 90, you have ${balance})`).waitFor();
    expectLogged(/status of 402 \(Payment Required\)/);

    await page.getByLabel('Model').selectOption('nano-banana');
    await page.locator('.garment-picks input[type=checkbox]').first().check();
    const answer = page.waitForResponse((r) => r.url() === `${origin}/api/chat` && r.request().method() === 'POST');
    await page.getByRole('button', { name: 'Create design' }).click();
    const res = await answer;
    page.off('request', onRequest);
    assert.equal(res.status(), 200);
    assert.equal(res.headers()['x-image-provider'], 'local');
    assert.equal(keys.length, 2);
    for (const k of keys)
      assert.match(k ?? '', /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.notEqual(keys[0], keys[1], 'a fresh key per submit');
    const body = await res.json();
    assert.equal(body.mockups.length, 2);
    await page.getByText(`Design ready: 12 tokens spent, ${balance - 12} left`).waitFor();
    // the thread: the prompt and the assistant's graphic, print file and two mockups, all from this origin
    await page.getByText('a retro sunset over blue mountains', { exact: true }).first().waitFor();
    await page.waitForFunction(
      () => (globalThis as any).document.querySelectorAll('.message.assistant img').length >= 4,
    );
    await page
      .getByRole('link', { name: /a retro sunset over blue mountains/ })
      .first()
      .waitFor();
    await assertLabelled('chat with a design');
    await assertContrast('chat with a design');
    await shot('chat-design');
  });

  it('serves the API reference at /docs from this machine only, with the webhook recipe', async () => {
    await page.locator('#nav').getByRole('link', { name: 'API docs' }).click();
    await page.waitForURL(`${origin}/docs`);
    await page.getByText('Apparel mockup service').first().waitFor({ timeout: 30_000 });
    await page.getByText('Verifying the signature').first().waitFor();
    // the operations are listed by tag: open Generations and find the preview
    await page.getByText('Generations', { exact: true }).first().click();
    await page.getByText('Placement preview (free)').first().waitFor();
    await page.waitForLoadState('networkidle');
    await shot('docs');
    // and back to the dashboard with its link
    await page.getByRole('link', { name: 'Dashboard', exact: true }).click();
    await onPage(page, 'Mockup studio');
  });

  it('works at phone width', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    for (const [link, title] of [
      ['Studio', 'Mockup studio'],
      ['Developers', 'Developers'],
      ['Designs', 'Designs'],
      ['Billing', 'Billing'],
      ['Design chat', 'Design chat'],
      ['Storefront', 'Storefront'],
    ] as const) {
      await navigate(page, link, title);
      if (link === 'Studio') await page.getByText('Preview up to date').waitFor();
      const overflow: number = await page.evaluate(() => {
        const w = globalThis as any;
        return w.document.documentElement.scrollWidth - w.innerWidth;
      });
      assert.ok(overflow <= 1, `${title} is ${overflow} px wider than the phone`);
      await shot(`phone-${link}`);
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('signs out: the session is gone', async () => {
    await navigate(page, 'Studio', 'Mockup studio');
    await openAccountMenu(page);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await onPage(page, 'Sign in');
    const cookies = await browser!.context.cookies(origin);
    assert.equal(cookies.filter((c) => c.name === stack.config.sessionCookieName).length, 0);
    // and signing in again works
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Mockup studio' }).waitFor();
  });
});
