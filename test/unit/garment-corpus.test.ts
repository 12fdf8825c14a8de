// Corpus (a) of issue 38, a representative sample (the whole corpus: scripts/garment-corpus.ts, its table in
// docs/compositing.md): our own blanks cut out along their silhouette, reframed (50-100 %, corners and centre) on
// backdrops from pure white to light grey, with and without a soft drop shadow, JPEG q70-95. The found garment must
// cover the true silhouette (IoU) and the fitted print's centre must land within 3 % of the garment's width of where
// it lands on our own blank.
import assert from 'node:assert/strict';
import { CATALOG } from '../../db/seed/catalog';
import { BACKDROPS, CORNERS, evaluateCase, type CorpusCase } from '../helpers/garment-corpus';

const byName = new Map(CATALOG.flatMap((g) => g.colors).map((c) => [c.name, c.hex]));
const hex = (name: string) => byName.get(name)!;

// every light colour of the catalogue and three dark ones on the tee; white or ivory on the other silhouettes
const SAMPLE: [CorpusCase['silhouette'], string][] = [
  ...['White', 'Ivory', 'Sand', 'Heather Grey', 'Athletic Heather', 'Sport Grey', 'Black', 'Red', 'Navy'].map(
    (c) => ['tee', c] as [CorpusCase['silhouette'], string],
  ),
  ['hoodie', 'White'],
  ['crewneck', 'Ivory'],
  ['longsleeve', 'White'],
  ['tank', 'White'],
  ['polo', 'White'],
];
const LIGHT_BACKDROPS = BACKDROPS.filter((b) => ['pure white', 'white paper', 'light grey'].includes(b.name));

function cases(): CorpusCase[] {
  const out: CorpusCase[] = [];
  let k = 0;
  for (const [silhouette, colorName] of SAMPLE)
    for (const backdrop of LIGHT_BACKDROPS)
      for (const shadow of [false, true]) {
        const landscape = k % 2 === 0;
        out.push({
          silhouette,
          view: 'front',
          colorName,
          colorHex: hex(colorName),
          backdrop,
          shadow,
          scale: [0.5, 0.75, 1][k % 3]!,
          corner: CORNERS[k % CORNERS.length]!,
          quality: [70, 80, 90, 95][k % 4]!,
          width: landscape ? 1000 : 800,
          height: landscape ? 800 : 1000,
          seed: k++,
        });
      }
  return out;
}

describe('garment corpus (a): our blanks reframed on light backdrops', function () {
  this.timeout(600_000);
  const results: { c: CorpusCase; iou: number; centreError: number; source: string }[] = [];

  before(async () => {
    for (const c of cases()) results.push({ c, ...(await evaluateCase(c)) });
  });

  const label = (r: (typeof results)[number]) =>
    `${r.c.silhouette} ${r.c.colorName} on ${r.c.backdrop.name}${r.c.shadow ? ' with shadow' : ''} ` +
    `(${r.c.corner}, ${r.c.scale * 100} %, q${r.c.quality}): IoU ${r.iou.toFixed(3)}, centre ${(r.centreError * 100).toFixed(1)} % [${r.source}]`;

  it('finds every garment, white and ivory on white included, by its outline', () => {
    for (const r of results) assert.equal(r.source, 'outline', label(r));
  });

  it('without a drop shadow: IoU >= 0.95 with the true silhouette', () => {
    const bad = results.filter((r) => !r.c.shadow && r.iou < 0.95).map(label);
    assert.deepEqual(bad, []);
  });

  it('with a soft drop shadow (its steep band peeled off, the gaps opened): IoU >= 0.91, and >= 0.97 on average', () => {
    const shadowed = results.filter((r) => r.c.shadow);
    const bad = shadowed.filter((r) => r.iou < 0.91).map(label);
    assert.deepEqual(bad, []);
    const mean = shadowed.reduce((s, r) => s + r.iou, 0) / shadowed.length;
    assert.ok(mean >= 0.97, `mean IoU ${mean.toFixed(3)}`);
  });

  it('the print centre lands within 2 % of the garment width of where it lands on our own blank', () => {
    const bad = results.filter((r) => !(r.centreError <= 0.02)).map(label);
    assert.deepEqual(bad, []);
  });
});

// Photos of the full corpus (scripts/garment-corpus.ts, the same seeds) that the pockets of garment-pockets.ts decide:
// the drop shadow in the narrow gap between a sleeve and the body (white, sand, heather), and a garment of the
// backdrop's own colour whose fabric the pocket flood gets into through its outline.
describe('garment corpus (a): the shadowed gap between a sleeve and the body', function () {
  this.timeout(300_000);
  const backdrop = (name: string) => BACKDROPS.find((b) => b.name === name)!;
  const at = (
    silhouette: CorpusCase['silhouette'],
    colorName: string,
    on: string,
    shadow: boolean,
    scale: number,
    corner: CorpusCase['corner'],
    quality: number,
    landscape: boolean,
    seed: number,
  ): CorpusCase => ({
    silhouette,
    view: 'front',
    colorName,
    colorHex: hex(colorName),
    backdrop: backdrop(on),
    shadow,
    scale,
    corner,
    quality,
    width: landscape ? 1000 : 800,
    height: landscape ? 800 : 1000,
    seed,
  });

  // IoU before the pockets were opened: 0.893, 0.895, 0.905, 0.901, 0.896
  const gaps = [
    at('longsleeve', 'White', 'pure white', true, 0.625, 'centre', 75, false, 421),
    at('crewneck', 'White', 'pure white', true, 0.625, 'centre', 75, false, 271),
    at('hoodie', 'White', 'pure white', true, 0.625, 'top-left', 75, false, 151),
    at('crewneck', 'Sand', 'pure white', true, 0.625, 'top-right', 75, false, 331),
    at('crewneck', 'Heather Grey', 'light grey', true, 0.5, 'top-left', 75, false, 325),
  ];
  for (const c of gaps)
    it(`${c.silhouette} ${c.colorName} on ${c.backdrop.name} with a drop shadow (q${c.quality}): the gap under each sleeve is backdrop, IoU >= 0.92`, async () => {
      const r = await evaluateCase(c);
      assert.ok(r.iou >= 0.92, `IoU ${r.iou.toFixed(3)}`);
      assert.ok(r.centreError <= 0.03, `centre ${(r.centreError * 100).toFixed(1)} %`);
    });

  it('a sand hoodie on sand paper keeps its fabric: the pocket flood runs into the garment there, so nothing is opened (0.868 without that guard)', async () => {
    const r = await evaluateCase(at('hoodie', 'Sand', 'own colour', false, 0.875, 'bottom-left', 90, true, 238));
    assert.ok(r.iou >= 0.92, `IoU ${r.iou.toFixed(3)}`);
  });
});
