// Placement preview benchmark: POST /api/v1/preview end to end, as the dashboard's studio calls it while
// the user drags: one request at a time, the placement different on every call (position, size and rotation move),
// for an uploaded design (the bench's 2400x3000 RGBA PNG) on a catalogue blank. Target: p50 ≤ 60 ms.
// Also: the first preview of a fresh upload (its level read from storage, prepared at upload), and 4 clients at once.
// Starts the stack like npm start (bench/stack.ts). Run: node --import tsx bench/preview.ts [calls]
// Prints a table and writes bench/results/preview.json.
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { makeBenchDesign } from './compositing';
import { closedLoop, keptAnalyses, machineInfo, pngVariant, round, stats } from './lib';
import { startBenchStack } from './stack';

const RESULTS = path.join(__dirname, 'results', 'preview.json');
const QUICK = process.env.BENCH_QUICK === '1';
const CALLS = Number(process.argv[2] ?? (QUICK ? 40 : 200));
const FRESH = QUICK ? 3 : 8;
const say = (m: string) => process.stderr.write(`[bench:preview] ${m}\n`);

/** The i-th step of a drag: the design wanders over the zone, grows and shrinks, and turns. */
export function dragPlacement(i: number) {
  const t = i / 17;
  return {
    x: round(50 + 30 * Math.sin(t), 2),
    y: round(45 + 25 * Math.cos(t * 0.7), 2),
    scale: round(0.45 + 0.3 * Math.sin(t * 0.3) ** 2, 3),
    rotation: round(((i * 7) % 360) - 180, 1),
  };
}

async function main() {
  const stack = await startBenchStack({ dataDir: path.join(__dirname, '..', '.data', 'bench-preview'), say });
  try {
    const base = stack.baseUrl;
    const email = `bench-${randomBytes(4).toString('hex')}@example.test`;
    const signup = await fetch(`${base}/api/auth/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password: 'Correct-Horse-42' }),
    });
    const cookie = signup.headers.getSetCookie()[0]!.split(';')[0]!;
    const keyRes = await fetch(`${base}/api/v1/keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie },
      body: JSON.stringify({ name: 'bench' }),
    });
    const key = ((await keyRes.json()) as { key: string }).key;
    const auth = { authorization: `Bearer ${key}` };
    const garments = (await (
      await fetch(`${base}/api/v1/garments?category=t-shirts&limit=1`, { headers: auth })
    ).json()) as {
      garments: { id: string; colors: { imageUrl: string }[] }[];
    };
    const garment = garments.garments[0]!;

    const design = await makeBenchDesign();
    const uploadIds: string[] = [];
    const upload = async (png: Buffer) => {
      const res = await fetch(`${base}/api/v1/upload`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ imageData: `data:image/png;base64,${png.toString('base64')}` }),
      });
      if (res.status !== 201) throw new Error(`upload answered ${res.status}: ${await res.text()}`);
      const body = (await res.json()) as { url: string; id: string };
      uploadIds.push(body.id);
      return body.url;
    };
    say(`uploading the ${(design.length / 1048576).toFixed(1)} MiB design (${FRESH + 1} copies)`);
    const designUrl = await upload(design);
    const freshUrls: string[] = [];
    for (let i = 0; i < FRESH; i++) freshUrls.push(await upload(pngVariant(design, `fresh-${i}`)));
    say("waiting for the uploads' analyses in the worker (the upload's work, not the previews')");
    await keptAnalyses(base, uploadIds, () => key);

    let bytes = 0;
    let size = '';
    const preview = async (url: string, i: number) => {
      const t0 = performance.now();
      const res = await fetch(`${base}/api/v1/preview`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({
          designUrl: url,
          garmentId: garment.id,
          garmentImageUrl: garment.colors[0]!.imageUrl,
          placement: dragPlacement(i),
        }),
      });
      const body = Buffer.from(await res.arrayBuffer());
      const ms = performance.now() - t0;
      if (res.status !== 200) throw new Error(`preview answered ${res.status}: ${body.toString('utf8')}`);
      bytes += body.length;
      size = res.headers.get('x-preview-size') ?? size;
      return ms;
    };

    say('warming up (the shrunk blank and the design level are prepared once)');
    for (let i = 0; i < 10; i++) await preview(designUrl, 1000 + i);

    say(`${FRESH} first previews of fresh uploads`);
    const freshMs: number[] = [];
    for (const [i, url] of freshUrls.entries()) freshMs.push(await preview(url, i));

    say(`${CALLS} previews one after another, a new placement each`);
    bytes = 0;
    const { results: oneMs, wallMs: oneWall } = await closedLoop(1, CALLS, (i) => preview(designUrl, i));
    const meanBytes = Math.round(bytes / CALLS);

    say(`${CALLS} previews from 4 clients at once`);
    const { results: fourMs, wallMs: fourWall } = await closedLoop(4, CALLS, (i) => preview(designUrl, 5000 + i));

    const meta = await sharp(
      Buffer.from(
        await (
          await fetch(`${base}/api/v1/preview`, {
            method: 'POST',
            headers: { ...auth, 'content-type': 'application/json' },
            body: JSON.stringify({ designUrl, garmentId: garment.id, garmentImageUrl: garment.colors[0]!.imageUrl }),
          })
        ).arrayBuffer(),
      ),
    ).metadata();

    const result = {
      machine: machineInfo(),
      preview: {
        size: size || `${meta.width}x${meta.height}`,
        meanBytes,
        oneClient: { ...stats(oneMs), perSecond: round((CALLS / oneWall) * 1000, 1), targetP50Ms: 60 },
        fourClients: { ...stats(fourMs), perSecond: round((CALLS / fourWall) * 1000, 1) },
        firstOfFreshUpload: stats(freshMs),
      },
    };
    mkdirSync(path.dirname(RESULTS), { recursive: true });
    writeFileSync(RESULTS, JSON.stringify(result, null, 2));
    const p = result.preview;
    const row = (name: string, s: ReturnType<typeof stats>, extra: string) =>
      `${name.padEnd(34)} ${String(s.n).padStart(5)} ${String(s.p50Ms).padStart(8)} ${String(s.p95Ms).padStart(8)} ${String(s.p99Ms).padStart(8)}  ${extra}`;
    process.stdout.write(
      [
        `preview ${p.size} JPEG, ${Math.round(meanBytes / 1024)} KiB on average`,
        `${'POST /api/v1/preview'.padEnd(34)} ${'n'.padStart(5)} ${'p50 ms'.padStart(8)} ${'p95 ms'.padStart(8)} ${'p99 ms'.padStart(8)}`,
        row('1 client, new placement each', p.oneClient, `${p.oneClient.perSecond}/s  target p50 ≤ 60 ms`),
        row('4 clients, new placement each', p.fourClients, `${p.fourClients.perSecond}/s`),
        row('first preview of a fresh upload', p.firstOfFreshUpload, ''),
        `written to ${path.relative(process.cwd(), RESULTS)}`,
        '',
      ].join('\n'),
    );
  } finally {
    await stack.stop();
  }
}

if (require.main === module) {
  main().catch((err) => {
    process.stderr.write(`${err?.stack ?? err}\n`);
    process.exit(1);
  });
}
