// `npm run bench`: the end-to-end benchmark of issue 6. Starts the stack like `npm start` does (own data folder
// .data/bench, free ports, worker and API as child processes) or uses a running one (BENCH_BASE_URL), makes an
// account and key with limits lifted, uploads a generated 2400x3000 RGBA design, warms up, then measures:
//   1. compositing alone, in this process, on the same blank, design and placements as the HTTP runs;
//   2. POST /generate end to end (synchronous): p50/p95/p99 at 1 client, mockups/s at 4, 8 and 16 clients;
//   3. where the time of one generation goes (client clock, workflow history, API and activity logs);
//   4. upload and analyze latency for the same design; peak memory of the worker and the API per phase;
//   5. POST /generate/batch vs single calls for one design on many colors.
// Prints tables and writes bench/results/latest.json. Bounded loops only; all traffic goes to 127.0.0.1.
//
//   npm run bench                       (BENCH_QUICK=1: fewer requests, for a smoke run)
//   BENCH_BASE_URL=http://127.0.0.1:3000 DATABASE_URL=... TEMPORAL_ADDRESS=... npm run bench
//   BENCH_WORKER_ENV='MALLOC_ARENA_MAX=8'  environment for the worker child (experiments; default as npm start)
// The benchmark process runs with the worker's glibc malloc settings (it re-executes itself once to get them).
//   BENCH_TEMPORAL_DB=memory             the Temporal dev server in memory instead of a SQLite file
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import express from 'express';
import {
  composite,
  configureDesignCache,
  DEFAULT_MAX_PARALLEL,
  fabricMapKeys,
  PreparedBlankCache,
  type DesignSource,
  type ZoneRect,
} from '../lib/compositing';
import { requireApiKey } from '../api/auth/api-keys';
import type { AppDeps } from '../api/context';
import { errorHandler } from '../api/errors';
import { rateLimitsFor } from '../api/middleware/rate-limit';
import { createSql, type Sql } from '../db/client';
import { LocalDiskStorage, type Storage } from '../lib/storage';
import { grantTokens } from '../db/ledger';
import { loadConfig } from '../lib/config';
import { createLogger } from '../lib/log';
import { randomSuffix } from '../lib/ids';
import { generation } from '../workflows';
import { breakdown, type Sample } from './breakdown';
import { makeBenchDesign } from './compositing';
import {
  closedLoop,
  epochMs,
  machineInfo,
  median,
  newScale,
  pngVariant,
  reexecWithImageMalloc,
  round,
  stats,
  type LatencyStats,
} from './lib';
import {
  cpuByGroup,
  externalStack,
  LIFTED_LIMITS,
  machineBusyMs,
  memoryOf,
  resetPeak,
  startBenchStack,
  type BenchStack,
} from './stack';

const ROOT = path.resolve(__dirname, '..');
const QUICK = process.env.BENCH_QUICK === '1';
const RESULTS = path.join(__dirname, 'results', 'latest.json');
const say = (m: string) => process.stderr.write(`[bench] ${m}\n`);
const N = (full: number, quick: number) => (QUICK ? quick : full);

// ------------------------------------------------------------------ memory per phase

type Mem = {
  worker?: { peakMiB: number; endMiB: number };
  api?: { peakMiB: number; endMiB: number };
  /** CPU ms used during the phase per process group, the machine's busy CPU ms (all cores) and the wall time */
  cpu?: Record<string, number>;
  wallMs?: number;
};

class MemoryWatch {
  private timer?: NodeJS.Timeout;
  private max: Record<string, number> = {};
  readonly phases: Record<string, Mem> = {};
  constructor(private readonly pids: BenchStack['pids']) {}

  private sample = () => {
    for (const [name, pid] of Object.entries(this.pids)) {
      const m = pid ? memoryOf(pid) : null;
      if (m) this.max[name] = Math.max(this.max[name] ?? 0, m.rssMiB);
    }
  };

  async phase<T>(name: string, fn: () => Promise<T>): Promise<T> {
    for (const pid of Object.values(this.pids)) if (pid) resetPeak(pid);
    this.max = {};
    this.timer = setInterval(this.sample, 100);
    const cpu0 = cpuByGroup(this.pids);
    const busy0 = machineBusyMs();
    const t0 = performance.now();
    try {
      return await fn();
    } finally {
      clearInterval(this.timer);
      this.sample();
      const mem: Mem = {};
      for (const [n, pid] of Object.entries(this.pids) as ['worker' | 'api', number | undefined][]) {
        const m = pid ? memoryOf(pid) : null;
        // VmHWM is the kernel's exact peak since the reset; the 100 ms samples are a floor if the reset failed.
        if (m) mem[n] = { peakMiB: Math.max(m.hwmMiB, this.max[n] ?? 0), endMiB: m.rssMiB };
      }
      const cpu1 = cpuByGroup(this.pids);
      mem.cpu = Object.fromEntries(Object.keys(cpu1).map((k) => [k, round((cpu1[k] ?? 0) - (cpu0[k] ?? 0))]));
      mem.cpu.machine = round(machineBusyMs() - busy0);
      mem.cpu.outsideBench = round(
        mem.cpu.machine -
          Object.entries(mem.cpu)
            .filter(([k]) => k !== 'machine')
            .reduce((a, [, v]) => a + v, 0),
      );
      mem.wallMs = round(performance.now() - t0);
      this.phases[name] = mem;
    }
  }
}

// ------------------------------------------------------------------ HTTP helpers

interface Ctx {
  base: string;
  key: string;
  designUrl: string;
  garment: any;
  extraGarments: any[];
}

