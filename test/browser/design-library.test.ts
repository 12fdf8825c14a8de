// The design library in the dashboard (issue 35), by clicking and typing: a design uploaded in one browser is on the
// Designs page and in the studio of another browser signed in to the same account; renamed there (the first browser
// sees the new name after a reload) and deleted with a confirm (gone from both, its file 404). Nothing about designs
// is kept in the browser's localStorage.
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { randomSuffix } from '../../lib/ids';
import { choosePng, FRONT_PAGE, navigate, onPage, signUpInBrowser, useJourney } from '../helpers/browser';
import * as F from '../helpers/fixtures';

describe('journey: the design library across browsers', function () {
  this.timeout(240_000);
  const { stack, browser } = useJourney('design-library');

  it('uploads in one browser, finds, renames and deletes the design in another', async () => {
    const { page, shot } = browser;
    const email = `library-${randomSuffix(8)}@example.test`;
    const password = 'Correct-Horse-42';
    await signUpInBrowser(page, stack.baseUrl, email, password);
    await navigate(page, 'Designs');
    await choosePng(page, 'Team crest.png', await F.crispLogo(900, 1125));
    await page.locator('.upload-result').getByText('2 colours').waitFor({ timeout: 30_000 });
    const gallery = page.locator('.gallery');
    await gallery.getByRole('heading', { name: 'Team crest' }).waitFor();
    await shot('uploaded');
    const designUrl = await gallery.locator('img.thumb').first().getAttribute('src');
    assert.ok(designUrl);

    // another computer: a separate browser profile, signed in to the same account
    const other = await browser.newPerson();
    await other.page.goto(`${stack.baseUrl}/`);
    await onPage(other.page, FRONT_PAGE);
    await other.page.getByRole('link', { name: 'Sign in', exact: true }).click();
    await onPage(other.page, /Sign in/);
    await other.page.getByLabel('Email').fill(email);
    await other.page.getByLabel('Password').fill(password);
    await other.page.getByRole('button', { name: 'Sign in' }).click();
    // signing in opens the studio, which offers the design uploaded in the other browser
    await onPage(other.page, 'Mockup studio');
    const designSelect = other.page.getByLabel('Design', { exact: true });
    await designSelect.waitFor();
    assert.equal(await designSelect.locator('option:checked').innerText(), 'Team crest');
    await navigate(other.page, 'Designs');
    const otherGallery = other.page.locator('.gallery');
    const card = otherGallery.locator('li.design-card', { hasText: 'Team crest' });
    await card.waitFor();
    // its analysis is the server's: shown without analysing again in this browser
    await card.getByText('Analysis').click();
    await card.getByText('2 colours').waitFor();
    await shot('other-browser', other.page);

    // rename it in the second browser
    await card.getByRole('button', { name: 'Rename' }).click();
    await card.getByLabel('New name').fill('Team crest 2026');
    await card.getByRole('button', { name: 'Save name' }).click();
    await otherGallery.getByRole('heading', { name: 'Team crest 2026' }).waitFor();

    // the first browser sees the new name
    await page.reload();
    await onPage(page, 'Designs');
    await gallery.getByRole('heading', { name: 'Team crest 2026' }).waitFor();

    // delete it, with a confirm, in the first browser
    const first = gallery.locator('li.design-card', { hasText: 'Team crest 2026' });
    await first.getByRole('button', { name: 'Delete' }).click();
    const confirm = first.getByRole('alertdialog', { name: 'Delete Team crest 2026?' });
    await confirm.waitFor();
    await shot('confirm-delete');
    await confirm.getByRole('button', { name: 'Keep it' }).click();
    await first.getByRole('button', { name: 'Delete' }).click();
    await first.getByRole('button', { name: 'Delete Team crest 2026' }).click();
    await gallery.getByText('Designs you upload are listed here').waitFor();
    assert.equal((await fetch(designUrl)).status, 404, 'its file is erased');

    await other.page.reload();
    await onPage(other.page, 'Designs');
    await otherGallery.getByText('Designs you upload are listed here').waitFor();

    // nothing about designs lives in either browser
    for (const p of [page, other.page]) {
      const keys = await p.evaluate(() => Object.keys((globalThis as any).localStorage));
      assert.deepEqual(
        keys.filter((k: string) => /design/i.test(k)),
        [],
      );
    }
    await shot('deleted');
  });

  it('warns in the studio, before Generate, that a navy design is hard to see on black', async () => {
    const { page, shot } = browser;
    const navy = await sharp({
      create: { width: 600, height: 600, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } },
    })
      .composite([
        {
          input: Buffer.from(
            '<svg xmlns="http://www.w3.org/2000/svg" width="600" height="600"><circle cx="300" cy="300" r="240" fill="#1F2A44"/></svg>',
          ),
        },
      ])
      .png()
      .toBuffer();
    await navigate(page, 'Designs');
    await choosePng(page, 'navy.png', navy);
    await page.locator('.upload-result').getByRole('link', { name: 'Place on a garment' }).click();
    await onPage(page, 'Mockup studio');
    const notice = page.locator('.contrast-notice');
    await page.locator('label.swatch-radio', { hasText: /^Black$/ }).click();
    await notice.getByText(/Low contrast: .* hard to see on Black/).waitFor({ timeout: 30_000 });
    await shot('low-contrast');
    await page.locator('label.swatch-radio', { hasText: /^White$/ }).click();
    await page.waitForFunction(() => !(globalThis as any).document.querySelector('.contrast-notice')?.textContent);
  });
});
