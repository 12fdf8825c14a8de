// Scale-out benchmark: generations per second end to end with 1 API + 1 worker against 2 APIs + 2 workers
// on the same machine, one PostgreSQL and one Temporal dev server (bench/stack.ts startCluster). On 2 cores the second
// pair cannot add CPU: the point is that it works, and what a process pair costs. Clients are spread over the APIs
// (client i talks to API i mod n), as a load balancer would spread them.
//
// Each configuration: a fresh stack, an account with tokens, the 2400x3000 RGBA design of bench/compositing.ts uploaded,
// a warm-up that reaches every worker, then a closed loop of synchronous POST /generate (a new placed size each call,
// the run.ts protocol) at 8 clients: mockups/s over the wall time, latency, CPU per process group.
// The two configurations alternate for `rounds` rounds (other work on a shared machine then weighs on both alike);
// the table shows every run and the median per configuration, and the per-core unit: mockups per CPU-second of all
// the service's processes (worker, API, Temporal, PostgreSQL) together.
// Run: node --import tsx bench/scale.ts [generations=80] [clients=8] [rounds=2]. Prints a table, writes
// bench/results/scale.json.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createSql } from '../db/client';
import { grantTokens } from '../db/ledger';
import { randomSuffix } from '../lib/ids';
import { makeBenchDesign } from './compositing';
import {
  closedLoop,
  keptAnalyses,
  machineInfo,
  newScale,
  reexecWithImageMalloc,
  round,
  stats,
  type LatencyStats,
} from './lib';
import { cpuByGroup, machineBusyMs, memoryOf, startCluster } from './stack';

const RESULTS = path.join(__dirname, 'results', 'scale.json');
const GENERATIONS = Number(process.argv[2] ?? 80);
const CLIENTS = Number(process.argv[3] ?? 8);
const ROUNDS = Number(process.argv[4] ?? 2);
const say = (m: string) => process.stderr.write(`[bench:scale] ${m}\n`);

