// Small helpers of the end-to-end benchmark: percentiles, a bounded closed-loop load runner, epoch timestamps.

import { spawnSync } from 'node:child_process';
import os from 'node:os';
import zlib from 'node:zlib';
import sharp from 'sharp';
import { IMAGE_PROCESS_MALLOC_ENV } from '../scripts/dev-services';
import { waitUpTo } from '../test/helpers/wait';

/** Nearest-rank percentile of an ascending array (p in 0..1). */
export const pct = (sorted: number[], p: number): number =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
export const round = (n: number, d = 1): number => (Number.isFinite(n) ? Math.round(n * 10 ** d) / 10 ** d : n);
export const median = (xs: number[]): number =>
  pct(
    [...xs].sort((a, b) => a - b),
    0.5,
  );

/** The template benches' design (bench/templates.ts, bench/template-cpu.ts): a 1000x1000 PNG, an amber disc on blue. */
export function templateBenchDesign(): Promise<Buffer> {
  return sharp({ create: { width: 1000, height: 1000, channels: 4, background: '#1d4ed8' } })
    .composite([
      {
        input: Buffer.from(
          '<svg xmlns="http://www.w3.org/2000/svg" width="1000" height="1000"><circle cx="500" cy="500" r="380" fill="#f59e0b"/></svg>',
        ),
      },
    ])
    .png()
    .toBuffer();
}

/** Milliseconds since the epoch with sub-millisecond resolution (comparable with other processes' clocks). */
export const epochMs = (): number => performance.timeOrigin + performance.now();

export interface LatencyStats {
  n: number;
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
  minMs: number;
  maxMs: number;
  meanMs: number;
}

export function stats(ms: number[]): LatencyStats {
  const s = [...ms].sort((a, b) => a - b);
  return {
    n: s.length,
    p50Ms: round(pct(s, 0.5)),
    p95Ms: round(pct(s, 0.95)),
    p99Ms: round(pct(s, 0.99)),
    minMs: round(s[0] ?? NaN),
    maxMs: round(s[s.length - 1] ?? NaN),
    meanMs: round(s.reduce((a, b) => a + b, 0) / (s.length || 1)),
  };
}

/**
 * `clients` callers each run `fn` back to back until `total` calls have been made (bounded: never more). Returns
 * per-call results in call order and the wall time from the first call to the last answer.
 */
export async function closedLoop<T>(
  clients: number,
  total: number,
  fn: (i: number) => Promise<T>,
): Promise<{ results: T[]; wallMs: number }> {
  const results: T[] = new Array(total);
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: Math.min(clients, total) }, async () => {
      while (next < total) {
        const i = next++;
        results[i] = await fn(i);
      }
    }),
  );
  return { results, wallMs: performance.now() - t0 };
}

/** A different placed size for each call (64 sizes, >= 1 px apart): no call finds its exact placed design cached,
 * so each resizes the design; whether it also decodes it depends on the design (new upload or seen before). */
export const newScale = (i: number): number => round(0.7 + (i % 64) * 0.002, 4);

/**
 * A copy of a PNG whose bytes differ (a tEXt chunk with `nonce` before IEND) and whose pixels do not: uploaded, it
 * is a new design for the worker (new storage key, new hash), so nothing about it is cached.
 */
export function pngVariant(png: Buffer, nonce: string): Buffer {
  const iend = png.length - 12;
  if (png.toString('latin1', iend + 4, iend + 8) !== 'IEND') throw new Error('not a PNG ending in IEND');
  const data = Buffer.from(`Comment\0${nonce}`, 'latin1');
  const chunk = Buffer.alloc(12 + data.length);
  chunk.writeUInt32BE(data.length, 0);
  chunk.write('tEXt', 4, 'latin1');
  data.copy(chunk, 8);
  chunk.writeUInt32BE(zlib.crc32(chunk.subarray(4, 8 + data.length)), 8 + data.length);
  return Buffer.concat([png.subarray(0, iend), chunk, png.subarray(iend)]);
}

/** What the numbers were measured on: printed with every result file so runs can be compared. */
export function machineInfo(): Record<string, unknown> {
  return {
    cpu: os.cpus()[0]?.model ?? 'unknown',
    cores: os.availableParallelism(),
    memoryGiB: round(os.totalmem() / 2 ** 30),
    platform: `${os.platform()} ${os.release()}`,
    node: process.version,
    sharp: sharp.versions.sharp,
    libvips: sharp.versions.vips,
  };
}

/**
 * Compositing measured in the benchmark process must run with the worker's glibc malloc settings, which only apply
 * from process start: run this script again with them (once) and exit with its status.
 */
export function reexecWithImageMalloc(): void {
  if (process.env.BENCH_MALLOC_ENV === '1') return;
  const r = spawnSync(process.execPath, [...process.execArgv, ...process.argv.slice(1)], {
    stdio: 'inherit',
    env: { ...process.env, ...IMAGE_PROCESS_MALLOC_ENV, BENCH_MALLOC_ENV: '1' },
  });
  process.exit(r.status ?? 1);
}

/** A response's body: parsed JSON, or the text when it is not JSON. */
export async function bodyOf(res: Response): Promise<any> {
  const text = await res.text();
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** One JSON call: `body` sent as JSON when given; the answer's status, body (bodyOf) and headers. */
export async function json(
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
  return { status: res.status, body: await bodyOf(res), headers: res.headers };
}

/**
 * Each new upload is analysed by the worker after it is stored (workflow upload-analysis-<id>, UPLOAD_ANALYSIS_DELAY
 * after it; the design library: docs/uploads-and-analysis.md). That work belongs to the upload, not to the timed
 * phases that follow: wait until each upload's analysis is kept, one upload at a time and once a second, so that the
 * polls use few of the keys' per-minute budgets (each poll counts in them). A build without the design library answers
 * 404 and is not waited for.
 */
export async function keptAnalyses(base: string, ids: string[], keyOf: (i: number) => string): Promise<void> {
  await closedLoop(1, ids.length, (i) =>
    waitUpTo(
      async () => {
        const res = await fetch(`${base}/api/v1/uploads/${ids[i]}`, {
          headers: { authorization: `Bearer ${keyOf(i)}` },
        });
        if (res.status === 404) return true;
        const body: any = await res.json().catch(() => ({}));
        return !!body.analyzedAt;
      },
      { ms: 60_000, every: 1000 },
    ),
  );
}