async function json(
  base: string,
  method: string,
  p: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await fetch(base + p, {
    method,
    headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  let parsed: any = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, body: parsed, headers: res.headers };
}

interface GenResult extends Sample {
  ms: number;
  ok: boolean;
  status: number;
  error?: string;
}

let requestSeq = 0;
async function generate(
  ctx: Ctx,
  item: { garmentId: string; garmentImageUrl: string },
  scale: number,
  tag: string,
  designUrl = ctx.designUrl,
): Promise<GenResult> {
  const requestId = `bench-${tag}-${++requestSeq}`;
  const sentAt = epochMs();
  const t0 = performance.now();
  const r = await json(
    ctx.base,
    'POST',
    '/api/v1/generate',
    {
      designUrl,
      garmentId: item.garmentId,
      garmentImageUrl: item.garmentImageUrl,
      placement: { x: 50, y: 35, scale, rotation: 0 },
    },
    { authorization: `Bearer ${ctx.key}`, 'x-request-id': requestId },
  );
  const ms = performance.now() - t0;
  const ok = r.status === 200 && r.body?.status === 'completed';
  return {
    ms,
    ok,
    status: r.status,
    error: ok
      ? undefined
      : `${r.status} ${r.body?.status ?? ''} ${r.body?.error?.message ?? r.body?.error ?? ''}`.trim(),
    generationId: r.body?.id,
    requestId,
    sentAt,
    receivedAt: epochMs(),
  };
}

function checkAll(label: string, rs: GenResult[]): void {
  const bad = rs.filter((r) => !r.ok);
  if (bad.length) say(`${label}: ${bad.length} of ${rs.length} not completed, e.g. ${bad[0]!.error}`);
}

// ------------------------------------------------------------------ the phases

async function setup(stack: BenchStack, sql: Sql): Promise<Ctx & { userId: string }> {
  const base = stack.baseUrl;
  const email = `bench-${randomSuffix(8)}@example.test`;
  const signup = await json(base, 'POST', '/api/auth/signup', { email, password: 'Bench-Horse-42-correct' });
  if (signup.status !== 201) throw new Error(`signup failed: ${signup.status} ${JSON.stringify(signup.body)}`);
  const cookie = signup.headers
    .getSetCookie()
    .find((c) => c.includes('_session='))!
    .split(';')[0]!;
  const k = await json(base, 'POST', '/api/v1/keys', { name: 'benchmark' }, { cookie });
  if (k.status !== 201) throw new Error(`key creation failed: ${k.status} ${JSON.stringify(k.body)}`);
  const userId = signup.body.user.id as string;
  await grantTokens(sql, { userId, source: 'payg_purchase', amount: 100_000, reference: `bench:${userId}` });
  const list = await json(base, 'GET', '/api/v1/garments?category=t-shirts&limit=10', undefined, {
    authorization: `Bearer ${k.body.key}`,
  });
  if (list.status !== 200) throw new Error(`garment listing failed: ${list.status}`);
  const [garment, ...extraGarments] = list.body.garments;
  return { base, key: k.body.key, designUrl: '', garment, extraGarments, userId };
}

async function benchDesign(dir: string): Promise<Buffer> {
  const file = path.join(dir, 'bench-design-2400x3000.png');
  if (existsSync(file)) return readFileSync(file);
  say('generating the 2400x3000 RGBA PNG design (once; kept in the bench data folder)');
  const png = await makeBenchDesign();
  mkdirSync(dir, { recursive: true });
  writeFileSync(file, png);
  return png;
}

/** Upload latency (multipart and JSON) of the design; its URL, or why uploads are not available. */
async function uploads(ctx: Ctx, design: Buffer) {
  const auth = { authorization: `Bearer ${ctx.key}` };
  const multipart: number[] = [];
  const inline: number[] = [];
  let url = '';
  // each upload is new bytes (same pixels): the same bytes again would be answered with the first upload
  for (let i = 0; i < N(5, 2); i++) {
    const form = new FormData();
    form.append(
      'file',
      new Blob([pngVariant(design, `upload ${i} ${randomSuffix(8)}`)], { type: 'image/png' }),
      'design.png',
    );
    const t0 = performance.now();
    const res = await fetch(`${ctx.base}/api/v1/upload`, { method: 'POST', headers: auth, body: form });
    const body: any = await res.json().catch(() => ({}));
    multipart.push(performance.now() - t0);
    if (res.status !== 201)
      return {
        available: false as const,
        reason: `POST /upload answered ${res.status}: ${JSON.stringify(body).slice(0, 200)}`,
      };
    url ||= body.url;
  }
  for (let i = 0; i < N(3, 1); i++) {
    const dataUrl = `data:image/png;base64,${pngVariant(design, `json ${i} ${randomSuffix(8)}`).toString('base64')}`;
    const t0 = performance.now();
    const r = await json(ctx.base, 'POST', '/api/v1/upload', { imageData: dataUrl }, auth);
    inline.push(performance.now() - t0);
    if (r.status !== 201) say(`JSON upload answered ${r.status}`);
  }
  return {
    available: true as const,
    url,
    designBytes: design.length,
    multipart: stats(multipart),
    json: stats(inline),
  };
}

/** Analyze latency for the design by URL and inline; "not available" with the reason when the route refuses. */
async function analyzes(ctx: Ctx, design: Buffer, imageUrl: string) {
  const auth = { authorization: `Bearer ${ctx.key}` };
  const byUrl: number[] = [];
  const byData: number[] = [];
  const dataUrl = `data:image/png;base64,${design.toString('base64')}`;
  for (const [list, body, n] of [
    [byUrl, { imageUrl }, N(5, 2)],
    [byData, { imageData: dataUrl }, N(3, 1)],
  ] as const) {
    for (let i = 0; i < n; i++) {
      const t0 = performance.now();
      const r = await json(ctx.base, 'POST', '/api/v1/analyze', body, auth);
      if (r.status !== 200)
        return {
          available: false as const,
          reason: `POST /analyze answered ${r.status}: ${JSON.stringify(r.body).slice(0, 200)}`,
        };
      list.push(performance.now() - t0);
    }
  }
  return { available: true as const, imageUrl: stats(byUrl), imageData: stats(byData) };
}

/** `n` uploads of the design whose bytes differ and pixels do not (not timed): each is a design the worker has
 * never seen, for the "new design every call" runs. */
async function uploadVariants(ctx: Ctx, design: Buffer, n: number, tag: string): Promise<string[]> {
  const urls: string[] = [];
  await closedLoop(2, n, async (i) => {
    const form = new FormData();
    form.append(
      'file',
      new Blob([pngVariant(design, `bench ${tag} ${i} ${randomSuffix(8)}`)], { type: 'image/png' }),
      `design-${tag}-${i}.png`,
    );
    const res = await fetch(`${ctx.base}/api/v1/upload`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ctx.key}` },
      body: form,
    });
    const body: any = await res.json().catch(() => ({}));
    if (res.status !== 201)
      throw new Error(`variant upload answered ${res.status}: ${JSON.stringify(body).slice(0, 200)}`);
    urls[i] = body.url;
  });
  return urls;
}

/** Compositing alone, in this process: the e2e runs' blank (fetched with its fabric maps), design and placements. */
async function compositingAlone(ctx: Ctx, design: Buffer) {
  const imageUrl: string = ctx.garment.colors[0].imageUrl;
  const blankKey = decodeURIComponent(new URL(imageUrl).pathname.replace(/^\/files\//, ''));
  const maps = fabricMapKeys(blankKey);
  const fetchKey = async (k: string) => {
    const res = await fetch(`${ctx.base}/files/${k}`);
    return res.ok ? Buffer.from(await res.arrayBuffer()) : null;
  };
  const files = new Map<string, Buffer | null>();
  for (const k of [blankKey, maps.shading, maps.displacement]) files.set(k, await fetchKey(k));
  const cache = new PreparedBlankCache({ load: async (k) => files.get(k) ?? null });
  let t0 = performance.now();
  const blank = await cache.get(blankKey);
  const prepareMs = performance.now() - t0;
  const r = ctx.garment.printZones.find((z: any) => z.id === 'front').region;
  const zone: ZoneRect = { x: r.x / 100, y: r.y / 100, width: r.width / 100, height: r.height / 100 };
  // 'new': a design never seen (decoded every time); 'size': the same design at a new size each time (its prepared
  // level is cached, as in the worker); 'same': same design and placement (the placed design is cached)
  type DesignCase = 'new' | 'size' | 'same';
  const source: DesignSource = { id: 'bench-design', load: async () => design };
  const run = (i: number, realism: 'photo' | 'flat', dc: DesignCase) =>
    composite({
      blank,
      design: dc === 'new' ? design : source,
      zone,
      placement: { x: 50, y: 35, scale: dc === 'same' ? 0.8 : newScale(i), rotation: 0 },
      applyTexture: true,
      realism,
      cacheDesign: dc !== 'new',
    });
  for (let i = 0; i < 4; i++) await run(i, 'photo', 'new');
  await run(0, 'photo', 'size');
  const rows: {
    mode: string;
    design: string;
    inFlight: number;
    n: number;
    p50Ms: number;
    p95Ms: number;
    mockupsPerSec: number;
    cpuMsPerMockup: number;
  }[] = [];
  const label: Record<DesignCase, string> = {
    new: 'new design (decoded each time)',
    size: 'same design, new size (level cached)',
    same: 'same design and size (cached)',
  };
  const configs: [string, 'photo' | 'flat', DesignCase, number, number][] = [
    ['realistic', 'photo', 'new', 1, N(24, 8)],
    ['realistic', 'photo', 'new', 2, N(24, 8)],
    ['realistic', 'photo', 'new', 4, N(32, 8)],
    ['realistic', 'photo', 'new', 8, N(32, 8)],
    ['plain paste', 'flat', 'new', 1, N(16, 4)],
    ['plain paste', 'flat', 'new', 2, N(16, 4)],
    ['plain paste', 'flat', 'new', 4, N(24, 8)],
    ['plain paste', 'flat', 'new', 8, N(24, 8)],
    ['realistic', 'photo', 'size', 1, N(24, 8)],
    ['realistic', 'photo', 'size', 4, N(32, 8)],
    ['realistic', 'photo', 'same', 1, N(16, 6)],
  ];
  for (const [mode, realism, dc, inFlight, n] of configs) {
    const c0 = process.cpuUsage();
    const lat: number[] = [];
    const { wallMs } = await closedLoop(inFlight, n, async (i) => {
      const s = performance.now();
      await run(i, realism, dc);
      lat.push(performance.now() - s);
    });
    const cpu = process.cpuUsage(c0);
    const st = stats(lat);
    rows.push({
      mode,
      design: label[dc],
      inFlight,
      n,
      p50Ms: st.p50Ms,
      p95Ms: st.p95Ms,
      mockupsPerSec: round((n / wallMs) * 1000),
      cpuMsPerMockup: round((cpu.user + cpu.system) / 1000 / n),
    });
    say(`compositing ${mode}, ${label[dc]} x${inFlight}: p50 ${st.p50Ms} ms, ${round((n / wallMs) * 1000)}/s`);
  }
  configureDesignCache({ clear: true });
  t0 = performance.now();
  const sample = await run(0, 'photo', 'new');
  return {
    blank: `${blank.width}x${blank.height} ${blankKey}`,
    zone,
    prepareBlankMs: round(prepareMs),
    sampleMs: round(performance.now() - t0),
    mockupKiB: round(sample.mockup.length / 1024),
    maxParallelComposites: DEFAULT_MAX_PARALLEL,
    rows,
  };
}

/** requireApiKey and the rate-limit chain timed on a bare Express app in this process, against the same database. */
async function microAuthLimiter(ctx: Ctx, sql: Sql): Promise<{ noneMs: number; authMs: number; limitedMs: number }> {
  const config = loadConfig({ ...process.env, ...LIFTED_LIMITS, DATA_DIR: path.join(os.tmpdir(), 'bench-micro') });
  const deps = { config, sql, log: createLogger({ level: 'error' }) } as unknown as AppDeps;
  const app = express();
  const ok: express.RequestHandler = (_req, res) => void res.json({ ok: true });
  app.get('/none', ok);
  app.get('/auth', requireApiKey(deps), ok);
  app.get('/limited', requireApiKey(deps), ...rateLimitsFor(deps).chain('generate'), ok);
  app.use(errorHandler);
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const time = async (p: string) => {
    const lat: number[] = [];
    for (let i = 0; i < N(40, 10); i++) {
      const t0 = performance.now();
      const res = await fetch(base + p, { headers: { authorization: `Bearer ${ctx.key}` } });
      await res.text();
      if (res.status !== 200) throw new Error(`${p} answered ${res.status}`);
      lat.push(performance.now() - t0);
    }
    return median(lat.slice(3));
  };
  await time('/limited'); // warm connections and prepared statements
  const r = { noneMs: await time('/none'), authMs: await time('/auth'), limitedMs: await time('/limited') };
  server.closeAllConnections();
  server.close();
  return r;
}

async function microStartRpc(client: Client): Promise<number> {
  const lat: number[] = [];
  for (let i = 0; i < N(10, 4); i++) {
    const id = `bench-start-${randomSuffix(8)}`;
    const t0 = performance.now();
    const h = await client.workflow.start(generation, {
      workflowId: id,
      taskQueue: `bench-no-worker-${randomSuffix(4)}`,
      // never runs: no worker polls this queue; the probe is terminated right after the start
      args: [{ generationId: id, accountId: 'bench', garmentId: 'bench', webhookUrl: null }],
    });
    lat.push(performance.now() - t0);
    await h.terminate('benchmark probe of the start RPC').catch(() => {});
  }
  return median(lat.slice(1));
}

interface BatchRow {
  items: number;
  blanks: string;
  rounds: number;
  via: string;
  mockupsPerSec: number;
  p50RequestMs: number;
  wallMs: number;
  failed: number;
}

async function batchVsSingle(
  ctx: Ctx,
  items: { garmentId: string; garmentImageUrl: string; label: string }[],
  rounds: number,
  scaleBase: number,
  warm: boolean,
): Promise<BatchRow[]> {
  const rows: BatchRow[] = [];
  const auth = { authorization: `Bearer ${ctx.key}` };
  if (warm) {
    // not measured: prepares every blank of the set in the worker, so neither way pays for it below
    const res = await json(
      ctx.base,
      'POST',
      '/api/v1/generate/batch',
      {
        designUrl: ctx.designUrl,
        placement: { scale: 0.5 },
        items: items.map(({ garmentId, garmentImageUrl }) => ({ garmentId, garmentImageUrl })),
      },
      auth,
    );
    if (res.status !== 200) say(`warm-up batch answered ${res.status}`);
  }
  // batch: one request per round; each round uses a placement not seen before, so the design is decoded once per round
  {
    const lat: number[] = [];
    let failed = 0;
    const t0 = performance.now();
    for (let r = 0; r < rounds; r++) {
      const s = performance.now();
      const res = await json(
        ctx.base,
        'POST',
        '/api/v1/generate/batch',
        {
          designUrl: ctx.designUrl,
          placement: { x: 50, y: 35, scale: round(scaleBase + r * 0.003, 4) },
          items: items.map(({ garmentId, garmentImageUrl }) => ({ garmentId, garmentImageUrl })),
        },
        auth,
      );
      lat.push(performance.now() - s);
      if (res.status !== 200) {
        say(`batch answered ${res.status}: ${JSON.stringify(res.body).slice(0, 300)}`);
        failed += items.length;
        continue;
      }
      failed += res.body.generations.filter((g: any) => g.status !== 'completed').length;
    }
    const wallMs = performance.now() - t0;
    rows.push({
      items: items.length,
      blanks: warm ? 'prepared' : 'cold',
      rounds,
      via: 'POST /generate/batch (1 request per round)',
      mockupsPerSec: round(((items.length * rounds - failed) / wallMs) * 1000, 2),
      p50RequestMs: round(median(lat)),
      wallMs: round(wallMs),
      failed,
    });
  }
  // the same items as single calls, 8 clients, a fresh placement per round (the design cache helps these too)
  {
    const rs: GenResult[] = [];
    const t0 = performance.now();
    for (let r = 0; r < rounds; r++) {
      const { results } = await closedLoop(8, items.length, (i) =>
        generate(ctx, items[i]!, round(scaleBase + 0.0015 + r * 0.003, 4), 'single-colors'),
      );
      rs.push(...results);
    }
    const wallMs = performance.now() - t0;
    checkAll('single calls (colors)', rs);
    rows.push({
      items: items.length,
      blanks: warm ? 'prepared' : 'cold',
      rounds,
      via: 'POST /generate x items, 8 clients',
      mockupsPerSec: round((rs.filter((r) => r.ok).length / wallMs) * 1000, 2),
      p50RequestMs: round(median(rs.map((r) => r.ms))),
      wallMs: round(wallMs),
      failed: rs.filter((r) => !r.ok).length,
    });
  }
  return rows;
}

// ------------------------------------------------------------------ main

async function main(): Promise<void> {
  const t00 = Date.now();
  const dataDir = process.env.BENCH_DATA_DIR ?? path.join(ROOT, '.data', 'bench');
  const workerEnv = Object.fromEntries(
    (process.env.BENCH_WORKER_ENV ?? '')
      .split(/\s+/)
      .filter(Boolean)
      .map((kv) => [kv.split('=')[0]!, kv.slice(kv.indexOf('=') + 1)]),
  );
  const temporalInMemory = process.env.BENCH_TEMPORAL_DB === 'memory';
  const stack = process.env.BENCH_BASE_URL
    ? externalStack(say)
    : await startBenchStack({ dataDir, say, workerEnv, temporalInMemory });
  const stopOnSignal = () => void stack.stop().finally(() => process.exit(130));
  process.once('SIGINT', stopOnSignal);
  process.once('SIGTERM', stopOnSignal);
  const sql = createSql(stack.databaseUrl, { max: 4 });
  const connection = await Connection.connect({ address: stack.temporalAddress });
  const client = new Client({ connection, namespace: stack.namespace });
  const mem = new MemoryWatch(stack.pids);
  try {
    const startupMem = {
      worker: stack.pids.worker ? memoryOf(stack.pids.worker) : null,
      api: stack.pids.api ? memoryOf(stack.pids.api) : null,
    };
    const ctx = await setup(stack, sql);
    const design = await benchDesign(stack.dataDir || path.join(os.tmpdir(), 'mockup-bench'));

    say('upload and analyze');
    const ua = await mem.phase('upload + analyze', async () => {
      const up = await uploads(ctx, design);
      if (up.available) ctx.designUrl = up.url;
      else if (stack.owned) {
        // Without uploads the design goes straight into the stack's storage; generation reads own files the same way.
        say(`uploads not available (${up.reason}); the design is put into the stack's storage directly`);
        const key = `bench/design-${randomSuffix(6)}.png`;
        const storage: Storage = new LocalDiskStorage(path.join(stack.dataDir, 'files'));
        await storage.put(key, design, 'image/png');
        ctx.designUrl = `${ctx.base}/files/${key}`;
      } else throw new Error(`POST /upload is not available on ${ctx.base} (${up.reason})`);
      return { upload: up, analyze: await analyzes(ctx, design, ctx.designUrl) };
    });

    say('compositing alone (in this process, stack idle)');
    const comp = await mem.phase('compositing alone (in the bench process)', () => compositingAlone(ctx, design));

    const item0 = { garmentId: ctx.garment.id, garmentImageUrl: ctx.garment.colors[0].imageUrl };
    say('uploading designs for the "new design every call" runs (not timed)');
    const fresh1 = await uploadVariants(ctx, design, N(30, 6), 'c1');
    const fresh8 = await uploadVariants(ctx, design, N(48, 16), 'c8');
    say('warming up the generation path');
    await mem.phase('warm-up', async () => {
      for (let i = 0; i < N(6, 3); i++) checkAll('warm-up', [await generate(ctx, item0, newScale(1000 + i), 'warmup')]);
    });

    say(`POST /generate, 1 client, a new design every call: ${fresh1.length} requests`);
    const oneNew = await mem.phase('e2e 1 client, new design', () =>
      closedLoop(1, fresh1.length, (i) => generate(ctx, item0, 0.8, 'c1new', fresh1[i])),
    );
    checkAll('1 client, new design', oneNew.results);
    say(`POST /generate, 1 client, the uploaded design at a new size every call: ${N(60, 12)} requests`);
    const one = await mem.phase('e2e 1 client', () =>
      closedLoop(1, N(60, 12), (i) => generate(ctx, item0, newScale(i), 'c1')),
    );
    checkAll('1 client', one.results);
    say(`POST /generate, 1 client, same design and placement: ${N(20, 6)} requests`);
    const oneWarm = await mem.phase('e2e 1 client, same placement', () =>
      closedLoop(1, N(20, 6), () => generate(ctx, item0, 0.8, 'c1warm')),
    );
    checkAll('1 client same placement', oneWarm.results);

    const loads: {
      clients: number;
      design: string;
      n: number;
      stats: LatencyStats;
      mockupsPerSec: number;
      failed: number;
    }[] = [];
    let seq = 100;
    for (const clients of [4, 8, 16]) {
      const n = N(clients === 16 ? 96 : clients === 8 ? 64 : 48, 16);
      say(`POST /generate, ${clients} clients, ${n} requests`);
      const r = await mem.phase(`e2e ${clients} clients`, () =>
        closedLoop(clients, n, (i) => generate(ctx, item0, newScale(seq + i), `c${clients}`)),
      );
      seq += n;
      checkAll(`${clients} clients`, r.results);
      const ok = r.results.filter((x) => x.ok);
      loads.push({
        clients,
        design: 'uploaded design, new size each call',
        n,
        stats: stats(ok.map((x) => x.ms)),
        mockupsPerSec: round((ok.length / r.wallMs) * 1000, 2),
        failed: n - ok.length,
      });
    }
    {
      say(`POST /generate, 8 clients, a new design every call: ${fresh8.length} requests`);
      const r = await mem.phase('e2e 8 clients, new design', () =>
        closedLoop(8, fresh8.length, (i) => generate(ctx, item0, 0.8, 'c8new', fresh8[i])),
      );
      checkAll('8 clients, new design', r.results);
      const ok = r.results.filter((x) => x.ok);
      loads.push({
        clients: 8,
        design: 'new design every call',
        n: fresh8.length,
        stats: stats(ok.map((x) => x.ms)),
        mockupsPerSec: round((ok.length / r.wallMs) * 1000, 2),
        failed: fresh8.length - ok.length,
      });
    }

    say('batch vs single calls');
    const colors = ctx.garment.colors.filter((c: any) => c.available);
    const sevenColors = colors.map((c: any) => ({
      garmentId: ctx.garment.id,
      garmentImageUrl: c.imageUrl,
      label: `${ctx.garment.id} ${c.name}`,
    }));
    const many: { garmentId: string; garmentImageUrl: string; label: string }[] = [];
    for (const g of [ctx.garment, ...ctx.extraGarments]) {
      for (const c of g.colors.filter((cc: any) => cc.available))
        if (many.length < 25) many.push({ garmentId: g.id, garmentImageUrl: c.imageUrl, label: `${g.id} ${c.name}` });
    }
    const batchRows = await mem.phase('batch vs single', async () => [
      ...(await batchVsSingle(ctx, sevenColors, N(3, 1), 0.6, true)),
      // more blanks than the worker's prepared-blank cache holds (~11): both ways prepare blanks again
      ...(await batchVsSingle(ctx, many, N(2, 1), 0.63, false)),
    ]);

    say('micro-measurements: auth, rate limiter, workflow start RPC');
    const micro = await microAuthLimiter(ctx, sql);
    const startRpcMs = await microStartRpc(client);

    say('reading workflow histories and logs for the time breakdown');
    await new Promise((r) => setTimeout(r, 300)); // let the last log lines arrive
    const apiDurations = new Map<string, number>();
    for (const l of stack.apiLog?.kept ?? [])
      if (l.msg === 'request' && typeof l.requestId === 'string') apiDurations.set(l.requestId, Number(l.durationMs));
    const renderMs = new Map<string, Record<string, number>>();
    // the log line's own time is when the render step ended (ms resolution; the local activity markers' complete_time
    // is not: it reads ~15 ms early)
    for (const l of stack.workerLog?.kept ?? [])
      if (l.msg === 'mockup rendered')
        renderMs.set(String(l.generationId), {
          ...(l.ms as Record<string, number>),
          endAt: Date.parse(String(l.time)),
        });
    const microMs = { authMs: micro.authMs - micro.noneMs, limiterMs: micro.limitedMs - micro.authMs, startRpcMs };
    const okOf = (rs: GenResult[]) => rs.filter((r) => r.ok);
    const bdNew = await breakdown(client, okOf(oneNew.results), apiDurations, renderMs, microMs);
    const bd = await breakdown(client, okOf(one.results), apiDurations, renderMs, microMs);
    const bdWarm = await breakdown(client, okOf(oneWarm.results), apiDurations, renderMs, microMs);

    const e2e1New = stats(okOf(oneNew.results).map((r) => r.ms));
    const e2e1 = stats(okOf(one.results).map((r) => r.ms));
    const e2e1Warm = stats(okOf(oneWarm.results).map((r) => r.ms));
    const compRow = (design: string) =>
      comp.rows.find((r) => r.mode === 'realistic' && r.inFlight === 1 && r.design.startsWith(design))!;
    const compNew = compRow('new design');
    const compSize = compRow('same design, new size');
    const compSame = compRow('same design and size');
    const compMax = Math.max(
      ...comp.rows
        .filter((r) => r.design.startsWith('new design') && r.mode === 'realistic')
        .map((r) => r.mockupsPerSec),
    );
    const at8 = loads.find((l) => l.clients === 8 && l.design !== 'new design every call')!;
    const at8New = loads.find((l) => l.clients === 8 && l.design === 'new design every call')!;
    const workerPeak16 = mem.phases['e2e 16 clients']?.worker?.peakMiB ?? NaN;
    const workerPeakAll = Math.max(...Object.values(mem.phases).map((p) => p.worker?.peakMiB ?? 0));
    const apiPeakAll = Math.max(...Object.values(mem.phases).map((p) => p.api?.peakMiB ?? 0));
    const ratios = {
      newDesign: round(e2e1New.p50Ms / compNew.p50Ms, 2),
      newSize: round(e2e1.p50Ms / compSize.p50Ms, 2),
      samePlacement: round(e2e1Warm.p50Ms / compSame.p50Ms, 2),
    };
    const targets = [
      {
        target: 'compositing p50 <= 150 ms (1 mockup, new design)',
        value: `${compNew.p50Ms} ms`,
        met: compNew.p50Ms <= 150,
      },
      {
        target: 'compositing >= 10 mockups/s with several in flight (new design each)',
        value: `${compMax}/s`,
        met: compMax >= 10,
      },
      {
        target: 'e2e p50 <= 250 ms at 1 client (uploaded design, new size each call)',
        value: `${e2e1.p50Ms} ms`,
        met: e2e1.p50Ms <= 250,
      },
      {
        target: 'e2e p50 <= 250 ms at 1 client (new design every call)',
        value: `${e2e1New.p50Ms} ms`,
        met: e2e1New.p50Ms <= 250,
      },
      {
        target: '>= 8 mockups/s at 8 clients (uploaded design, new size each call)',
        value: `${at8.mockupsPerSec}/s`,
        met: at8.mockupsPerSec >= 8,
      },
      {
        target: '>= 8 mockups/s at 8 clients (new design every call)',
        value: `${at8New.mockupsPerSec}/s`,
        met: at8New.mockupsPerSec >= 8,
      },
      {
        target: 'e2e p50 <= 1.5 x compositing p50 (new design, both)',
        value: `${ratios.newDesign} x`,
        met: ratios.newDesign <= 1.5,
      },
      {
        target: 'e2e p50 <= 1.5 x compositing p50 (same design, new size, both)',
        value: `${ratios.newSize} x`,
        met: ratios.newSize <= 1.5,
      },
      { target: 'worker peak < 600 MB at 16 clients', value: `${workerPeak16} MiB`, met: workerPeak16 < 600 },
    ];

    // CPU per mockup by process: what each part of the stack costs, and how busy the machine was with other work
    const phaseMockups: Record<string, number> = {
      'e2e 1 client, new design': oneNew.results.length,
      'e2e 1 client': one.results.length,
      'e2e 1 client, same placement': oneWarm.results.length,
      ...Object.fromEntries(
        loads.map((l) => [
          `e2e ${l.clients} clients${l.design === 'new design every call' ? ', new design' : ''}`,
          l.n,
        ]),
      ),
      'batch vs single': batchRows.reduce((a, b) => a + b.items * b.rounds, 0),
      'compositing alone (in the bench process)': comp.rows.reduce((a, b) => a + b.n, 0),
    };
    const cpuPerMockup = Object.entries(phaseMockups).map(([phase, n]) => {
      const c = mem.phases[phase]?.cpu ?? {};
      const wall = mem.phases[phase]?.wallMs ?? NaN;
      const per = (k: string) => round((c[k] ?? NaN) / n);
      return {
        phase,
        mockups: n,
        wallS: round(wall / 1000),
        workerMs: per('worker'),
        apiMs: per('api'),
        temporalMs: per('temporal'),
        postgresMs: per('postgres'),
        benchMs: per('bench'),
        stackMs: round(((c.worker ?? 0) + (c.api ?? 0) + (c.temporal ?? 0) + (c.postgres ?? 0)) / n),
        /** average cores busy with work outside this benchmark (other users of the machine) */
        otherCores: round((c.outsideBench ?? NaN) / wall, 2),
      };
    });

    const result = {
      benchmark: 'end-to-end',
      date: new Date().toISOString(),
      quick: QUICK,
      durationS: round((Date.now() - t00) / 1000),
      machine: {
        ...machineInfo(),
        loadAvgAtEnd: os.loadavg().map((n) => round(n, 2)),
        stack: stack.owned
          ? 'started by the benchmark (embedded PostgreSQL 18, Temporal dev server with SQLite file, worker + API child processes)'
          : `external: ${stack.baseUrl}`,
        workerEnv,
        temporalState: stack.owned
          ? temporalInMemory
            ? 'in memory (BENCH_TEMPORAL_DB=memory)'
            : 'SQLite file (WAL), as npm start'
          : 'external',
        malloc: {
          MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX ?? null,
          GLIBC_TUNABLES: process.env.GLIBC_TUNABLES ?? null,
        },
      },
      input: {
        design: `2400x3000 RGBA PNG, ${round(design.length / 2 ** 20, 2)} MiB, uploaded`,
        garment: `${ctx.garment.id} ${ctx.garment.colors[0].name}, front`,
        placement:
          'x 50, y 35, rotation 0; "new design": a fresh upload of the design (same pixels, new bytes) every call, scale 0.8; "new size": the one uploaded design, scale cycling 0.700-0.826 (64 sizes); "same placement": the uploaded design at scale 0.8',
      },
      compositing: comp,
      e2e: {
        oneClientNewDesign: e2e1New,
        oneClient: e2e1,
        oneClientSamePlacement: e2e1Warm,
        ratios,
        loads,
      },
      breakdowns: {
        newDesign: { ...bdNew, perSample: undefined },
        newSize: { ...bd, perSample: undefined },
        samePlacement: { ...bdWarm, perSample: undefined },
        micro: { ...micro, startRpcMs: round(startRpcMs) },
      },
      perSample: { newDesign: bdNew.perSample, newSize: bd.perSample },
      uploadAnalyze: ua,
      batch: batchRows,
      cpuPerMockup,
      memory: { atStartup: startupMem, phases: mem.phases, workerPeakMiB: workerPeakAll, apiPeakMiB: apiPeakAll },
      targets,
      logs: stack.owned ? path.relative(ROOT, path.join(stack.dataDir, 'logs')) : null,
    };
    mkdirSync(path.dirname(RESULTS), { recursive: true });
    writeFileSync(RESULTS, JSON.stringify(result, null, 2) + '\n');
    print(result);
  } finally {
    await connection.close().catch(() => {});
    await sql.end({ timeout: 5 }).catch(() => {});
    say(stack.owned ? 'stopping the stack' : 'done');
    await stack.stop();
  }
}

