// Mockups on clients' own blank photos, in process (the generation's render step without HTTP or Temporal):
//   - the first-use cost of finding the garment: preparing a photo with and without the search, the search alone,
//     and the catalogue silhouette's reference landmarks (once per silhouette and view per process);
//   - a generation's render on a customer photo (zone fitted to the found garment) against our own blank:
//     the first on a new photo (prepare + find + composite) and the next ones (prepared photo cached).
// Photos: our tee blank reframed (half size, bottom-right of a 2400x2000 canvas) on its backdrop (JPEG) and on
// transparency (PNG), a tee filling an 840x859 frame like the photo of issue 27, and a real tee on a patterned bed
// (corpus (b) of issue 38, when a copy of the dataset is at hand).
//   node --import tsx bench/garment.ts            (BENCH_QUICK=1 for a short run)
// Prints a table and writes bench/results/garment.json.
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import {
  choosePrintZone,
  composite,
  detectGarmentInImage,
  PreparedBlankCache,
  referenceLandmarks,
  type PreparedBlank,
} from '../lib/compositing';
import { zonesFor } from '../lib/blanks';
import { framedPhoto, ownBlank } from '../test/helpers/customer-photos';
import { manifest, photoBytes } from '../test/helpers/garment-photos';
import { makeBenchDesign } from './compositing';
import { machineInfo, round, stats } from './lib';

const QUICK = process.env.BENCH_QUICK === '1';
const RUNS = QUICK ? 8 : 30;
const RESULTS = path.join(__dirname, 'results', 'garment.json');
const say = (m: string) => process.stderr.write(`[bench:garment] ${m}\n`);
const placement = { x: 50, y: 35, scale: 0.8, rotation: 0 };

async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const t = performance.now();
  const v = await fn();
  return [v, performance.now() - t];
}

