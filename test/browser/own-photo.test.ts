// The studio with the customer's own blank photo, by clicking and typing: a design is uploaded and placed, then the
// photo URL (our tee blank at half size in a corner of a wider photo, served by a local "customer" host) is typed
// in; the preview renders on it and the stage outlines the garment found and the print zone fitted to it.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomSuffix } from '../../lib/ids';
import { choosePng, navigate, onPage, signUpInBrowser, useJourney } from '../helpers/browser';
import { busyPhoto, framedPhoto, ownBlank } from '../helpers/customer-photos';
import * as F from '../helpers/fixtures';

describe('journey: the studio on the customer’s own blank photo', function () {
  this.timeout(240_000);
  const { stack, browser } = useJourney('own-photo-journey', { env: { ALLOW_PRIVATE_URLS: 'true' } });
  let origin: Server;
  let photoUrl: string;
  let busyUrl: string;

  before(async () => {
    const blank = await ownBlank('tee', 'front', '#1F2A44', 1000);
    const photo = await framedPhoto(blank, {
      width: 1600,
      height: 1200,
      scale: 0.6,
      left: 1000,
      top: 600,
      backdrop: 'studio',
    });
    const busy = await busyPhoto(blank, 1600, 1200);
    origin = createServer((req, res) =>
      res.writeHead(200, { 'content-type': 'image/jpeg' }).end(req.url?.startsWith('/busy') ? busy : photo.image),
    );
    await new Promise<void>((r) => origin.listen(0, '127.0.0.1', () => r()));
    photoUrl = `http://127.0.0.1:${(origin.address() as AddressInfo).port}/my-tee.jpg`;
    busyUrl = `http://127.0.0.1:${(origin.address() as AddressInfo).port}/busy.jpg`;
  });
  after(() => origin?.close());

  it('types the photo URL: the preview renders on it, the garment found and the fitted zone are outlined', async () => {
    const { page, shot } = browser;
    await signUpInBrowser(page, stack.baseUrl, `own-photo-${randomSuffix(8)}@example.test`, 'Correct-Horse-42');
    await navigate(page, 'Designs');
    await choosePng(page, 'logo.png', await F.crispLogo(1200, 1500));
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

  it('a busy photo: the studio shows garment_not_found; "Draw the print area" and a drag set printArea', async () => {
    const { page, shot } = browser;
    const input = page.getByLabel('Your own blank photo (URL, optional)');
    await input.fill(busyUrl);
    await input.press('Tab');
    const warning = page.locator('.garment-warning');
    await warning.getByText('The garment was not found in the photo').waitFor({ timeout: 30_000 });
    assert.equal(await warning.getAttribute('data-code'), 'garment_not_found');
    await shot('own-photo-not-found');
    await warning.getByRole('button', { name: 'Draw the print area' }).click();
    const layer = page.locator('.draw-layer');
    await layer.scrollIntoViewIfNeeded();
    const b = (await layer.boundingBox())!;
    // the photo is 4:3 in the square stage (letterboxed top and bottom): draw from 40 %, 40 % to 70 %, 65 % of it
    const photoTop = b.y + (b.height * (1 - 0.75)) / 2;
    const at = (fx: number, fy: number) => [b.x + b.width * fx, photoTop + b.height * 0.75 * fy] as const;
    await page.mouse.move(...at(0.4, 0.4));
    await page.mouse.down();
    await page.mouse.move(...at(0.55, 0.5), { steps: 4 });
    await page.mouse.move(...at(0.7, 0.65), { steps: 4 });
    await page.mouse.up();
    await page.getByText('The print goes in the area you drew').waitFor({ timeout: 30_000 });
    await page.getByText('Preview up to date').waitFor();
    assert.ok(await warning.isHidden(), 'the preview with a printArea has no warning');
    // the zone the preview used is the drawn one
    const zone = (await page.locator('.found-zone').boundingBox())!;
    const [x0, y0] = at(0.4, 0.4);
    const [x1, y1] = at(0.7, 0.65);
    for (const [got, want] of [
      [zone.x, x0],
      [zone.y, y0],
      [zone.x + zone.width, x1],
      [zone.y + zone.height, y1],
    ])
      assert.ok(Math.abs(got! - want!) <= b.width * 0.01, JSON.stringify({ zone, x0, y0, x1, y1 }));
    await shot('own-photo-drawn');
  });
});
