// The generate journey as a person takes it, by clicking and typing only: a fresh account → upload a
// design on Designs (the file picker) → "Place on a garment" → the studio's live preview → Generate → the mockup
// shows → Download, and the saved file is the full-size JPEG. Each step is screenshotted into
// test-artifacts/generate-journey/; the harness fails the test on any page error, console error or request to another
// origin. (test/browser/dashboard.test.ts covers each page in more detail.)
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { randomSuffix } from '../../lib/ids';
import { choosePng, navigate, onPage, signUpInBrowser, useJourney } from '../helpers/browser';
import * as F from '../helpers/fixtures';

describe('journey: upload → place → generate → download', function () {
  this.timeout(240_000);
  const { stack, browser } = useJourney('generate-journey');

  it('a fresh account uploads a design, places it, generates the mockup and downloads it', async () => {
    const { page, shot } = browser;
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
    await choosePng(page, 'logo.png', await F.crispLogo(1200, 1500));
    const result = page.locator('.upload-result');
    await result.getByRole('heading', { name: 'logo.png' }).waitFor();
    await result.getByText('2 colours').waitFor({ timeout: 30_000 });
    await shot('uploaded');

    // The studio's print check is slow (seconds under load) and may answer after Generate: hold its answers, as a
    // slow network would, so that they arrive after the generation with the balance from before it
    const held: (() => Promise<void>)[] = [];
    let firstHeld!: () => void;
    const oneHeld = new Promise<void>((resolve) => (firstHeld = resolve));
    await page.route('**/api/v1/print-preflight', async (route) => {
      const response = await route.fetch();
      held.push(() => route.fulfill({ response }));
      firstHeld();
    });

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
    await oneHeld; // a print check answered by the server before the debit, not yet delivered
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
    // the held print checks arrive now, carrying X-Tokens-Remaining: 50; the header shows the newest balance still
    for (const deliver of held) await deliver();
    await page.unroute('**/api/v1/print-preflight');
    await page.locator('.print-check .notice').waitFor();
    assert.match(await page.locator('#account-balance').innerText(), /^49 tokens/);
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

  it('the studio checks the print before Generate (low resolution, underbase on black) and shows it at 1:1', async () => {
    const { shot } = browser;
    const { page } = await browser.newPerson();
    await signUpInBrowser(page, stack.baseUrl, `print-${randomSuffix(8)}@example.test`, 'Correct-Horse-42');

    // a 600 x 750 design: at the default size on a 12 x 16 in front zone it prints at about 63 DPI
    await navigate(page, 'Designs');
    await choosePng(page, 'small.png', await F.crispLogo(600, 750));
    const result = page.locator('.upload-result');
    await result.getByRole('heading', { name: 'small.png' }).waitFor();
    await result.getByRole('link', { name: 'Place on a garment' }).click();
    await onPage(page, 'Mockup studio');

    // before Generate: the print check names the low resolution as an error
    const check = page.locator('.print-check');
    await check.getByText('Print check: not printable as it is').waitFor({ timeout: 30_000 });
    const lowDpi = check.locator('li[data-code=low_dpi]');
    assert.match(await lowDpi.innerText(), /^Do not print as it is: The design has 6\d pixels per inch/);
    assert.equal(await check.locator('li[data-code=underbase_needed]').count(), 0);
    await shot('print-check-low-dpi', page);

    // on black: the ink needs a white underbase
    await page.getByLabel('Black', { exact: true }).check();
    await check.locator('li[data-code=underbase_needed]').waitFor({ timeout: 30_000 });
    assert.match(await check.locator('li[data-code=underbase_needed]').innerText(), /white underbase/);
    await shot('print-check-underbase', page);

    // the print view: the zone at its physical size (CSS inches, 96 px each) and the design where the print puts it
    await page.getByLabel('Print view (1:1)').check();
    const view = page.getByRole('region', { name: 'Print view at 1:1' });
    const sheet = view.locator('.print-sheet');
    await sheet.waitFor();
    await view.getByText(/front print for size M: 12 × 16 in \(3600 × 4800 px at 300 DPI\), shown at 1:1/).waitFor();
    const sheetBox = (await sheet.boundingBox())!;
    assert.ok(Math.abs(sheetBox.width - 12 * 96) <= 1, `sheet width ${sheetBox.width} px for 12 in`);
    assert.ok(Math.abs(sheetBox.height - 16 * 96) <= 1, `sheet height ${sheetBox.height} px for 16 in`);
    // the default placement fits the design (4:5) in 0.8 of the zone: 9.6 x 12 in, centred across at 35 % down
    const art = (await view.getByRole('img', { name: 'The design as printed' }).boundingBox())!;
    assert.ok(Math.abs(art.width - 9.6 * 96) <= 2, `design width ${art.width} px for 9.6 in`);
    assert.ok(Math.abs(art.x + art.width / 2 - (sheetBox.x + sheetBox.width / 2)) <= 2, 'centred across');
    await shot('print-view', page);
  });
});
