// The browser harness for test/browser/: Debian's chromium driven by playwright-core (scripts/test.ts installs
// chromium when it is missing and passes CHROMIUM_PATH). A journey is taken the way a person takes it: clicking and
// typing, following every redirect. The harness records what a person would see go wrong and fails the test on it:
// a page error, a console error (a failed request logs one), or a request to an origin that is not the service or one
// of the local stand-ins the journey is allowed to visit (those are refused, so nothing leaves the machine).
// Screenshots of each step go to test-artifacts/<journey>/ (the CI output folder).
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { lateBound, startStack, type Stack, type StackOptions } from './stack';

export const ARTIFACTS = path.resolve(__dirname, '../../test-artifacts');

export interface BrowserSession {
  browser: Browser;
  context: BrowserContext;
  page: Page;
  /** Origins the pages may load from besides the service (local checkout, the dev shop). */
  allow(origin: string): void;
  /** A second, separate browser profile (another person) with the same checks. */
  newPerson(): Promise<{ context: BrowserContext; page: Page }>;
  /** Screenshot of the current page into test-artifacts/<journey>/<NN>-<name>.png. */
  shot(name: string, p?: Page): Promise<void>;
  /** Problems recorded since the last call (page errors, console errors, foreign requests), and clears them. */
  takeProblems(): string[];
  close(): Promise<void>;
}

/**
 * Launches chromium for one journey file. `origin` is the service's; every other origin must be allowed first.
 * Use `checkEachTest(session)` in the suite to fail a test that left problems behind.
 */
export async function openBrowser(journey: string, origin: string): Promise<BrowserSession> {
  const dir = path.join(ARTIFACTS, journey);
  mkdirSync(dir, { recursive: true });
  const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  const browser = await chromium.launch({
    executablePath,
    headless: true,
    // running as root in a container: no sandbox; no background traffic of the browser's own
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--no-first-run', '--disable-background-networking'],
  });
  const allowed = new Set([origin]);
  const problems: string[] = [];
  let step = 0;

  const setUp = async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    // tsx compiles with esbuild's keepNames, which wraps functions inside page.evaluate callbacks in a __name()
    // helper the page does not have: give the page an identity one.
    await context.addInitScript({ content: 'globalThis.__name = (f) => f;' });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
    await context.route('**/*', (route) => {
      const url = route.request().url();
      if (/^https?:/.test(url) && !allowed.has(new URL(url).origin)) {
        problems.push(`request to another origin: ${url}`);
        return route.abort('blockedbyclient');
      }
      return route.continue();
    });
    const page = await context.newPage();
    watch(page);
    context.on('page', watch);
    return { context, page };
  };
  const watch = (p: Page) => {
    p.on('pageerror', (err) => problems.push(`page error on ${p.url()}: ${err.message}`));
    p.on('console', (m) => {
      if (m.type() === 'error') problems.push(`console error on ${p.url()}: ${m.text()}`);
    });
    p.on('dialog', (d) => void d.accept());
  };

  const first = await setUp();
  const others: BrowserContext[] = [];
  return {
    browser,
    context: first.context,
    page: first.page,
    allow: (o) => void allowed.add(new URL(o).origin),
    async newPerson() {
      const p = await setUp();
      others.push(p.context);
      return p;
    },
    async shot(name, p = first.page) {
      step++;
      const file = path.join(dir, `${String(step).padStart(2, '0')}-${name.replace(/[^a-z0-9-]+/gi, '-')}.png`);
      await p.screenshot({ path: file, fullPage: true });
    },
    takeProblems: () => problems.splice(0),
    async close() {
      for (const c of others) await c.close().catch(() => {});
      await browser.close();
    },
  };
}

/** afterEach: a failed test gets a screenshot; a passed one must have left no page/console error or foreign request. */
export function checkEachTest(get: () => BrowserSession | undefined): void {
  afterEach(async function () {
    const s = get();
    if (!s) return;
    if (this.currentTest?.state === 'failed') {
      const name = `FAILED-${this.currentTest.title.replace(/[^a-z0-9]+/gi, '-').slice(0, 60)}`;
      await s.shot(name).catch(() => {});
    }
    const problems = s.takeProblems();
    if (this.currentTest?.state === 'passed') assert.deepEqual(problems, [], problems.join('\n'));
  });
}