function print(r: any): void {
  const p = (s = '') => process.stdout.write(s + '\n');
  const m = r.machine;
  p(
    `\n## Benchmark (${r.date.slice(0, 10)}${r.quick ? ', QUICK' : ''}): ${m.cpu}, ${m.cores} cores, ${m.memoryGiB} GiB, node ${m.node}, sharp ${m.sharp} / libvips ${m.libvips}`,
  );
  p(`design ${r.input.design}; ${r.input.garment}; ${r.input.placement}`);
  p(`load average at the end: ${m.loadAvgAtEnd.join(' ')}; run took ${r.durationS} s`);
  p('\n### 1. Compositing alone (in process, same blank/design/placements)\n');
  p('| mode | design | in flight | p50 ms | p95 ms | mockups/s | CPU ms/mockup |');
  p('|---|---|---:|---:|---:|---:|---:|');
  for (const x of r.compositing.rows)
    p(
      `| ${x.mode} | ${x.design} | ${x.inFlight} | ${x.p50Ms} | ${x.p95Ms} | ${x.mockupsPerSec} | ${x.cpuMsPerMockup} |`,
    );
  p('\n### 2. POST /generate end to end (synchronous)\n');
  p('| clients | design | requests | p50 ms | p95 ms | p99 ms | mockups/s | failed |');
  p('|---:|---|---:|---:|---:|---:|---:|---:|');
  const e = r.e2e;
  for (const [label, o] of [
    ['new design every call', e.oneClientNewDesign],
    ['uploaded design, new size each call', e.oneClient],
    ['same design and placement', e.oneClientSamePlacement],
  ] as [string, any][]) {
    p(`| 1 | ${label} | ${o.n} | ${o.p50Ms} | ${o.p95Ms} | ${o.p99Ms} | ${round(1000 / o.meanMs, 2)} | 0 |`);
  }
  for (const l of e.loads)
    p(
      `| ${l.clients} | ${l.design} | ${l.n} | ${l.stats.p50Ms} | ${l.stats.p95Ms} | ${l.stats.p99Ms} | ${l.mockupsPerSec} | ${l.failed} |`,
    );
  p(
    `\ne2e p50 / compositing p50, like for like: new design ${e.ratios.newDesign}; same design, new size ${e.ratios.newSize}; same placement ${e.ratios.samePlacement}`,
  );
  p('\n### 3. Where the time goes (one generation, 1 client, medians)\n');
  p('| part | new design | new size | same placement | measured how |');
  p('|---|---:|---:|---:|---|');
  const b = r.breakdowns;
  const col = (x: any) => new Map(x.rows.map((row: any) => [row.part, row.p50Ms]));
  const [cs, cw] = [col(b.newSize), col(b.samePlacement)];
  for (const x of b.newDesign.rows)
    p(`| ${x.part} | ${x.p50Ms} | ${cs.get(x.part) ?? ''} | ${cw.get(x.part) ?? ''} | ${x.how} |`);
  p(
    `| **total (client)** | **${b.newDesign.totalP50Ms}** | **${b.newSize.totalP50Ms}** | **${b.samePlacement.totalP50Ms}** | ${b.newDesign.samples}/${b.newSize.samples}/${b.samePlacement.samples} samples |`,
  );
  p('\n### 4. Upload, analyze, memory\n');
  const { upload: up, analyze: an } = r.uploadAnalyze;
  p('| call | n | p50 ms | max ms |');
  p('|---|---:|---:|---:|');
  if (up.available) {
    p(
      `| POST /upload multipart (${round(up.designBytes / 2 ** 20, 2)} MiB PNG) | ${up.multipart.n} | ${up.multipart.p50Ms} | ${up.multipart.maxMs} |`,
    );
    p(`| POST /upload JSON imageData | ${up.json.n} | ${up.json.p50Ms} | ${up.json.maxMs} |`);
  } else p(`| POST /upload | not available: ${up.reason.replace(/\|/g, '/')} | | |`);
  if (an.available) {
    p(`| POST /analyze imageUrl | ${an.imageUrl.n} | ${an.imageUrl.p50Ms} | ${an.imageUrl.maxMs} |`);
    p(`| POST /analyze imageData | ${an.imageData.n} | ${an.imageData.p50Ms} | ${an.imageData.maxMs} |`);
  } else p(`| POST /analyze | not available: ${an.reason.replace(/\|/g, '/')} | | |`);
  p('\n| phase | worker peak MiB | API peak MiB |');
  p('|---|---:|---:|');
  for (const [name, x] of Object.entries(r.memory.phases) as [string, any][])
    p(`| ${name} | ${x.worker?.peakMiB ?? 'n/a'} | ${x.api?.peakMiB ?? 'n/a'} |`);
  p(
    '\n| phase | mockups | wall s | CPU ms per mockup: worker | API | Temporal server | PostgreSQL | stack total | bench client | other load on the machine (cores) |',
  );
  p('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const c of r.cpuPerMockup)
    p(
      `| ${c.phase} | ${c.mockups} | ${c.wallS} | ${c.workerMs} | ${c.apiMs} | ${c.temporalMs} | ${c.postgresMs} | ${c.stackMs} | ${c.benchMs} | ${c.otherCores} |`,
    );
  p('\n### 5. Batch vs single calls (one design on many colors)\n');
  p('| items (distinct blanks) | blanks in the worker | rounds | via | mockups/s | p50 per request ms | failed |');
  p('|---:|---|---:|---|---:|---:|---:|');
  for (const b of r.batch)
    p(`| ${b.items} | ${b.blanks} | ${b.rounds} | ${b.via} | ${b.mockupsPerSec} | ${b.p50RequestMs} | ${b.failed} |`);
  p('\n### Targets (issue 6)\n');
  p('| target | measured | met |');
  p('|---|---:|:---:|');
  for (const t of r.targets) p(`| ${t.target} | ${t.value} | ${t.met ? 'yes' : 'NO'} |`);
  p(`\nwritten to ${path.relative(process.cwd(), RESULTS)}${r.logs ? `; logs in ${r.logs}` : ''}`);
}

reexecWithImageMalloc();
main().then(
  () => process.exit(0),
  (err) => {
    say(`failed: ${err?.stack ?? err}`);
    process.exit(1);
  },
);
