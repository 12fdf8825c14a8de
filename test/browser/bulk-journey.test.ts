// The Bulk flow in the dashboard (issue 35), by clicking: a design from the library, a garment with two of its
// colours and two zones, the token cost shown before confirming, then the progress bar moving to the end, each
// finished mockup appearing, and Download all giving the ZIP of the four mockups.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { randomSuffix } from '../../lib/ids';
import { choosePng, navigate, signUpInBrowser, useJourney } from '../helpers/browser';
import * as F from '../helpers/fixtures';
import { zipNames } from '../helpers/zip';

describe('journey: a bulk render from the dashboard', function () {
  this.timeout(240_000);
  const { stack, browser } = useJourney('bulk-journey');

  it('chooses a design, colours and zones, sees the cost, follows the progress and downloads the ZIP', async () => {
    const { page, shot } = browser;
    await signUpInBrowser(page, stack.baseUrl, `bulk-${randomSuffix(8)}@example.test`, 'Correct-Horse-42');
    await navigate(page, 'Designs');
    await choosePng(page, 'Team crest.png', await F.crispLogo(600, 750));
    await page.locator('.gallery').getByRole('heading', { name: 'Team crest' }).waitFor({ timeout: 30_000 });

    await navigate(page, 'Bulk');
    await page.getByRole('group', { name: 'Designs' }).getByLabel('Team crest').check();
    await page.getByRole('group', { name: 'Garments' }).getByLabel('Heavy Cotton T-Shirt', { exact: true }).check();
    // every available colour is chosen at first: keep White and Black
    const colours = page.getByRole('group', { name: 'Colours of Heavy Cotton T-Shirt' });
    for (const name of ['Navy', 'Sport Grey', 'Red', 'Forest Green', 'Maroon'])
      await colours.getByLabel(name, { exact: true }).uncheck();
    await page
      .getByRole('group', { name: 'Zones of Heavy Cotton T-Shirt' })
      .getByLabel('Back', { exact: true })
      .check();
    await page.getByText('4 mockups · 4 tokens').waitFor();
    await page.getByRole('button', { name: 'Review' }).click();
    await shot('review');
    await page.getByRole('button', { name: 'Start: 4 tokens' }).click();

    // the progress: the bar ends full, four mockups shown, then Download all
    await page.getByText(/^4 of 4 finished · done$/).waitFor({ timeout: 120_000 });
    const bar = page.locator('progress.bulk-progress');
    assert.equal(await bar.evaluate((b: any) => [b.value, b.max].join('/')), '4/4');
    assert.equal(await page.getByRole('list', { name: 'Finished mockups' }).locator('img').count(), 4);
    const download = page.getByRole('link', { name: 'Download all (ZIP)' });
    await download.waitFor();
    await shot('done');
    // Download all: the browser saves the ZIP
    const [saved] = await Promise.all([page.waitForEvent('download'), download.click()]);
    assert.match(saved.suggestedFilename(), /^blk_\d+_[a-z0-9]+\.zip$/);
    const zip = await readFile((await saved.path())!);
    assert.deepEqual((await zipNames(zip)).sort(), [
      'team-crest-gildan-5000-heavy-cotton-tee-black-back.jpg',
      'team-crest-gildan-5000-heavy-cotton-tee-black-front.jpg',
      'team-crest-gildan-5000-heavy-cotton-tee-white-back.jpg',
      'team-crest-gildan-5000-heavy-cotton-tee-white-front.jpg',
    ]);
  });
});