/** Waits until the dashboard shows the page titled `title` and has finished loading it. */
export async function onPage(page: Page, title: RegExp | string): Promise<void> {
  await page.getByRole('heading', { level: 1, name: title }).waitFor();
  await page.waitForFunction(() => !(globalThis as any).document.querySelector('main[aria-busy]'));
}

/** The heading of the front page a signed-out visitor lands on at `/`. */
export const FRONT_PAGE = /Mockups of your designs/;

/** Signs up a fresh account through the dashboard's form (the journey's first step): lands on the Studio. */
export async function signUpInBrowser(page: Page, origin: string, email: string, password: string): Promise<void> {
  await page.goto(`${origin}/`);
  await onPage(page, FRONT_PAGE);
  await page.getByRole('link', { name: 'Create an account' }).click();
  await onPage(page, /Create an account/);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Create account' }).click();
  await onPage(page, /Mockup studio/);
}

/** The links of the account menu (the top bar's address), not of the main navigation. */
const ACCOUNT_MENU = new Set(['Account', 'Billing']);

/** Opens the account menu (the summary showing the address) unless it is open. */
export async function openAccountMenu(page: Page): Promise<void> {
  const menu = page.locator('#account-menu');
  if ((await menu.getAttribute('open')) === null) await menu.locator('summary').click();
}

/**
 * Moves to another dashboard page through the navigation, as a person does: the top bar's link, or for Account and
 * Billing the account menu's.
 */
export async function navigate(page: Page, name: string, title: RegExp | string = name): Promise<void> {
  if (ACCOUNT_MENU.has(name)) {
    await openAccountMenu(page);
    await page.locator('#account-menu').getByRole('link', { name, exact: true }).click();
  } else await page.locator('#nav').getByRole('link', { name }).click();
  await onPage(page, title);
}

const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/**
 * Runs axe-core (the devDependency's axe.min.js, evaluated in the page: the page's Content-Security-Policy allows no
 * injected script tag) over the page as shown, and fails on any serious or critical violation, naming each rule and
 * the elements it found.
 */
export async function assertAccessible(page: Page, where: string): Promise<void> {
  if (!(await page.evaluate(() => typeof (globalThis as any).axe === 'object'))) await page.evaluate(AXE_SOURCE);
  const found: string[] = await page.evaluate(async () => {
    const axe = (globalThis as any).axe;
    const r = await axe.run((globalThis as any).document, { resultTypes: ['violations'] });
    return r.violations
      .filter((v: any) => v.impact === 'serious' || v.impact === 'critical')
      .map((v: any) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.map((n: any) => n.target.join(' ')).join(', ')})`);
  });
  assert.deepEqual(found, [], `${where}: axe-core found\n${found.join('\n')}`);
}

/** Fails when the page is wider than its viewport (it would scroll sideways). */
export async function assertNoSideways(page: Page, where: string): Promise<void> {
  const overflow: number = await page.evaluate(() => {
    const w = globalThis as any;
    return w.document.documentElement.scrollWidth - w.innerWidth;
  });
  assert.ok(overflow <= 1, `${where} is ${overflow} px wider than the screen`);
}

export interface Journey {
  /** the stack, readable once the suite's before hook ran */
  stack: Stack;
  /** the browser, readable once the suite's before hook ran */
  browser: BrowserSession;
}

/**
 * A stack and a browser for the calling suite's journeys: started in its `before` hook (the browser's screenshots
 * under test-artifacts/<artifacts, default name>/), closed in its `after` hook; each test is checked by
 * checkEachTest.
 */
export function useJourney(name: string, opts: StackOptions & { artifacts?: string } = {}): Journey {
  const stack = lateBound<Stack>(`the stack '${name}'`);
  const browser = lateBound<BrowserSession>(`the browser of '${name}'`);
  checkEachTest(() => browser.get());
  before(async () => {
    stack.set(await startStack(name, opts));
    browser.set(await openBrowser(opts.artifacts ?? name, stack.ref.baseUrl));
  });
  after(async () => {
    await browser.get()?.close();
    await stack.get()?.stop();
  });
  return { stack: stack.ref, browser: browser.ref };
}

/** Chooses a PNG in the page's file input, as a person picking a file does. */
export async function choosePng(page: Page, name: string, buffer: Buffer): Promise<void> {
  await page.locator('input[type=file]').setInputFiles({ name, mimeType: 'image/png', buffer });
}
