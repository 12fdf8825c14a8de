// Corpus (b) of issue 38: real photos of plain tees (floors, beds, hangers) from the CC0 clothing dataset, each with a
// garment outline drawn by hand (test/fixtures/garment-photos/). A measured accuracy test on fixed data: the mask of
// the region the print goes on against the hand-drawn one (IoU), and whether the print centre lands on the chest
// (test/helpers/garment-photos.ts: within 20 % of the garment's width of its axis, 5-45 % of its height below the
// neckline, inside the hand-drawn mask). The photos are not in this repository (see the fixtures' README): without a
// copy of the dataset the test is skipped, saying so.
import assert from 'node:assert/strict';
import { evaluatePhoto, manifest, photoBytes, type PhotoResult } from '../helpers/garment-photos';

/** The floors this corpus is held to (measured: docs/compositing.md; the issue asks 0.85 and 90 %). */
const MIN_MEDIAN_IOU = 0.9;
const MIN_ON_CHEST_SHARE = 0.9;

describe('garment corpus (b): real photos of plain tees, hand-drawn masks', function () {
  this.timeout(600_000);
  const m = manifest();
  const results: { image: string; r: PhotoResult }[] = [];

  before(async function () {
    const first = photoBytes(m.photos[0]!);
    if (!first) {
      console.warn(`  skipped: no copy of ${m.dataset} (set GARMENT_PHOTOS_DIR or GARMENT_PHOTOS_REPO)`);
      this.skip();
    }
    for (const p of m.photos) results.push({ image: p.image, r: await evaluatePhoto(p, photoBytes(p)!) });
  });

  it(`the region printed on matches the hand-drawn garment: median IoU >= ${MIN_MEDIAN_IOU}`, () => {
    const ious = results.map((x) => x.r.iou).sort((a, b) => a - b);
    const median = ious[Math.floor((ious.length - 1) / 2)]!;
    assert.ok(median >= MIN_MEDIAN_IOU, `median IoU ${median.toFixed(3)}: ${ious.map((v) => v.toFixed(2)).join(' ')}`);
  });

  const minOnChest = Math.ceil(MIN_ON_CHEST_SHARE * m.photos.length);
  it(`the print centre lands on the chest in at least ${minOnChest} of ${m.photos.length} photos`, () => {
    const off = results.filter((x) => !x.r.onChest).map((x) => `${x.image} (${x.r.source}, IoU ${x.r.iou.toFixed(2)})`);
    assert.ok(results.length - off.length >= minOnChest, `not on the chest: ${off.join(', ')}`);
  });

  it('a print is never placed off the garment: every print centre that is placed lies inside the hand-drawn mask', () => {
    const bad = results
      .filter((x) => x.r.centre && !x.r.truth[Math.floor(x.r.centre.y) * x.r.w + Math.floor(x.r.centre.x)])
      .map((x) => x.image);
    assert.deepEqual(bad, []);
  });
});