interface Run {
  apis: number;
  workers: number;
  clients: number;
  generations: number;
  completed: number;
  wallS: number;
  mockupsPerS: number;
  latency: LatencyStats;
  /** CPU ms per mockup by process group, and cores the rest of the machine used meanwhile */
  cpuMsPerMockup: Record<string, number>;
  otherCores: number;
  /** mockups per CPU-second of worker + API + Temporal + PostgreSQL: what one core delivers */
  mockupsPerCoreS: number;
  /** resident memory at the end, MiB, per process */
  rssMiB: Record<string, number>;
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

async function measure(apis: number, workers: number, design: Buffer): Promise<Run> {
  const dataDir = path.join(__dirname, '..', '.data', `bench-scale-${apis}x${workers}`);
  say(`${apis} API(s) + ${workers} worker(s): starting the stack`);
  const c = await startCluster({ dataDir, say, apis, workers });
  const sql = createSql(c.databaseUrl, { max: 2 });
  try {
    const urls = c.apis.map((a) => a.url);
    const signup = await post(
      urls[0]!,
      '/api/auth/signup',
      { email: `scale-${randomSuffix(8)}@example.test`, password: 'Scale-Horse-42-correct' },
      {},
    );
    const cookie = signup.headers.getSetCookie()[0]!.split(';')[0]!;
    const key = (await post(urls[0]!, '/api/v1/keys', { name: 'scale' }, { cookie })).body.key as string;
    const userId = signup.body.user.id as string;
    await grantTokens(sql, { userId, source: 'payg_purchase', amount: 100_000, reference: `bench-scale:${userId}` });
    const auth = { authorization: `Bearer ${key}` };
    const up = await post(
      urls[0]!,
      '/api/v1/upload',
      { imageData: `data:image/png;base64,${design.toString('base64')}` },
      auth,
    );
    if (up.status !== 201) throw new Error(`upload answered ${up.status}`);
    // the upload's analysis in the worker is the upload's work, not the generations' (as in bench/run.ts)
    say("waiting for the upload's analysis");
    await keptAnalyses(urls[0]!, [up.body.id], () => key);
    const list = await fetch(`${urls[0]}/api/v1/garments?category=t-shirts&limit=1`, { headers: auth });
    const garment = ((await list.json()) as { garments: { id: string; colors: { imageUrl: string }[] }[] })
      .garments[0]!;
    const generate = async (i: number) => {
      const t0 = performance.now();
      const r = await post(
        urls[i % urls.length]!,
        '/api/v1/generate',
        {
          designUrl: up.body.url,
          garmentId: garment.id,
          garmentImageUrl: garment.colors[0]!.imageUrl,
          placement: { x: 50, y: 35, scale: newScale(i), rotation: 0 },
        },
        auth,
      );
      return { ms: performance.now() - t0, ok: r.status === 200 && r.body?.status === 'completed' };
    };
    // warm-up: every worker prepares the blank and the design's levels (Temporal hands tasks to either)
    say('warming up');
    await closedLoop(workers * 2, workers * 6, (i) => generate(1000 + i));

    const pids = {
      apis: c.apis.map((a) => a.pid!),
      workers: c.workers.map((w) => w.pid!),
    };
    const cpu0 = cpuByGroup(pids);
    const busy0 = machineBusyMs();
    say(`${GENERATIONS} generations, ${CLIENTS} clients spread over ${apis} API(s)`);
    const { results, wallMs } = await closedLoop(CLIENTS, GENERATIONS, (i) => generate(i));
    const cpu1 = cpuByGroup(pids);
    const busy = machineBusyMs() - busy0;
    const completed = results.filter((r) => r.ok).length;
    const cpuMsPerMockup: Record<string, number> = {};
    let ours = 0;
    for (const g of Object.keys(cpu1)) {
      const d = (cpu1[g] ?? 0) - (cpu0[g] ?? 0);
      ours += d;
      cpuMsPerMockup[g] = round(d / Math.max(1, completed));
    }
    const rssMiB: Record<string, number> = {};
    for (const p of [...c.apis, ...c.workers]) rssMiB[p.name] = memoryOf(p.pid!)?.rssMiB ?? NaN;
    return {
      apis,
      workers,
      clients: CLIENTS,
      generations: GENERATIONS,
      completed,
      wallS: round(wallMs / 1000, 2),
      mockupsPerS: round(completed / (wallMs / 1000), 2),
      latency: stats(results.map((r) => r.ms)),
      cpuMsPerMockup,
      mockupsPerCoreS: round(
        1000 / ['worker', 'api', 'temporal', 'postgres'].reduce((a, g) => a + (cpuMsPerMockup[g] ?? 0), 0),
        2,
      ),
      otherCores: round(Math.max(0, busy - ours) / wallMs, 2),
      rssMiB,
    };
  } finally {
    await sql.end({ timeout: 5 });
    await c.stop();
  }
}

async function main() {
  reexecWithImageMalloc();
  const design = await makeBenchDesign();
  const runs: Run[] = [];
  for (let r = 0; r < ROUNDS; r++)
    for (const [apis, workers] of [
      [1, 1],
      [2, 2],
    ] as const)
      runs.push(await measure(apis, workers, design));
  const med = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return round((s[Math.floor((s.length - 1) / 2)]! + s[Math.ceil((s.length - 1) / 2)]!) / 2, 2);
  };
  const summary = [1, 2].map((n) => {
    const rs = runs.filter((r) => r.apis === n);
    return {
      processes: `${n} API + ${n} worker`,
      mockupsPerS: med(rs.map((r) => r.mockupsPerS)),
      p50Ms: med(rs.map((r) => r.latency.p50Ms)),
      mockupsPerCoreS: med(rs.map((r) => r.mockupsPerCoreS)),
    };
  });
  const result = { machine: machineInfo(), when: new Date().toISOString(), summary, runs };
  mkdirSync(path.dirname(RESULTS), { recursive: true });
  writeFileSync(RESULTS, JSON.stringify(result, null, 2) + '\n');
  const lines = [
    '',
    '| processes | clients | completed | mockups/s | p50 ms | p95 ms | CPU ms/mockup worker+api+temporal+postgres | mockups per core-second | other work (cores) |',
    '|---|---:|---:|---:|---:|---:|---|---:|---:|',
    ...runs.map(
      (r) =>
        `| ${r.apis} API + ${r.workers} worker | ${r.clients} | ${r.completed}/${r.generations} | ${r.mockupsPerS} | ${r.latency.p50Ms} | ${r.latency.p95Ms} | ${['worker', 'api', 'temporal', 'postgres'].map((g) => r.cpuMsPerMockup[g] ?? 0).join(' + ')} | ${r.mockupsPerCoreS} | ${r.otherCores} |`,
    ),
    '',
    'median per configuration:',
    ...summary.map(
      (x) =>
        `  ${x.processes}: ${x.mockupsPerS} mockups/s, p50 ${x.p50Ms} ms, ${x.mockupsPerCoreS} mockups per core-second`,
    ),
    '',
    `resident memory at the end (MiB): ${runs.map((r) => `${r.apis}+${r.workers}: ${JSON.stringify(r.rssMiB)}`).join('; ')}`,
    `results: ${path.relative(process.cwd(), RESULTS)}`,
  ];
  process.stdout.write(lines.join('\n') + '\n');
}

main().catch((err) => {
  say(`failed: ${err?.stack ?? err}`);
  process.exit(1);
});
