// CPU time of a template render in a process of its own (docs/templates.md#render-speed): the bench's render-phase
// template (bench/templates.ts: 2000x2000, one smart object in perspective, two layers above, displacement auto) and
// its 1000x1000 design, rendered N times after warm-up: `templateMockup` (placed design and levels from the design
// cache, the pass, both JPEGs), the engine alone (`renderTemplateRgb`, levels cached: the baseline copy and the
// pass) and the general compositor (`renderTemplate`, the design sampled by sample.ts's sampleMap). Per render:
// process.cpuUsage() user+system (every thread of the process, sharp's included). Prints the median and mean per
// render and hashes of the pixels (the engine's RGB, the general compositor's, the JPEG), so two builds of the code
// can be compared run by run: BENCH_CPU_RENDERS (default 30), BENCH_CPU_WARMUP (default 5).
// Run: node --import tsx bench/template-cpu.ts
import { createHash } from 'node:crypto';
import sharp from 'sharp';
import { templateMockup } from '../lib/template-import/render';
import {
  parseTemplate,
  prepareTemplate,
  renderTemplate,
  renderTemplateRgb,
  type DesignLevels,
  type LevelsCache,
} from '../lib/templates';
import { mockupPsd } from '../test/helpers/psd';
import { templateBenchDesign } from './lib';

const N = Number(process.env.BENCH_CPU_RENDERS ?? 30);
const WARM = Number(process.env.BENCH_CPU_WARMUP ?? 5);

const cpuMs = (c: NodeJS.CpuUsage) => (c.user + c.system) / 1000;
const median = (a: number[]) => [...a].sort((x, y) => x - y)[a.length >> 1]!;
const mean = (a: number[]) => a.reduce((s, x) => s + x, 0) / a.length;

async function main() {
  const quad: [number, number, number, number, number, number, number, number] = [
    500, 450, 1500, 500, 1450, 1550, 550, 1500,
  ];
  const p = prepareTemplate(
    parseTemplate(
      mockupPsd({ width: 2000, height: 2000, quad, content: { width: 1000, height: 1000 }, layersAbove: 2 }),
    ),
  );
  const png = await templateBenchDesign();
  const so = p.smartObjects[0]!.id;
  const placement = { x: 50, y: 50, scale: 1, rotation: 0 };
  const designs = [{ smartObjectId: so, source: { id: 'uploads/bench-design.png', load: async () => png }, placement }];
  const opts = { displace: 'auto' as const };

  // the engine alone: the design decoded once, its levels kept in a map as the worker's cache keeps them
  const raw = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const design = { width: raw.info.width, height: raw.info.height, data: raw.data };
  const map = new Map<string, DesignLevels>();
  const cache: LevelsCache = { get: (k) => map.get(k), set: (k, v) => void map.set(k, v) };
  const fills = [{ smartObjectId: so, design, placement, designKey: 'bench' }];
  const out = Buffer.alloc(p.width * p.height * 3);

  let jpeg: Buffer | null = null;
  for (let i = 0; i < WARM; i++) {
    jpeg = (await templateMockup(p, designs, opts)).mockup;
    renderTemplateRgb(p, fills, opts, out, cache);
    renderTemplate(p, fills, opts);
  }
  const mock: number[] = [];
  const engine: number[] = [];
  const general: number[] = [];
  let g: Buffer | null = null;
  for (let i = 0; i < N; i++) {
    let c = process.cpuUsage();
    jpeg = (await templateMockup(p, designs, opts)).mockup;
    mock.push(cpuMs(process.cpuUsage(c)));
    c = process.cpuUsage();
    renderTemplateRgb(p, fills, opts, out, cache);
    engine.push(cpuMs(process.cpuUsage(c)));
    c = process.cpuUsage();
    g = renderTemplate(p, fills, opts).data;
    general.push(cpuMs(process.cpuUsage(c)));
  }
  const hash = (b: Buffer) => createHash('sha256').update(b).digest('hex').slice(0, 16);
  const f = (x: number) => x.toFixed(1);
  console.log(
    JSON.stringify({
      renders: N,
      templateMockupCpuMs: { median: f(median(mock)), mean: f(mean(mock)) },
      engineCpuMs: { median: f(median(engine)), mean: f(mean(engine)) },
      generalCpuMs: { median: f(median(general)), mean: f(mean(general)) },
      rgb: hash(out),
      general: hash(g!),
      jpeg: hash(jpeg!),
    }),
  );
}

void main();
