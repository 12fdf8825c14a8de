// Compositing alone, in process: realistic ('photo') and plain paste ('flat') mockups of a generated 2400x3000 RGBA
// PNG design on a 2000x2000 blank. Prints a table and writes bench/results/compositing.json.
//
//   node --import tsx bench/compositing.ts            (BENCH_QUICK=1 for a short run)
//
// Every mockup decodes the design again (design cache off) unless the row says "design cached" (the same design on
// many colors, where the decoded, sized design is reused). Latency is from the call to the result, including any
// wait for a slot (at most 2 composites per core run at once). "CPU ms" is process CPU time (all threads) per mockup:
// on a busy shared machine wall-clock numbers suffer, CPU time much less; "CPU share" is the fraction of all cores
// the run got (1.0 = both cores busy with compositing), so a loaded machine shows up in the table.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import {
  composite,
  configureDesignCache,
  DEFAULT_MAX_PARALLEL,
  deriveFabricMaps,
  fabricMapKeys,
  PreparedBlankCache,
  type Placement,
} from '../lib/compositing';
import { JPEG_OPTIMIZE_CODING } from '../lib/compositing/composite';
import { placeDesign } from '../lib/compositing/design';
import { paste } from '../lib/compositing/paste';
import { knitTexture } from '../lib/compositing/texture';
import { clearBlankCache, renderBlank, zonesFor } from '../lib/blanks';
import { machineInfo, reexecWithImageMalloc } from './lib';

const QUICK = process.env.BENCH_QUICK === '1';
const RESULTS = path.join(__dirname, 'results', 'compositing.json');

/** A photo-like 2400x3000 RGBA PNG: sky gradient, sun, hills, fine grain, a rounded badge on a transparent
 * background and rows of text-like glyph blocks. Deterministic; ~4 MB (the upload limit is 10 MB). */
export async function makeBenchDesign(W = 2400, H = 3000): Promise<Buffer> {
  const buf = Buffer.alloc(W * H * 4);
  let seed = 0x9e3779b9;
  for (let y = 0; y < H; y++) {
    const ny = y / H;
    for (let x = 0; x < W; x++) {
      const i = (y * W + x) * 4;
      seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
      const grain = ((seed >>> 24) / 255 - 0.5) * 4;
      const nx = x / W;
      let r = 40 + 200 * ny + 15 * Math.sin(nx * 9 + ny * 4);
      let g = 60 + 120 * ny * ny + 20 * Math.cos(nx * 7);
      let b = 190 - 120 * ny + 10 * Math.sin(ny * 13);
      const sun = Math.hypot(nx - 0.62, ny - 0.38);
      if (sun < 0.16) {
        const t = 1 - sun / 0.16;
        r += 120 * t;
        g += 110 * t;
        b += 40 * t;
      }
      const hill = 0.62 + 0.05 * Math.sin(nx * 8.5) + 0.02 * Math.sin(nx * 23);
      if (ny > hill) {
        const t = Math.min(1, (ny - hill) * 30);
        r = r * (1 - t) + (60 + 40 * nx) * t;
        g = g * (1 - t) + (90 + 30 * ny) * t;
        b = b * (1 - t) + 70 * t;
      }
      let a = 255;
      const dx = Math.max(0, Math.abs(nx - 0.5) - 0.38);
      const dy = Math.max(0, Math.abs(ny - 0.42) - 0.33);
      const d = Math.hypot(dx * W, dy * H);
      if (d > 60) a = 0;
      else if (d > 56) a = Math.round((255 * (60 - d)) / 4);
      if (ny > 0.8 && ny < 0.95) {
        const line = Math.floor((ny - 0.8) / 0.05);
        const ly = ((ny - 0.8) / 0.05) % 1;
        const gx = Math.floor(nx * 36 + line * 3);
        const inGlyph =
          ly > 0.15 &&
          ly < 0.8 &&
          nx > 0.08 &&
          nx < 0.92 &&
          gx % 6 !== 5 &&
          (Math.imul(gx + 7, 2654435761) >>> 28) % 4 !== 0;
        if (inGlyph && (((nx * 36 * 5) | 0) % 5 !== 4 || ly < 0.3)) {
          r = 245;
          g = 240;
          b = 230;
          a = 255;
        }
      }
      if (a > 0) {
        r += grain;
        g += grain;
        b += grain;
      }
      buf[i] = r < 0 ? 0 : r > 255 ? 255 : r;
      buf[i + 1] = g < 0 ? 0 : g > 255 ? 255 : g;
      buf[i + 2] = b < 0 ? 0 : b > 255 ? 255 : b;
      buf[i + 3] = a;
    }
  }
  return sharp(buf, { raw: { width: W, height: H, channels: 4 } })
    .png({ adaptiveFiltering: true, compressionLevel: 6 })
    .toBuffer();
}

