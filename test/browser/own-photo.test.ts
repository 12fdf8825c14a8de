// The studio with the customer's own blank photo, by clicking and typing: a design is uploaded and placed, then the
// photo URL (our tee blank at half size in a corner of a wider photo, served by a local "customer" host) is typed
// in; the preview renders on it and the stage outlines the garment found and the print zone fitted to it.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomSuffix } from '../../lib/ids';
import { checkEachTest, navigate, onPage, openBrowser, signUpInBrowser, type BrowserSession } from '../helpers/browser';
import { framedPhoto, ownBlank } from '../helpers/customer-photos';
import * as F from '../helpers/fixtures';
import { startStack, type Stack } from '../helpers/stack';

describe('journey: the studio on the customer’s own blank photo', function () {
  this.timeout(240_000);
  let stack: Stack;
  let browser: BrowserSession | undefined;
  let origin: Server;
  let photoUrl: string;
  checkEachTest(() => browser);

  before(async () => {
    stack = await startStack('own-photo-journey', { env: { ALLOW_PRIVATE_URLS: 'true' } });
    browser = await openBrowser('own-photo-journey', stack.baseUrl);
    const blank = await ownBlank('tee', 'front', '#1F2A44', 1000);
    const photo = await framedPhoto(blank, {
      width: 1600,
      height: 1200,
      scale: 0.6,
      left: 1000,
      top: 600,
      backdrop: 'studio',
    });
    origin = createServer((_req, res) => res.writeHead(200, { 'content-type': 'image/jpeg' }).end(photo.image));
    await new Promise<void>((r) => origin.listen(0, '127.0.0.1', () => r()));
    photoUrl = `http://127.0.0.1:${(origin.address() as AddressInfo).port}/my-tee.jpg`;
  });
  after(async () => {
    origin?.close();
    await browser?.close();
    await stack?.stop();
  });

  it('types the photo URL: the preview renders on it, the garment found and the fitted zone are outlined', async () => {
    const { page, shot } = browser!;
    await signUpInBrowser(page, stack.baseUrl, `own-photo-${randomSuffix(8)}@example.test`, 'Correct-Horse-42');
    await navigate(page, 'Designs');
    await page.locator('input[type=file]').setInputFiles({
      name: 'logo.png',
      mimeType: 'image/png',
      buffer: await F.crispLogo(1200, 1500),
    });
    const result = page.locator('.upload-result');
    await result.getByRole('link', { name: 'Place on a garment' }).click({ timeout: 60_000 });
    await onPage(page, 'Mockup studio');
    await page.getByText('Preview up to date').waitFor({ timeout: 30_000 });

    await page.getByLabel('Your own blank photo (URL, optional)').fill(photoUrl);
    await page.getByLabel('Your own blank photo (URL, optional)').press('Tab');
    await page.getByText('Garment found in your photo').waitFor({ timeout: 30_000 });
    await page.getByText('Preview up to date').waitFor();
    const garment = await page.locator('.found-garment').boundingBox();
    const zone = await page.locator('.found-zone').boundingBox();
    const stage = await page.locator('.stage').boundingBox();
    assert.ok(garment && zone && stage);
    // the garment is in the bottom-right of the photo, the zone on it
    assert.ok(garment.x > stage.x + stage.width * 0.5, JSON.stringify({ garment, stage }));
    assert.ok(zone.x > garment.x && zone.x + zone.width < garment.x + garment.width, JSON.stringify({ zone, garment }));
    assert.ok(zone.y > garment.y && zone.y + zone.height < garment.y + garment.height);
    await shot('own-photo');
  });
});
