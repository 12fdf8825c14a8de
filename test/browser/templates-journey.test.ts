// Templates in the dashboard (issue 32), by clicking and typing: from Designs to Templates, a PSD uploaded with its
// progress bar and imported, the template opened with its preview, its smart object outlined and its fidelity, a
// design of the library placed in the smart object with a free preview, Generate, and the mockup downloaded.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import sharp from 'sharp';
import { randomSuffix } from '../../lib/ids';
import { assertAccessible, choosePng, navigate, onPage, signUpInBrowser, useJourney } from '../helpers/browser';
import * as F from '../helpers/fixtures';
import { perspectiveTemplatePsd } from '../helpers/template-psd';

describe('journey: a Photoshop template from the dashboard', function () {
  this.timeout(240_000);
  const { stack, browser } = useJourney('templates-journey');

  it('uploads a PSD, sees its smart object and fidelity, previews a design in it, generates and downloads', async () => {
    const { page, shot } = browser;
    await signUpInBrowser(page, stack.baseUrl, `templates-${randomSuffix(8)}@example.test`, 'Correct-Horse-42');
    await navigate(page, 'Designs');
    await choosePng(page, 'Team crest.png', await F.crispLogo(600, 750));
    await page.locator('.gallery').getByRole('heading', { name: 'Team crest' }).waitFor({ timeout: 30_000 });

    await page.getByRole('link', { name: 'Templates', exact: true }).click();
    await onPage(page, 'Templates');
    await page.getByText('No template yet').waitFor();
    await page.getByLabel('Upload a PSD or PSB').setInputFiles({
      name: 'Card on a wall.psd',
      mimeType: 'image/vnd.adobe.photoshop',
      buffer: perspectiveTemplatePsd(),
    });
    const card = page.locator('.template-card').filter({ hasText: 'Card on a wall' });
    await card.getByText('ready · 800x600 · 1 smart object(s)').waitFor({ timeout: 60_000 });
    await assertAccessible(page, 'templates');
    await shot('listed');

    await card.getByRole('link', { name: 'Open Card on a wall' }).click();
    await page.getByRole('heading', { name: 'Card on a wall' }).waitFor();
    await page.locator('.template-stage img').waitFor();
    assert.equal(await page.locator('.template-outlines polygon').count(), 1, 'the smart object outlined');
    assert.equal(
      await page.locator('.template-outlines polygon').getAttribute('points'),
      '230,110 560,150 545,470 245,430',
    );
    await page.getByText(/^Fidelity: [\d.]+ dB PSNR against the composite Photoshop saved/).waitFor();
    await page.getByLabel('Design', { exact: true }).selectOption({ label: 'Team crest' });
    await page.getByLabel('Smart object', { exact: true }).selectOption('1');
    await page.getByLabel('Size (1 fits the smart object)').fill('0.8');
    await page.getByRole('button', { name: 'Preview' }).click();
    const preview = page.getByRole('img', { name: 'Preview on Card on a wall' });
    await preview.waitFor({ timeout: 30_000 });
    assert.equal(await preview.evaluate((i: any) => `${i.naturalWidth}x${i.naturalHeight}`), '640x480');
    await assertAccessible(page, 'template');

    await page.getByRole('button', { name: 'Generate (1 token)' }).click();
    await page.getByRole('img', { name: 'Mockup on Card on a wall' }).waitFor({ timeout: 60_000 });
    await shot('generated');
    const [saved] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download the mockup' }).click(),
    ]);
    const meta = await sharp(await readFile((await saved.path())!)).metadata();
    assert.deepEqual([meta.format, meta.width, meta.height], ['jpeg', 800, 600]);
  });
});