interface Row {
  mode: 'photo' | 'flat';
  designCached: boolean;
  inFlight: number;
  mockups: number;
  p50Ms: number;
  p95Ms: number;
  mockupsPerSec: number;
  cpuMsPerMockup: number;
  /** process CPU time / (wall time x cores): below ~0.9 with several in flight means other processes took CPU */
  cpuShare: number;
}

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
const round = (n: number, d = 1) => Math.round(n * 10 ** d) / 10 ** d;

function cpuPressure(): string | null {
  try {
    return readFileSync('/proc/pressure/cpu', 'utf8').split('\n')[0]!.trim();
  } catch {
    return null;
  }
}

export async function runCompositingBench(): Promise<Record<string, unknown>> {
  const log = (s: string) => process.stderr.write(`[bench:compositing] ${s}\n`);
  let peakRss = process.memoryUsage().rss;
  const rssTimer = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 20);

  log('rendering a 2000x2000 blank (tee front, white) and deriving its fabric maps');
  const blankKey = 'blanks/tee/f7f7f5-bench-front.jpg';
  const blankJpeg = (await renderBlank({ silhouette: 'tee', view: 'front', colorHex: '#F7F7F5' })).image;
  clearBlankCache(); // the renderer's templates are seed-time memory, not the worker's
  let t0 = performance.now();
  const maps = await deriveFabricMaps(blankJpeg);
  const deriveMs = performance.now() - t0;
  const mapKeys = fabricMapKeys(blankKey);
  const store = new Map<string, Buffer>([
    [blankKey, blankJpeg],
    [mapKeys.shading, maps.shading],
    [mapKeys.displacement, maps.displacement],
  ]);
  const cache = new PreparedBlankCache({ load: async (k) => store.get(k) ?? null });
  t0 = performance.now();
  const blank = await cache.get(blankKey);
  const prepareMs = performance.now() - t0;

  log('generating the 2400x3000 RGBA PNG design');
  const design = await makeBenchDesign();
  const meta = await sharp(design).metadata();
  const zone = zonesFor('tee').front!.rect;
  const placement: Placement = { x: 50, y: 35, scale: 0.8, rotation: 0 }; // the spec's defaults
  const run = (mode: 'photo' | 'flat', cached: boolean) =>
    composite({ blank, design, zone, placement, applyTexture: true, realism: mode, cacheDesign: cached });

  const rssAfterSetup = process.memoryUsage().rss;
  peakRss = rssAfterSetup;
  log('warming up');
  for (let i = 0; i < (QUICK ? 3 : 6); i++) {
    await run('photo', false);
    await run('flat', false);
    await run('photo', true);
  }

  // ---- where the time goes (one mockup, sequential) ----
  const stages: Record<string, number[]> = {};
  const stage = async (name: string, fn: () => unknown | Promise<unknown>) => {
    const s = performance.now();
    await fn();
    (stages[name] ??= []).push(performance.now() - s);
  };
  const W = blank.width;
  const zw = zone.width * W;
  const zh = zone.height * blank.height;
  const boxW = Math.round(placement.scale * zw);
  const boxH = Math.round(placement.scale * zh);
  const placed = await placeDesign(design, boxW, boxH, false);
  const out = Buffer.allocUnsafe(blank.rgb.length);
  const clip = {
    x0: Math.round(zone.x * W),
    y0: Math.round(zone.y * blank.height),
    x1: Math.round((zone.x + zone.width) * W),
    y1: Math.round((zone.y + zone.height) * blank.height),
  };
  const geom = {
    cx: zone.x * W + 0.5 * zw,
    cy: zone.y * blank.height + 0.35 * zh,
    theta: 0,
    design: placed.data,
    dw: placed.width,
    dh: placed.height,
  };
  for (let i = 0; i < (QUICK ? 5 : 15); i++) {
    await stage('design decode + resize (PNG 2400x3000 -> placed size)', () => placeDesign(design, boxW, boxH, false));
    await stage('copy blank pixels (12 MB)', () => blank.rgb.copy(out));
    await stage('paste, photo (warp + shading + sheen + texture, JS)', () =>
      paste(out, blank, geom, clip, knitTexture(), true),
    );
    blank.rgb.copy(out);
    await stage('paste, flat (JS)', () => paste(out, blank, geom, clip, null, false));
    await stage('JPEG encode 2000x2000 q88', () =>
      sharp(out, { raw: { width: W, height: blank.height, channels: 3 } })
        .jpeg({ quality: 88, mozjpeg: false, optimizeCoding: JPEG_OPTIMIZE_CODING })
        .toBuffer(),
    );
    await stage('JPEG encode thumbnail', () =>
      sharp(blank.thumb.data, { raw: { width: blank.thumb.width, height: blank.thumb.height, channels: 3 } })
        .jpeg({ quality: 82, mozjpeg: false, optimizeCoding: JPEG_OPTIMIZE_CODING })
        .toBuffer(),
    );
  }
  const stageRows = Object.entries(stages).map(([name, v]) => {
    const s = [...v].sort((a, b) => a - b);
    return { stage: name, p50Ms: round(pct(s, 0.5)), minMs: round(s[0]!) };
  });

  // ---- latency and throughput ----
  const rows: Row[] = [];
  const pressureBefore = cpuPressure();
  const loadBefore = os.loadavg();
  const configs: [Row['mode'], boolean][] = [
    ['photo', false],
    ['flat', false],
    ['photo', true],
  ];
  for (const [mode, cached] of configs) {
    for (const inFlight of [1, 2, 4, 8]) {
      const total = QUICK ? (inFlight === 1 ? 10 : 16) : inFlight === 1 ? 30 : 48;
      log(`${mode}${cached ? ' (design cached)' : ''}: ${total} mockups, ${inFlight} in flight`);
      const lat: number[] = [];
      let next = 0;
      const c0 = process.cpuUsage();
      const start = performance.now();
      await Promise.all(
        Array.from({ length: inFlight }, async () => {
          while (next < total) {
            next++;
            const s = performance.now();
            await run(mode, cached);
            lat.push(performance.now() - s);
          }
        }),
      );
      const elapsed = performance.now() - start;
      const cpu = process.cpuUsage(c0);
      lat.sort((a, b) => a - b);
      rows.push({
        mode,
        designCached: cached,
        inFlight,
        mockups: total,
        p50Ms: round(pct(lat, 0.5)),
        p95Ms: round(pct(lat, 0.95)),
        mockupsPerSec: round((total / elapsed) * 1000),
        cpuMsPerMockup: round((cpu.user + cpu.system) / 1000 / total),
        cpuShare: round((cpu.user + cpu.system) / 1000 / (elapsed * os.availableParallelism()), 2),
      });
    }
  }
  clearInterval(rssTimer);
  configureDesignCache({ clear: true });

  const sample = await run('photo', false);
  const result = {
    benchmark: 'compositing',
    date: new Date().toISOString(),
    quick: QUICK,
    machine: {
      ...machineInfo(),
      libvipsThreadsPerPipeline: sharp.concurrency(),
      maxParallelComposites: DEFAULT_MAX_PARALLEL,
      uvThreadpoolSize: Number(process.env.UV_THREADPOOL_SIZE ?? 4),
      loadAvgBefore: loadBefore.map((n) => round(n, 2)),
      loadAvgAfter: os.loadavg().map((n) => round(n, 2)),
      cpuPressureBefore: pressureBefore,
      cpuPressureAfter: cpuPressure(),
    },
    input: {
      design: `${meta.width}x${meta.height} ${meta.format} ${meta.channels} channels, ${round(design.length / 2 ** 20, 2)} MiB`,
      blank: `${blank.width}x${blank.height} JPEG (tee front, #F7F7F5)`,
      placement,
      placedDesign: `${placed.width}x${placed.height}`,
      output: `JPEG q88 ${sample.width}x${sample.height} (${round(sample.mockup.length / 1024)} KiB) + thumbnail (${round(sample.thumbnail.length / 1024)} KiB)`,
    },
    seedAndPrepare: {
      deriveFabricMapsMs: round(deriveMs),
      prepareBlankMs: round(prepareMs),
      preparedBlankMiB: round(blank.bytes / 2 ** 20),
    },
    stages: stageRows,
    rows,
    rssAfterSetupMiB: round(rssAfterSetup / 2 ** 20),
    peakRssMiB: round(peakRss / 2 ** 20),
  };
  mkdirSync(path.dirname(RESULTS), { recursive: true });
  writeFileSync(RESULTS, JSON.stringify(result, null, 2) + '\n');
  printTable(result.machine, stageRows, rows, result);
  return result;
}

