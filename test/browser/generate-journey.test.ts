// The generate journey as a person takes it, by clicking and typing only: a fresh account → upload a
// design on Designs (the file picker) → "Place on a garment" → the studio's live preview → Generate → the mockup
// shows → Download, and the saved file is the full-size JPEG. Each step is screenshotted into
// test-artifacts/generate-journey/; the harness fails the test on any page error, console error or request to another
// origin. (test/browser/dashboard.test.ts covers each page in more detail.)
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { randomSuffix } from '../../lib/ids';
import { checkEachTest, navigate, onPage, openBrowser, signUpInBrowser, type BrowserSession } from '../helpers/browser';
import * as F from '../helpers/fixtures';
import { startStack, type Stack } from '../helpers/stack';

describe('journey: upload → place → generate → download', function () {
  this.timeout(240_000);
  let stack: Stack;
  let browser: BrowserSession | undefined;
  checkEachTest(() => browser);

  before(async () => {
    stack = await startStack('generate-journey');
    browser = await openBrowser('generate-journey', stack.baseUrl);
  });
  after(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it('a fresh account uploads a design, places it, generates the mockup and downloads it', async () => {
    const { page, shot } = browser!;
    const email = `journey-${randomSuffix(8)}@example.test`;
    await signUpInBrowser(page, stack.baseUrl, email, 'Correct-Horse-42');
    await page
      .locator('#account-balance')
      .getByText(/^50 tokens/)
      .waitFor();
    await shot('signed-up');

    // Designs: pick the file; it uploads and is analysed
    await navigate(page, 'Designs');
    await shot('designs');
    await page.locator('input[type=file]').setInputFiles({
      name: 'logo.png',
      mimeType: 'image/png',
      buffer: await F.crispLogo(1200, 1500),
    });
    const result = page.locator('.upload-result');
    await result.getByRole('heading', { name: 'logo.png' }).waitFor();
    await result.getByText('2 colours').waitFor({ timeout: 30_000 });
    await shot('uploaded');

    // Studio: the design is chosen, the live preview draws it on the garment
    await result.getByRole('link', { name: 'Place on a garment' }).click();
    await onPage(page, 'Mockup studio');
    assert.match(await page.getByLabel('Design', { exact: true }).inputValue(), /^upl_/);
    await page.getByText('Preview up to date').waitFor({ timeout: 30_000 });
    await page.waitForFunction(() =>
      (globalThis as any).document.querySelector('img.preview')?.src.startsWith('blob:'),
    );
    // move it a little with the keyboard, as a person nudging the design would
    await page.getByRole('group', { name: /Design placement/ }).focus();
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('ArrowUp');
    await page.getByText('Preview up to date').waitFor();
    await shot('placed');

    // Generate: 1 token; the mockup shows
    await page.getByRole('button', { name: 'Generate mockup (1 token)' }).click();
    const figure = page.locator('figure.mockup');
    await figure.waitFor({ timeout: 90_000 });
    await figure.getByRole('img', { name: /^Mockup gen_/ }).waitFor();
    await page.waitForFunction(() => {
      const img = (globalThis as any).document.querySelector('figure.mockup img');
      return img?.complete && img.naturalWidth > 0;
    });
    await page
      .locator('#account-balance')
      .getByText(/^49 tokens/)
      .waitFor();
    await shot('generated');

    // Download: the browser saves the full-size mockup
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      figure.getByRole('link', { name: 'Download mockup' }).click(),
    ]);
    assert.match(download.suggestedFilename(), /^gen_\d+_[a-z0-9]+\.jpg$/);
    const meta = await sharp(await download.path()).metadata();
    assert.equal(meta.format, 'jpeg');
    assert.ok(meta.width! >= 2000 && meta.height! >= 2000, `${meta.width}x${meta.height}`);
    await shot('downloaded');
  });
});
