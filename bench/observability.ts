// The cost of metrics and traces (issue: goal within 3 %): synchronous POST /generate p50 with 1 API + 1 worker,
// with observability off (no WORKER_METRICS_ADDRESS, no OTEL_EXPORTER_OTLP_ENDPOINT: the API's prom-client metrics
// are always on) against on (the worker's Prometheus endpoint, both processes exporting every span over OTLP/HTTP
// protobuf to a receiver in this process that reads and discards them, both endpoints scraped every 5 s as
// Prometheus would). The two configurations alternate for `rounds` rounds, each on a fresh stack, so other work on a
// shared machine weighs on both alike.
// Run: node --import tsx bench/observability.ts [generations=40] [rounds=2]. Prints a table, writes
// bench/results/observability.json.
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createSql } from '../db/client';
import { grantTokens } from '../db/ledger';
import { loadConfig } from '../lib/config';
import { randomSuffix } from '../lib/ids';
import { createStorage, fileUrl } from '../lib/storage';
import { freePort } from '../scripts/dev-services';
import { makeBenchDesign } from './compositing';
import { closedLoop, machineInfo, newScale, reexecWithImageMalloc, round, stats, type LatencyStats } from './lib';
import { machineBusyMs, startCluster } from './stack';

const RESULTS = path.join(__dirname, 'results', 'observability.json');
const GENERATIONS = Number(process.argv[2] ?? 40);
const ROUNDS = Number(process.argv[3] ?? 2);
const say = (m: string) => process.stderr.write(`[bench:observability] ${m}\n`);

interface Run {
  observability: 'off' | 'on';
  completed: number;
  latency: LatencyStats;
  spansReceived: number;
  /** cores the rest of the machine used meanwhile (approximate: the machine's busy time over the wall time) */
  machineCores: number;
}

async function post(base: string, p: string, body: unknown, headers: Record<string, string>) {
  const res = await fetch(base + p, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
}

async function measure(on: boolean, design: Buffer): Promise<Run> {
  let spans = 0;
  const sink = createServer((req, res) => {
    req.on('data', () => {});
    req.on('end', () => {
      spans++;
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((r) => sink.listen(0, '127.0.0.1', () => r()));
  const workerMetrics = `127.0.0.1:${await freePort()}`;
  const dataDir = path.join(__dirname, '..', '.data', `bench-observability-${on ? 'on' : 'off'}`);
  say(`observability ${on ? 'on' : 'off'}: starting the stack`);
  const c = await startCluster({
    dataDir,
    say,
    ...(on
      ? {
          env: {
            OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(sink.address() as AddressInfo).port}`,
            OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
          },
          workerEnv: { WORKER_METRICS_ADDRESS: workerMetrics },
        }
      : { workerMetrics: false }),
  });
  const sql = createSql(c.databaseUrl, { max: 2 });
  let scraper: NodeJS.Timeout | undefined;
  try {
    const url = c.apis[0]!.url;
    const signup = await post(
      url,
      '/api/auth/signup',
      { email: `obs-${randomSuffix(8)}@example.test`, password: 'Obs-Horse-42-correct' },
      {},
    );
    const cookie = signup.headers.getSetCookie()[0]!.split(';')[0]!;
    const key = (await post(url, '/api/v1/keys', { name: 'obs' }, { cookie })).body.key as string;
    const userId = signup.body.user.id as string;
    await grantTokens(sql, { userId, source: 'payg_purchase', amount: 100_000, reference: `bench-obs:${userId}` });
    const auth = { authorization: `Bearer ${key}` };
    // the design is one of our files (put straight into the stack's storage), as an upload's would be
    const designKey = `bench-designs/${randomSuffix(10)}.png`;
    const config = loadConfig({ ...process.env, DATA_DIR: c.dataDir, PUBLIC_BASE_URL: url });
    await createStorage(config).put(designKey, design, 'image/png');
    const designUrl = fileUrl(config, designKey);
    const list = await fetch(`${url}/api/v1/garments?category=t-shirts&limit=1`, { headers: auth });
    const garment = ((await list.json()) as { garments: { id: string; colors: { imageUrl: string }[] }[] })
      .garments[0]!;
    const generate = async (i: number) => {
      const t0 = performance.now();
      const r = await post(
        url,
        '/api/v1/generate',
        {
          designUrl,
          garmentId: garment.id,
          garmentImageUrl: garment.colors[0]!.imageUrl,
          placement: { x: 50, y: 35, scale: newScale(i), rotation: 0 },
        },
        auth,
      );
      return { ms: performance.now() - t0, ok: r.status === 200 && r.body?.status === 'completed' };
    };
    say('warming up');
    await closedLoop(1, 8, (i) => generate(1000 + i));
    if (on)
      scraper = setInterval(() => {
        for (const u of [`${url}/metrics`, `http://${workerMetrics}/metrics`])
          fetch(u)
            .then((r) => r.text())
            .catch(() => {});
      }, 5000);
    say(`${GENERATIONS} generations, 1 client`);
    const busy0 = machineBusyMs();
    const { results, wallMs } = await closedLoop(1, GENERATIONS, (i) => generate(i));
    const busy = machineBusyMs() - busy0;
    return {
      observability: on ? 'on' : 'off',
      completed: results.filter((r) => r.ok).length,
      latency: stats(results.map((r) => r.ms)),
      spansReceived: spans,
      machineCores: round(busy / wallMs, 2),
    };
  } finally {
    if (scraper) clearInterval(scraper);
    await sql.end({ timeout: 5 });
    await c.stop();
    sink.close();
  }
}

async function main() {
  reexecWithImageMalloc();
  // a 1200x1500 design (the 2400x3000 one of the compositing bench can exceed the 10 MB upload limit as a PNG)
  const design = await makeBenchDesign(1200, 1500);
  const runs: Run[] = [];
  for (let r = 0; r < ROUNDS; r++) for (const on of [false, true]) runs.push(await measure(on, design));
  const med = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return round((s[Math.floor((s.length - 1) / 2)]! + s[Math.ceil((s.length - 1) / 2)]!) / 2, 1);
  };
  const p50 = (mode: 'on' | 'off') => med(runs.filter((r) => r.observability === mode).map((r) => r.latency.p50Ms));
  const overheadPct = round(((p50('on') - p50('off')) / p50('off')) * 100, 1);
  const result = {
    machine: machineInfo(),
    when: new Date().toISOString(),
    p50: { off: p50('off'), on: p50('on') },
    overheadPct,
    runs,
  };
  mkdirSync(path.dirname(RESULTS), { recursive: true });
  writeFileSync(RESULTS, JSON.stringify(result, null, 2) + '\n');
  process.stdout.write(
    [
      '',
      '| observability | completed | p50 ms | p95 ms | span exports received | machine busy (cores) |',
      '|---|---:|---:|---:|---:|---:|',
      ...runs.map(
        (r) =>
          `| ${r.observability} | ${r.completed}/${GENERATIONS} | ${r.latency.p50Ms} | ${r.latency.p95Ms} | ${r.spansReceived} | ${r.machineCores} |`,
      ),
      '',
      `median p50: off ${p50('off')} ms, on ${p50('on')} ms: ${overheadPct >= 0 ? '+' : ''}${overheadPct} % (goal: within 3 %)`,
      `results: ${path.relative(process.cwd(), RESULTS)}`,
      '',
    ].join('\n'),
  );
}

main().catch((err) => {
  process.stderr.write(`${err?.stack ?? err}\n`);
  process.exit(1);
});