function printTable(
  machine: Record<string, unknown>,
  stages: { stage: string; p50Ms: number; minMs: number }[],
  rows: Row[],
  r: {
    seedAndPrepare: Record<string, number>;
    peakRssMiB: number;
    rssAfterSetupMiB: number;
    input: Record<string, unknown>;
  },
): void {
  const p = (s: string) => process.stdout.write(s + '\n');
  p(
    `\nCompositing benchmark: ${machine.cpu}, ${machine.cores} cores, node ${machine.node}, sharp ${machine.sharp} / libvips ${machine.libvips}, ${machine.libvipsThreadsPerPipeline} libvips thread per pipeline, max ${machine.maxParallelComposites} composites at once`,
  );
  p(`design ${r.input.design} -> ${r.input.placedDesign} on ${r.input.blank}; ${r.input.output}`);
  p(
    `load average before/after: ${(machine.loadAvgBefore as number[]).join(' ')} / ${(machine.loadAvgAfter as number[]).join(' ')}; ${machine.cpuPressureAfter ?? ''}`,
  );
  p('');
  p('| mode | design | in flight | p50 ms | p95 ms | mockups/s | CPU ms/mockup | CPU share |');
  p('|---|---|---:|---:|---:|---:|---:|---:|');
  for (const row of rows) {
    p(
      `| ${row.mode === 'photo' ? 'realistic' : 'plain paste'} | ${row.designCached ? 'cached' : 'decoded each time'} | ${row.inFlight} | ${row.p50Ms} | ${row.p95Ms} | ${row.mockupsPerSec} | ${row.cpuMsPerMockup} | ${row.cpuShare} |`,
    );
  }
  p('');
  p('| stage (one mockup) | p50 ms | min ms |');
  p('|---|---:|---:|');
  for (const s of stages) p(`| ${s.stage} | ${s.p50Ms} | ${s.minMs} |`);
  p('');
  p(
    `seed: deriveFabricMaps ${r.seedAndPrepare.deriveFabricMapsMs} ms; worker: prepare blank (decode + maps) ${r.seedAndPrepare.prepareBlankMs} ms, ${r.seedAndPrepare.preparedBlankMiB} MiB held; RSS after setup ${r.rssAfterSetupMiB} MiB, peak while compositing ${r.peakRssMiB} MiB`,
  );
  p(`written to ${path.relative(process.cwd(), RESULTS)}`);
}

if (require.main === module) {
  reexecWithImageMalloc();
  runCompositingBench().then(
    () => process.exit(0),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
