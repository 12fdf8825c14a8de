// `npm run bench`: the end-to-end benchmark of issues 6 and 23. Starts the stack like `npm start` does (own data
// folder .data/bench, free ports, worker and API as child processes; the API with every rate limit on as npm start
// serves, plus a second API on the same stack with the limits lifted) or uses a running one (BENCH_BASE_URL), makes
// 10 accounts with 3 keys each (the keys take turns, so no budget binds), uploads a generated 2400x3000 RGBA design,
// warms up, then measures:
//   1. compositing alone, in this process, on the same blank, design and placements as the HTTP runs;
//   2. POST /generate end to end (synchronous): p50/p95/p99 at 1 client, mockups/s at 4, 8 and 16 clients; once
//      with the limits on, once with them lifted, and the difference;
//   3. where the time of one generation goes (client clock, workflow history, API and activity logs);
//   4. upload and analyze latency for the same design; peak memory of the worker and the API per phase;
//   5. POST /generate/batch vs single calls for one design on many colors.
// Prints tables and writes bench/results/latest.json. Bounded loops only; all traffic goes to 127.0.0.1.
//
//   npm run bench                       (BENCH_QUICK=1: fewer requests, for a smoke run)
//   BENCH_BASE_URL=http://127.0.0.1:3000 DATABASE_URL=... TEMPORAL_ADDRESS=... npm run bench
//   BENCH_WORKER_ENV='MALLOC_ARENA_MAX=8'  environment for the worker child (experiments; default as npm start)
//   BENCH_NODE_FLAGS='--trace-gc'        node flags for the worker and API children (experiments; NODE_OPTIONS refuses
//                                        some, such as --trace-gc)
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
import { admit } from '../api/middleware/rate-limit/admit';
import { StoreGuard } from '../api/middleware/rate-limit/store-guard';
import { getGarment } from '../db/garments';
import { failAndRefund } from '../db/generations';
import { insertAndChargeGenerations } from '../db/generation-inserts';
import { claimIdempotencyKey } from '../db/idempotency';
import { uploadsByKeys } from '../db/upload-library';
import { ownFileKey } from '../lib/fetch/own-files';
import { createSql, type Sql } from '../db/client';
import { LocalDiskStorage, type Storage } from '../lib/storage';
import { grantTokens } from '../db/ledger';
import { loadConfig } from '../lib/config';
import { createLogger } from '../lib/log';
import { randomSuffix, timeId } from '../lib/ids';
import { generation } from '../workflows';
import { breakdown, type Sample } from './breakdown';
import { makeBenchDesign } from './compositing';
import {
  closedLoop,
  epochMs,
  json,
  keptAnalyses,
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
  /** the processes whose memory is watched: the worker and the API the current phase talks to */
  active: { worker?: number; api?: number };
  constructor(private readonly pids: BenchStack['pids']) {
    this.active = { worker: pids.worker, api: pids.api };
  }

  private sample = () => {
    for (const [name, pid] of Object.entries(this.active)) {
      const m = pid ? memoryOf(pid) : null;
      if (m) this.max[name] = Math.max(this.max[name] ?? 0, m.rssMiB);
    }
  };

  async phase<T>(name: string, fn: () => Promise<T>): Promise<T> {
    for (const pid of Object.values(this.active)) if (pid) resetPeak(pid);
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
      for (const [n, pid] of Object.entries(this.active) as ['worker' | 'api', number | undefined][]) {
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
  /** keys that take turns on generate calls (several accounts, so no key's or account's budget binds) */
  keys: string[];
  designUrl: string;
  garment: any;
  extraGarments: any[];
}

interface GenResult extends Sample {
  ms: number;
  ok: boolean;
  status: number;
  error?: string;
}

/** The keys take turns (account by account); a running stack given from outside has one key. */
const keyAt = (ctx: Ctx, n: number): string => (ctx.keys.length ? ctx.keys[n % ctx.keys.length]! : ctx.key);

let requestSeq = 0;
async function generate(
  ctx: Ctx,
  item: { garmentId: string; garmentImageUrl: string },
  scale: number,
  tag: string,
  designUrl = ctx.designUrl,
): Promise<GenResult> {
  const requestId = `bench-${tag}-${++requestSeq}`;
  const key = keyAt(ctx, requestSeq);
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
    { authorization: `Bearer ${key}`, 'x-request-id': requestId },
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

/** Accounts and keys per account taking turns on the generate calls: ~380 generations per pass stay well under
 * every key's (30 a minute) and account's (90 a minute) generate budget, and every other window. */
const ACCOUNTS = 10;
const KEYS_PER_ACCOUNT = 3;

async function account(base: string, sql: Sql, keys: number): Promise<{ userId: string; keys: string[] }> {
  const email = `bench-${randomSuffix(8)}@example.test`;
  const signup = await json(base, 'POST', '/api/auth/signup', { email, password: 'Bench-Horse-42-correct' });
  if (signup.status !== 201) throw new Error(`signup failed: ${signup.status} ${JSON.stringify(signup.body)}`);
  const cookie = signup.headers
    .getSetCookie()
    .find((c) => c.includes('_session='))!
    .split(';')[0]!;
  const userId = signup.body.user.id as string;
  const out: string[] = [];
  for (let i = 0; i < keys; i++) {
    const k = await json(base, 'POST', '/api/v1/keys', { name: `benchmark ${i + 1}` }, { cookie });
    if (k.status !== 201) throw new Error(`key creation failed: ${k.status} ${JSON.stringify(k.body)}`);
    out.push(k.body.key);
  }
  await grantTokens(sql, { userId, source: 'payg_purchase', amount: 100_000, reference: `bench:${userId}` });
  return { userId, keys: out };
}

/** The accounts and keys (on `base`, the API with limits lifted when there are two), the garment to use. */
async function setup(base: string, sql: Sql): Promise<Ctx & { userId: string }> {
  const first = await account(base, sql, KEYS_PER_ACCOUNT);
  const others = await Promise.all(Array.from({ length: ACCOUNTS - 1 }, () => account(base, sql, KEYS_PER_ACCOUNT)));
  // turns go account by account (a, b, c, ..., a, b, ...), each account's keys in turn
  const keys: string[] = [];
  const all = [first, ...others];
  for (let k = 0; k < KEYS_PER_ACCOUNT; k++) for (const a of all) keys.push(a.keys[k]!);
  const list = await json(base, 'GET', '/api/v1/garments?category=t-shirts&limit=10', undefined, {
    authorization: `Bearer ${first.keys[0]}`,
  });
  if (list.status !== 200) throw new Error(`garment listing failed: ${list.status}`);
  const [garment, ...extraGarments] = list.body.garments;
  return { base, key: first.keys[0]!, keys, designUrl: '', garment, extraGarments, userId: first.userId };
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
  const ids: string[] = [];
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
    ids.push(body.id);
  }
  for (let i = 0; i < N(3, 1); i++) {
    const dataUrl = `data:image/png;base64,${pngVariant(design, `json ${i} ${randomSuffix(8)}`).toString('base64')}`;
    const t0 = performance.now();
    const r = await json(ctx.base, 'POST', '/api/v1/upload', { imageData: dataUrl }, auth);
    inline.push(performance.now() - t0);
    if (r.status !== 201) say(`JSON upload answered ${r.status}`);
    else ids.push((r.body as { id: string }).id);
  }
  return {
    available: true as const,
    url,
    ids,
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
  const ids: string[] = [];
  await closedLoop(2, n, async (i) => {
    const form = new FormData();
    form.append(
      'file',
      new Blob([pngVariant(design, `bench ${tag} ${i} ${randomSuffix(8)}`)], { type: 'image/png' }),
      `design-${tag}-${i}.png`,
    );
    const res = await fetch(`${ctx.base}/api/v1/upload`, {
      method: 'POST',
      // the keys take turns here too: the API with the limits lifted still counts each key's windows in the shared
      // table, so ~160 uploads on one key would use up its minute for the API with the limits on
      headers: { authorization: `Bearer ${keyAt(ctx, i)}` },
      body: form,
    });
    const body: any = await res.json().catch(() => ({}));
    if (res.status !== 201)
      throw new Error(`variant upload answered ${res.status}: ${JSON.stringify(body).slice(0, 200)}`);
    urls[i] = body.url;
    ids[i] = body.id;
  });
  await keptAnalyses(ctx.base, ids, (i) => keyAt(ctx, i));
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

/** Medians (ms) of the parts of the API's path before the workflow start, each timed alone in this process against
 * the stack's database: what the limits-on breakdown reports. */
export interface MicroParts {
  noneMs: number;
  authMs: number;
  limitedMs: number;
  /** a round trip through the admission statement with nothing in it, then with the slots, then each window added */
  admit: { part: string; ms: number }[];
  idempotencyClaimMs: number;
  garmentMs: number;
  /** the design check of an uploaded design before the charge (issue 35): its upload row (deleted? inks) */
  designCheckMs: number;
  insertChargeMs: number;
}

/**
 * requireApiKey and the rate-limit chain (the statements npm start's limits run) timed on a bare Express app in this
 * process, against the same database; the admission statement with the slots and windows added one at a time; and
 * the API's other steps before the start (Idempotency-Key claim, garment lookup, the uploaded design's check, row
 * insert + debit) called alone.
 */
async function microApiParts(ctx: Ctx, sql: Sql, garmentId: string, userId: string): Promise<MicroParts> {
  // The same statements whatever the limits' numbers: lifted here, so the probes never run into a budget.
  const config = loadConfig({ ...process.env, ...LIFTED_LIMITS, DATA_DIR: path.join(os.tmpdir(), 'bench-micro') });
  const deps = { config, sql, log: createLogger({ level: 'error' }) } as unknown as AppDeps;
  const app = express();
  const ok: express.RequestHandler = (_req, res) => void res.json({ ok: true });
  app.get('/none', ok);
  app.get('/auth', requireApiKey(deps), ok);
  app.get('/limited', requireApiKey(deps), ...rateLimitsFor(deps).chain('generate'), ok);
  // the admission statement alone: its slots, then its windows one by one, in the chain's order and sizes
  const guard = new StoreGuard({ timeoutMs: 5000, mode: 'local', log: deps.log });
  const rl = config.rateLimit;
  const who = `bench-micro-${randomSuffix(6)}`;
  const slotSpecs = [
    { key: `concurrency:${who}`, limit: 1_000_000 },
    { key: `account-concurrency:${who}`, limit: 1_000_000 },
  ];
  const windowSpecs = [
    ['generate-minute (key)', 60_000],
    ['minute (key)', 60_000],
    ['generate-minute (account)', 60_000],
    ['minute (account)', 60_000],
    ['hour (key)', 3_600_000],
    ['hour (account)', 3_600_000],
  ].map(([name, windowMs]) => ({ name: String(name), key: `${name}:${who}`, windowMs: Number(windowMs), limit: 1e9 }));
  const admitSteps: { part: string; path: string }[] = [];
  for (let w = 0; w <= windowSpecs.length; w++) {
    const p = `/admit/${w}`;
    const ws = windowSpecs.slice(0, w);
    app.get(
      p,
      admit({
        sql,
        guard,
        windows: () => ws,
        slots: { keys: () => slotSpecs, leaseMs: rl.leaseMs, giveBack: () => {} },
      }),
      ok,
    );
    admitSteps.push({
      part: w === 0 ? '2 concurrency slots (key, account)' : `+ window ${windowSpecs[w - 1]!.name}`,
      path: p,
    });
  }
  app.use(errorHandler);
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const n = N(40, 10);
  const time = async (p: string) => {
    const lat: number[] = [];
    for (let i = 0; i < n; i++) {
      const t0 = performance.now();
      const res = await fetch(base + p, { headers: { authorization: `Bearer ${ctx.key}` } });
      await res.text();
      if (res.status !== 200) throw new Error(`${p} answered ${res.status}`);
      lat.push(performance.now() - t0);
    }
    return median(lat.slice(3));
  };
  const timeCall = async (fn: (i: number) => Promise<unknown>) => {
    const lat: number[] = [];
    for (let i = 0; i < n; i++) {
      const t0 = performance.now();
      await fn(i);
      lat.push(performance.now() - t0);
    }
    return median(lat.slice(3));
  };
  try {
    await time('/none');
    const noneMs = await time('/none');
    const authMs = await time('/auth');
    const limitedMs = await time('/limited');
    const admitMs: { part: string; ms: number }[] = [];
    let prev = noneMs;
    for (const st of admitSteps) {
      const ms = await time(st.path);
      admitMs.push({ part: st.part, ms: round(ms - prev, 2) });
      prev = ms;
    }
    const idempotencyClaimMs = await timeCall(() =>
      claimIdempotencyKey(sql, {
        accountId: userId,
        key: `bench-micro-${randomSuffix(12)}`,
        fingerprint: Buffer.alloc(32),
        ttlMs: config.idempotency.ttlMs,
        lockMs: config.idempotency.lockMs,
      }),
    );
    const garmentMs = await timeCall(() => getGarment(sql, garmentId));
    const designKey = ownFileKey(new URL(ctx.designUrl).origin, ctx.designUrl) ?? ctx.designUrl;
    const designCheckMs = await timeCall(() => uploadsByKeys(sql, [designKey]));
    const ids: string[] = [];
    const insertChargeMs = await timeCall(async () => {
      const id = timeId('gen');
      ids.push(id);
      await insertAndChargeGenerations(sql, {
        userId,
        apiKeyId: null,
        batchId: null,
        rows: [
          {
            id,
            garmentId,
            color: 'micro',
            zone: 'front',
            garmentImageUrl: 'https://example.test/bench-micro-blank.png',
            webhookUrl: null,
            job: {
              userId,
              designUrl: 'https://example.test/bench-micro.png',
              blankKey: 'url:https://example.test/bench-micro-blank.png',
              zone: { x: 0.3, y: 0.2, width: 0.4, height: 0.5 },
              placement: { x: 50, y: 35, scale: 0.8, rotation: 0 },
              applyTexture: true,
            },
          },
        ],
      });
    });
    // the probes never run: failed and refunded at once
    await failAndRefund(sql, ids, 'benchmark probe of the insert and charge');
    return { noneMs, authMs, limitedMs, admit: admitMs, idempotencyClaimMs, garmentMs, designCheckMs, insertChargeMs };
  } finally {
    server.closeAllConnections();
    server.close();
  }
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

type PassName = 'limits on' | 'limits lifted' | 'as served';

interface LoadRow {
  clients: number;
  design: string;
  n: number;
  stats: LatencyStats;
  mockupsPerSec: number;
  failed: number;
}

interface Pass {
  name: PassName;
  /** prefix of this pass's phase names (memory and CPU): '' for the first pass */
  prefix: string;
  oneNew: { results: GenResult[]; wallMs: number };
  one: { results: GenResult[]; wallMs: number };
  oneWarm: { results: GenResult[]; wallMs: number };
  loads: LoadRow[];
  refused: number;
}

/**
 * The end-to-end phases against each target (the API with the limits on, then the one with them lifted), phase by
 * phase: each phase runs against one target and right after against the next, so both see the same machine load
 * (this machine is shared). Uploads for the new-design runs go through `uploadCtx`.
 */
async function e2ePasses(
  mem: MemoryWatch,
  ctx: Ctx,
  uploadCtx: Ctx,
  design: Buffer,
  item0: { garmentId: string; garmentImageUrl: string },
  targets: { name: PassName; base: string; api?: number }[],
  workerPid: number | undefined,
): Promise<Pass[]> {
  const passes = targets.map((t, i) => ({
    target: t,
    ctx: { ...ctx, base: t.base },
    prefix: i === 0 ? '' : `${t.name}: `,
    tag: i === 0 ? '' : `L${i}`,
    // sizes between the first target's (they step by 0.002): the worker must not find the other pass's placed design
    // in its cache
    scale: (k: number) => round(newScale(k) + i * 0.001, 4),
    fresh1: [] as string[],
    fresh8: [] as string[],
    all: [] as GenResult[],
    pass: { name: t.name, prefix: i === 0 ? '' : `${t.name}: `, loads: [] as LoadRow[], refused: 0 } as Pass,
  }));
  for (const p of passes) {
    say(`[${p.target.name}] uploading designs for the "new design every call" runs (not timed)`);
    p.fresh1 = await uploadVariants(uploadCtx, design, N(30, 6), `c1${p.tag}`);
    p.fresh8 = await uploadVariants(uploadCtx, design, N(48, 16), `c8${p.tag}`);
  }
  const each = async (
    phase: string,
    run: (p: (typeof passes)[number]) => Promise<{ results: GenResult[]; wallMs: number }>,
    keep: (p: (typeof passes)[number], r: { results: GenResult[]; wallMs: number }) => void,
  ) => {
    for (const p of passes) {
      say(`[${p.target.name}] ${phase}`);
      mem.active = { worker: workerPid, api: p.target.api };
      const r = await mem.phase(`${p.prefix}${phase}`, () => run(p));
      checkAll(`${p.target.name}, ${phase}`, r.results);
      p.all.push(...r.results);
      keep(p, r);
    }
  };
  await each(
    'warm-up',
    async (p) => {
      const results: GenResult[] = [];
      const t0 = performance.now();
      for (let i = 0; i < N(6, 3); i++) results.push(await generate(p.ctx, item0, p.scale(1000 + i), `warmup${p.tag}`));
      return { results, wallMs: performance.now() - t0 };
    },
    () => {},
  );
  await each(
    'e2e 1 client',
    (p) => closedLoop(1, N(60, 12), (i) => generate(p.ctx, item0, p.scale(i), `c1${p.tag}`)),
    (p, r) => (p.pass.one = r),
  );
  await each(
    'e2e 1 client, same placement',
    (p) => closedLoop(1, N(20, 6), () => generate(p.ctx, item0, 0.8, `c1warm${p.tag}`)),
    (p, r) => (p.pass.oneWarm = r),
  );
  // after the uploaded design's phases: a new design every call churns the worker's design cache and leaves its heap
  // full of released levels, which the phase run next would pay for
  await each(
    'e2e 1 client, new design',
    (p) => closedLoop(1, p.fresh1.length, (i) => generate(p.ctx, item0, 0.8, `c1new${p.tag}`, p.fresh1[i])),
    (p, r) => (p.pass.oneNew = r),
  );
  let seq = 100;
  for (const clients of [4, 8, 16]) {
    const n = N(clients === 16 ? 96 : clients === 8 ? 64 : 48, 16);
    await each(
      `e2e ${clients} clients`,
      (p) => closedLoop(clients, n, (i) => generate(p.ctx, item0, p.scale(seq + i), `c${clients}${p.tag}`)),
      (p, r) => {
        const ok = r.results.filter((x) => x.ok);
        p.pass.loads.push({
          clients,
          design: 'uploaded design, new size each call',
          n,
          stats: stats(ok.map((x) => x.ms)),
          mockupsPerSec: round((ok.length / r.wallMs) * 1000, 2),
          failed: n - ok.length,
        });
      },
    );
    seq += n;
  }
  await each(
    'e2e 8 clients, new design',
    (p) => closedLoop(8, p.fresh8.length, (i) => generate(p.ctx, item0, 0.8, `c8new${p.tag}`, p.fresh8[i])),
    (p, r) => {
      const ok = r.results.filter((x) => x.ok);
      p.pass.loads.push({
        clients: 8,
        design: 'new design every call',
        n: p.fresh8.length,
        stats: stats(ok.map((x) => x.ms)),
        mockupsPerSec: round((ok.length / r.wallMs) * 1000, 2),
        failed: p.fresh8.length - ok.length,
      });
    },
  );
  for (const p of passes) {
    p.pass.refused = p.all.filter((r) => r.status === 429).length;
    if (p.pass.refused)
      say(
        `[${p.target.name}] ${p.pass.refused} requests refused with 429: a budget bound (more keys or accounts needed)`,
      );
  }
  return passes.map((p) => p.pass);
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
    : await startBenchStack({ dataDir, say, workerEnv, temporalInMemory, limitsOn: true });
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
    // accounts, uploads and analyses go to the API with the limits lifted (when there is one): only the generate
    // phases are measured with the limits on
    const setupBase = stack.lifted?.baseUrl ?? stack.baseUrl;
    const ctx = await setup(setupBase, sql);
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
      const an = await analyzes(ctx, design, ctx.designUrl);
      // the uploads' analyses (the worker's, untimed) are this phase's work: its CPU, not the next phase's
      if (up.available) await keptAnalyses(ctx.base, up.ids, () => ctx.key);
      return { upload: up, analyze: an };
    });

    say('compositing alone (in this process, stack idle)');
    const comp = await mem.phase('compositing alone (in the bench process)', () => compositingAlone(ctx, design));

    const item0 = { garmentId: ctx.garment.id, garmentImageUrl: ctx.garment.colors[0].imageUrl };
    // The end-to-end phases against the API as npm start serves it (every limit on) and against the same stack's
    // API with the limits lifted, phase by phase; the same keys take turns in both.
    const targetsOf: { name: PassName; base: string; api?: number }[] = stack.lifted
      ? [
          { name: 'limits on', base: stack.baseUrl, api: stack.pids.api },
          { name: 'limits lifted', base: stack.lifted.baseUrl, api: stack.lifted.pid },
        ]
      : [{ name: 'as served', base: stack.baseUrl, api: stack.pids.api }];
    const passes = await e2ePasses(mem, ctx, { ...ctx, base: setupBase }, design, item0, targetsOf, stack.pids.worker);
    mem.active = { worker: stack.pids.worker, api: stack.lifted?.pid ?? stack.pids.api };
    const primary = passes[0]!;
    const { oneNew, one, oneWarm, loads } = primary;

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

    say('micro-measurements: auth, rate limiter (slots and windows), idempotency, garment, insert + debit, start RPC');
    const micro = await microApiParts(ctx, sql, ctx.garment.id, ctx.userId);
    const startRpcMs = await microStartRpc(client);

    say('reading workflow histories and logs for the time breakdown');
    await new Promise((r) => setTimeout(r, 300)); // let the last log lines arrive
    const apiDurations = new Map<string, number>();
    for (const l of [...(stack.apiLog?.kept ?? []), ...(stack.lifted?.log.kept ?? [])])
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
    const microMs = {
      authMs: micro.authMs - micro.noneMs,
      limiterMs: micro.limitedMs - micro.authMs,
      startRpcMs,
      admit: micro.admit,
      idempotencyClaimMs: micro.idempotencyClaimMs,
      garmentMs: micro.garmentMs,
      designCheckMs: micro.designCheckMs,
      insertChargeMs: micro.insertChargeMs,
    };
    const okOf = (rs: GenResult[]) => rs.filter((r) => r.ok);
    const bdNew = await breakdown(client, okOf(oneNew.results), apiDurations, renderMs, microMs);
    const bd = await breakdown(client, okOf(one.results), apiDurations, renderMs, microMs);
    const bdWarm = await breakdown(client, okOf(oneWarm.results), apiDurations, renderMs, microMs);
    const secondary = passes[1];
    const bdLifted = secondary
      ? await breakdown(client, okOf(secondary.one.results), apiDurations, renderMs, microMs)
      : undefined;
    // the same figures for every pass, and the difference limits on minus lifted
    const plain = comp.rows.find((r) => r.mode === 'plain paste' && r.inFlight === 1)!;
    const passSummary = passes.map((ps) => {
      const p50 = (rs: GenResult[]) => stats(okOf(rs).map((r) => r.ms)).p50Ms;
      const at = (clients: number, design: string) =>
        ps.loads.find((l) => l.clients === clients && l.design.startsWith(design))?.mockupsPerSec ?? NaN;
      const cpuOf = (phase: string, n: number) => {
        const c = mem.phases[ps.prefix + phase]?.cpu ?? {};
        return round(((c.worker ?? 0) + (c.api ?? 0) + (c.temporal ?? 0) + (c.postgres ?? 0)) / n);
      };
      const l8 = ps.loads.find((l) => l.clients === 8 && l.design.startsWith('uploaded'))!;
      return {
        pass: ps.name,
        newDesignP50Ms: p50(ps.oneNew.results),
        newSizeP50Ms: p50(ps.one.results),
        samePlacementP50Ms: p50(ps.oneWarm.results),
        newSizeOverPlainPaste: round(p50(ps.one.results) / plain.p50Ms, 2),
        samePlacementOverPlainPaste: round(p50(ps.oneWarm.results) / plain.p50Ms, 2),
        newDesignOverPlainPaste: round(p50(ps.oneNew.results) / plain.p50Ms, 2),
        mockupsPerSec8: at(8, 'uploaded'),
        mockupsPerSec16: at(16, 'uploaded'),
        mockupsPerSec8New: at(8, 'new design'),
        cpuMsPerMockup1: cpuOf('e2e 1 client', ps.one.results.length),
        cpuMsPerMockup8: cpuOf('e2e 8 clients', l8.n),
        refused: ps.refused,
      };
    });
    const passDiff =
      passSummary.length === 2
        ? Object.fromEntries(
            Object.entries(passSummary[0]!)
              .filter(([k, v]) => k !== 'pass' && typeof v === 'number')
              .map(([k, v]) => [
                k,
                round((v as number) - (passSummary[1]![k as keyof (typeof passSummary)[0]] as number), 2),
              ]),
          )
        : null;

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
      ...Object.fromEntries(
        passes.flatMap((ps) => [
          [`${ps.prefix}e2e 1 client, new design`, ps.oneNew.results.length],
          [`${ps.prefix}e2e 1 client`, ps.one.results.length],
          [`${ps.prefix}e2e 1 client, same placement`, ps.oneWarm.results.length],
          ...ps.loads.map((l) => [
            `${ps.prefix}e2e ${l.clients} clients${l.design === 'new design every call' ? ', new design' : ''}`,
            l.n,
          ]),
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
        passes: passSummary,
        limitsOnMinusLifted: passDiff,
        liftedLoads: secondary?.loads ?? null,
        accounts: `${ACCOUNTS} accounts x ${KEYS_PER_ACCOUNT} keys taking turns`,
      },
      breakdowns: {
        newDesign: { ...bdNew, perSample: undefined },
        newSize: { ...bd, perSample: undefined },
        samePlacement: { ...bdWarm, perSample: undefined },
        liftedNewSize: bdLifted ? { ...bdLifted, perSample: undefined } : null,
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
  if (e.liftedLoads) {
    p(`\nThe same with the rate limits lifted (a second API on the same stack; ${e.accounts}):\n`);
    p('| clients | design | requests | p50 ms | p95 ms | p99 ms | mockups/s | failed |');
    p('|---:|---|---:|---:|---:|---:|---:|---:|');
    for (const l of e.liftedLoads)
      p(
        `| ${l.clients} | ${l.design} | ${l.n} | ${l.stats.p50Ms} | ${l.stats.p95Ms} | ${l.stats.p99Ms} | ${l.mockupsPerSec} | ${l.failed} |`,
      );
  }
  p(
    '\n#### Each pass, and limits on minus lifted (ratios: e2e p50 / plain paste p50, new design, 1 in flight, same run)\n',
  );
  const cols: [string, string][] = [
    ['newSizeP50Ms', 'new size p50 ms'],
    ['samePlacementP50Ms', 'same placement p50 ms'],
    ['newDesignP50Ms', 'new design p50 ms'],
    ['newSizeOverPlainPaste', 'new size / plain paste'],
    ['samePlacementOverPlainPaste', 'same placement / plain paste'],
    ['newDesignOverPlainPaste', 'new design / plain paste'],
    ['mockupsPerSec8', 'mockups/s 8 clients'],
    ['mockupsPerSec16', 'mockups/s 16 clients'],
    ['mockupsPerSec8New', 'mockups/s 8 clients new design'],
    ['cpuMsPerMockup1', 'stack CPU ms/mockup 1 client'],
    ['cpuMsPerMockup8', 'stack CPU ms/mockup 8 clients'],
    ['refused', '429 refusals'],
  ];
  p(`| pass | ${cols.map((c) => c[1]).join(' | ')} |`);
  p(`|---|${cols.map(() => '---:').join('|')}|`);
  for (const ps of e.passes) p(`| ${ps.pass} | ${cols.map((c) => ps[c[0]]).join(' | ')} |`);
  if (e.limitsOnMinusLifted) p(`| on - lifted | ${cols.map((c) => e.limitsOnMinusLifted[c[0]]).join(' | ')} |`);
  p('\n### 3. Where the time goes (one generation, 1 client, medians)\n');
  const b = r.breakdowns;
  p(`(the first pass: ${r.e2e.passes[0].pass}; last column: the same new-size calls with the limits lifted)\n`);
  p('| part | new design | new size | same placement | new size, lifted | measured how |');
  p('|---|---:|---:|---:|---:|---|');
  const col = (x: any) => new Map(x?.rows.map((row: any) => [row.part, row.p50Ms]) ?? []);
  const [cs, cw, cl] = [col(b.newSize), col(b.samePlacement), col(b.liftedNewSize)];
  for (const x of b.newDesign.rows)
    p(
      `| ${x.part} | ${x.p50Ms} | ${cs.get(x.part) ?? ''} | ${cw.get(x.part) ?? ''} | ${cl.get(x.part) ?? ''} | ${x.how} |`,
    );
  p(
    `| **total (client)** | **${b.newDesign.totalP50Ms}** | **${b.newSize.totalP50Ms}** | **${b.samePlacement.totalP50Ms}** | **${b.liftedNewSize?.totalP50Ms ?? ''}** | ${b.newDesign.samples}/${b.newSize.samples}/${b.samePlacement.samples} samples |`,
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