async function main() {
  say('rendering the tee blank and the customer photos');
  const blank = await ownBlank('tee', 'front', '#B3262E', 2000);
  const zone = zonesFor('tee').front!.rect;
  const frame = { width: 2400, height: 2000, scale: 0.5, left: 1400, top: 1000 };
  const photos: Record<string, Buffer> = {
    'tee at half size in a 2400x2000 JPEG (backdrop)': (await framedPhoto(blank, { ...frame, backdrop: 'studio' }))
      .image,
    'tee at half size in a 2400x2000 PNG (transparent)': (
      await framedPhoto(blank, { ...frame, backdrop: 'transparent' })
    ).image,
    // issue 38: our white tee on a white backdrop (the outline path; the colour path could not find it)
    'white tee at half size in a 2400x2000 JPEG (white backdrop)': (
      await framedPhoto(await ownBlank('tee', 'front', '#F7F7F5', 2000), {
        ...frame,
        left: 0,
        backdrop: [255, 255, 255],
      })
    ).image,
    'tee filling an 840x859 JPEG': await sharp(blank.jpeg)
      .extract({ left: 90, top: 230, width: 1820, height: 1600 })
      .resize(840, 859, { fit: 'fill' })
      .jpeg({ quality: 90 })
      .toBuffer(),
  };
  // corpus (b): a real photo of a plain tee on a textured bed (the seeded path), when a copy of the dataset is at hand
  const bed = manifest().photos.find((p) => p.image.startsWith('39f48611'));
  const bedBytes = bed ? photoBytes(bed) : null;
  if (bedBytes) photos['real tee on a patterned bed, 400x533 JPEG (corpus b)'] = bedBytes;
  else say('no copy of the clothing dataset: the real-photo row is left out');
  const design = await makeBenchDesign(1200, 1500);
  const files = new Map<string, Buffer>(Object.entries(photos).map(([k, v]) => [`url:${k}`, v]));
  files.set('ours', blank.jpeg);

  const [, refMs] = await timed(() => referenceLandmarks('tee', 'front'));
  const rows: Record<string, unknown>[] = [];
  for (const [label, bytes] of Object.entries(photos)) {
    const prepareMs: number[] = [];
    const prepareFindMs: number[] = [];
    const detectMs: number[] = [];
    const detectCpuMs: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const plain = new PreparedBlankCache({ load: async (k) => files.get(k) ?? null, mapsStored: () => false });
      const finding = new PreparedBlankCache({
        load: async (k) => files.get(k) ?? null,
        mapsStored: () => false,
        findGarment: () => true,
      });
      prepareMs.push((await timed(() => plain.get(`url:${label}`)))[1]);
      prepareFindMs.push((await timed(() => finding.get(`url:${label}`)))[1]);
      const cpu = process.cpuUsage();
      detectMs.push((await timed(() => detectGarmentInImage(bytes)))[1]);
      const used = process.cpuUsage(cpu);
      detectCpuMs.push((used.user + used.system) / 1000);
    }
    const cache = new PreparedBlankCache({
      load: async (k) => files.get(k) ?? null,
      mapsStored: () => false,
      findGarment: (k) => k.startsWith('url:'),
    });
    const render = async (key: string) => {
      const b: PreparedBlank = await cache.get(key);
      const chosen = await choosePrintZone({ blank: b, zone, silhouette: 'tee', view: 'front' });
      await composite({ blank: b, design, zone: chosen.zone, placement, applyTexture: true });
      return chosen.basis;
    };
    const [basis, firstMs] = await timed(() => render(`url:${label}`));
    const [, cachedGetMs] = await timed(() => cache.get(`url:${label}`));
    const next: number[] = [];
    for (let i = 0; i < RUNS; i++) next.push((await timed(() => render(`url:${label}`)))[1]);
    const found = (await cache.get(`url:${label}`)).garment;
    rows.push({
      photo: label,
      found: found?.found ? found.source : 'no',
      basis,
      detectP50Ms: stats(detectMs).p50Ms,
      detectCpuP50Ms: stats(detectCpuMs).p50Ms,
      prepareP50Ms: stats(prepareMs).p50Ms,
      prepareWithFindP50Ms: stats(prepareFindMs).p50Ms,
      cachedGetMs: round(cachedGetMs),
      firstRenderMs: round(firstMs),
      nextRenderP50Ms: stats(next).p50Ms,
    });
    say(`${label}: ${JSON.stringify(rows[rows.length - 1])}`);
  }
  // our own blank, for comparison (maps derived in memory, as for a photo; the garment is not looked for)
  const ours = new PreparedBlankCache({ load: async (k) => files.get(k) ?? null, mapsStored: () => false });
  await ours.get('ours');
  const oursMs: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    oursMs.push(
      (
        await timed(async () => {
          const b = await ours.get('ours');
          await composite({ blank: b, design, zone, placement, applyTexture: true });
        })
      )[1],
    );
  }
  const result = {
    when: new Date().toISOString(),
    loadAverage: os.loadavg().map((v) => round(v)),
    machine: machineInfo(),
    runs: RUNS,
    referenceLandmarksFirstUseMs: round(refMs),
    ourBlankRenderP50Ms: stats(oursMs).p50Ms,
    photos: rows,
  };
  mkdirSync(path.dirname(RESULTS), { recursive: true });
  writeFileSync(RESULTS, JSON.stringify(result, null, 2) + '\n');

  console.log(
    `\nGarment detection on customer photos (${RUNS} runs each, p50 ms; load average ${result.loadAverage.join(', ')})\n`,
  );
  console.log(
    '| photo | found | basis | find alone | find alone, CPU | prepare | prepare + find | cached get | first render | next renders |',
  );
  console.log('|---|---|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of rows)
    console.log(
      `| ${String(r.photo)} | ${String(r.found)} | ${String(r.basis)} | ${String(r.detectP50Ms)} | ${String(r.detectCpuP50Ms)} | ${String(r.prepareP50Ms)} | ${String(r.prepareWithFindP50Ms)} | ${String(r.cachedGetMs)} | ${String(r.firstRenderMs)} | ${String(r.nextRenderP50Ms)} |`,
    );
  console.log(
    `\nour own 2000x2000 blank, same design and placement: ${result.ourBlankRenderP50Ms} ms per render; ` +
      `the tee's reference landmarks, first use per process: ${result.referenceLandmarksFirstUseMs} ms`,
  );
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
