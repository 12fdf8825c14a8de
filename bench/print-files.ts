// Print files benchmark (issue 36, docs/production.md): the engine that makes a print file, in process, with the
// worker's malloc settings: the case, a 2400x3000 RGBA design on the 12 x 16 in front zone at 300 DPI
// (3600 x 4800 px: resize, place, preflight, PNG with ICC and pHYs; target p50 ≤ 1.5 s), the same on a dark
// garment (the underbase PNG too), the S size (the size rule's smaller canvas), and the studio's check before
// Generate (POST /print-preflight's preflightPrint: the same layout and preflight, no PNG). Peak resident memory of
// this process (as a worker making one file at a time) is reported beside it.
// Run: node --import tsx bench/print-files.ts [runs]. Prints a table and writes bench/results/print-files.json.
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { preflightPrint, renderPrintFile, type PrintFileInput } from '../lib/print/render';
import { makeBenchDesign } from './compositing';
import { machineInfo, reexecWithImageMalloc, round, stats, type LatencyStats } from './lib';

const RESULTS = path.join(__dirname, 'results', 'print-files.json');
const RUNS = Number(process.argv[2] ?? (process.env.BENCH_QUICK === '1' ? 4 : 12));
const say = (m: string) => process.stderr.write(`[bench:print-files] ${m}\n`);
const MiB = 1024 * 1024;

interface CaseResult {
  name: string;
  latency: LatencyStats;
  /** CPU time of this process per call (user + system, every thread: libvips's too), median ms: less bent by load */
  cpuP50Ms: number;
  pngBytes: number | null;
  /** this process's peak resident set after the case, MiB (getrusage maxrss: it only grows) */
  peakRssMiB: number;
}

async function timeCase(name: string, runs: number, fn: () => Promise<number | null>): Promise<CaseResult> {
  await fn(); // warm: sharp's pipelines and the design's decode path
  const ms: number[] = [];
  const cpu: number[] = [];
  let bytes: number | null = null;
  for (let i = 0; i < runs; i++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    bytes = await fn();
    ms.push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / 1000);
  }
  const out = {
    name,
    latency: stats(ms),
    cpuP50Ms: stats(cpu).p50Ms,
    pngBytes: bytes,
    peakRssMiB: round(process.resourceUsage().maxRSS / 1024),
  };
  say(`${name}: p50 ${out.latency.p50Ms} ms (CPU ${out.cpuP50Ms} ms), peak RSS ${out.peakRssMiB} MiB`);
  return out;
}

async function main() {
  const design = await makeBenchDesign(2400, 3000);
  const base: PrintFileInput = {
    design,
    zone: { widthIn: 12, heightIn: 16 },
    size: 'M',
    placement: { x: 50, y: 35, scale: 0.8, rotation: 0 },
    garmentHex: '#FFFFFF',
  };
  const rssBefore = round(process.memoryUsage().rss / MiB);
  const cases: CaseResult[] = [];
  // the studio's check first, so its peak RSS is its own (maxrss only grows)
  cases.push(
    await timeCase('preflight only (POST /print-preflight), 12x16 in', RUNS, async () => {
      await preflightPrint(base);
      return null;
    }),
  );
  cases.push(
    await timeCase(
      'print file 3600x4800 (12x16 in, M, white)',
      RUNS,
      async () => (await renderPrintFile(base)).png.length,
    ),
  );
  cases.push(
    await timeCase('print file, rotated 15 deg', RUNS, async () => {
      const f = await renderPrintFile({ ...base, placement: { ...base.placement, rotation: 15 } });
      return f.png.length;
    }),
  );
  cases.push(
    await timeCase('print file + underbase (black garment)', RUNS, async () => {
      const f = await renderPrintFile({ ...base, garmentHex: '#1C1C1E' });
      return f.png.length + (f.underbase?.length ?? 0);
    }),
  );
  cases.push(
    await timeCase('print file, size S (11.04x14.72 in)', RUNS, async () => {
      const f = await renderPrintFile({ ...base, size: 'S' });
      return f.png.length;
    }),
  );
  const result = { machine: machineInfo(), runs: RUNS, rssBeforeMiB: rssBefore, loadAverage: os.loadavg(), cases };
  mkdirSync(path.dirname(RESULTS), { recursive: true });
  writeFileSync(RESULTS, JSON.stringify(result, null, 2));
  process.stdout.write(`\nPrint files (design 2400x3000 RGBA, ${RUNS} runs each after one warm-up)\n`);
  process.stdout.write(
    '| case | p50 ms | p95 ms | CPU p50 ms | PNG bytes | peak RSS MiB |\n|---|---|---|---|---|---|\n',
  );
  for (const c of cases)
    process.stdout.write(
      `| ${c.name} | ${c.latency.p50Ms} | ${c.latency.p95Ms} | ${c.cpuP50Ms} | ${c.pngBytes ?? '-'} | ${c.peakRssMiB} |\n`,
    );
  process.stdout.write(
    `(RSS before: ${rssBefore} MiB; load average ${os
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')} on ${os.cpus().length} cores)\n`,
  );
}

if (require.main === module) {
  reexecWithImageMalloc();
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
