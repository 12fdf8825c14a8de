// Design chat benchmark. Two phases, each on a stack started like npm start (bench/stack.ts):
//   1. the local renderer (no provider key): POST /api/chat with two catalogue blanks, so a job is graphic + print
//      asset + 2 mockups + records; end-to-end p50, target ≤ 1.5 s;
//   2. Gemini through @google/genai pointed at a stand-in that answers at once (test/helpers/fake-image-providers),
//      no garments: the job's own overhead is its whole end-to-end time, POST /api/chat to the answer (API checks,
//      workflow start, debit, the provider activity's round trip through Temporal, the SDK call and storing its
//      answer, the print asset, the records). Target p50 ≤ 300 ms. The breakdown shows the print asset step, the
//      provider activity and the rest.
// Prompts differ on every call, so no graphic is reused. Run: node --import tsx bench/chat.ts (BENCH_QUICK=1 for a
// smoke run). Prints a table and writes bench/results/chat.json.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createSql } from '../db/client';
import { grantTokens } from '../db/ledger';
import { startFakeGemini } from '../test/helpers/fake-image-providers';
import { machineInfo, stats } from './lib';
import { startBenchStack, type BenchStack } from './stack';

const RESULTS = path.join(__dirname, 'results', 'chat.json');
const QUICK = process.env.BENCH_QUICK === '1';
const N = Number(process.argv[2] ?? (QUICK ? 5 : 20));
const WARMUP = QUICK ? 2 : 4;
const say = (m: string) => process.stderr.write(`[bench:chat] ${m}\n`);

const PROMPTS = [
  'A retro sunset surf club logo in orange and purple',
  'Mountain adventure crew badge in forest green and cream',
  'Neon lightning bolt energy in yellow and black',
  'Coffee lovers unite in brown and teal',
  'Midnight owl under the moon in navy blue and gold',
  'Ocean waves sailing team in sky blue and white',
];

interface Sample {
  ms: number;
  jobId: string;
  timings: Record<string, number>;
  jobMs: number;
}

async function session(stack: BenchStack): Promise<{ cookie: string; blanks: string[]; userId: string }> {
  const base = stack.baseUrl;
  const email = `bench-chat-${Date.now()}@example.test`;
  const signup = await fetch(`${base}/api/auth/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: 'Correct-Horse-42' }),
  });
  const cookie = signup.headers.getSetCookie()[0]!.split(';')[0]!;
  const userId = ((await signup.json()) as { user: { id: string } }).user.id;
  const key = await fetch(`${base}/api/v1/keys`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie },
    body: JSON.stringify({ name: 'bench' }),
  }).then((r) => r.json() as Promise<{ key: string }>);
  const garments = await fetch(`${base}/api/v1/garments?limit=2`, {
    headers: { authorization: `Bearer ${key.key}` },
  }).then((r) => r.json() as Promise<{ garments: { colors: { imageUrl: string }[] }[] }>);
  const sql = createSql(stack.databaseUrl, { max: 1 });
  try {
    await grantTokens(sql, { userId, source: 'payg_purchase', amount: 100_000, reference: `bench-chat:${userId}` });
  } finally {
    await sql.end();
  }
  return { cookie, userId, blanks: garments.garments.map((g) => g.colors[0]!.imageUrl) };
}

async function run(
  stack: BenchStack,
  s: { cookie: string },
  n: number,
  body: (i: number) => Record<string, unknown>,
  expectProvider: string,
): Promise<Sample[]> {
  const out: Sample[] = [];
  const sql = createSql(stack.databaseUrl, { max: 1 });
  try {
    for (let i = 0; i < n; i++) {
      const t0 = performance.now();
      const res = await fetch(`${stack.baseUrl}/api/chat`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', cookie: s.cookie },
        body: JSON.stringify(body(i)),
      });
      const text = await res.text();
      const ms = performance.now() - t0;
      if (res.status !== 200) throw new Error(`POST /api/chat answered ${res.status}: ${text}`);
      const provider = res.headers.get('x-image-provider');
      if (provider !== expectProvider) throw new Error(`expected provider ${expectProvider}, got ${provider}`);
      const { messageId } = JSON.parse(text) as { messageId: string };
      const [job] = await sql<{ id: string; timings: Record<string, number>; jobMs: number }[]>`
        select id, timings, (extract(epoch from completed_at - created_at) * 1000)::float8 as "jobMs"
        from render_jobs where assistant_message_id = ${messageId}`;
      out.push({ ms, jobId: job!.id, timings: job!.timings, jobMs: job!.jobMs });
    }
  } finally {
    await sql.end();
  }
  return out;
}

const p50 = (xs: number[]) => stats(xs).p50Ms;

async function main() {
  const dataDir = path.join(__dirname, '..', '.data', 'bench-chat');
  // the benchmark's own limits: lifted, it measures the job rather than the chat rate limit
  Object.assign(process.env, { CHAT_RATE_PER_MINUTE: '1000000', CHAT_RATE_PER_HOUR: '1000000' });
  for (const k of ['GEMINI_API_KEY', 'GEMINI_BASE_URL', 'OPENAI_API_KEY', 'OPENAI_BASE_URL']) delete process.env[k];

  say('phase 1: the local renderer (no provider key)');
  let stack = await startBenchStack({ dataDir, say });
  let local: Sample[];
  try {
    const s = await session(stack);
    const body = (i: number) => ({ prompt: `${PROMPTS[i % PROMPTS.length]} #${i}`, garmentUrls: s.blanks });
    await run(stack, s, WARMUP, (i) => body(1000 + i), 'local');
    local = await run(stack, s, N, body, 'local');
  } finally {
    await stack.stop();
  }

  say('phase 2: Gemini through @google/genai, answering at once (a local stand-in)');
  const gemini = await startFakeGemini('bench-gemini-key');
  await gemini.image();
  Object.assign(process.env, { GEMINI_API_KEY: 'bench-gemini-key', GEMINI_BASE_URL: gemini.baseUrl });
  let instant: Sample[];
  try {
    stack = await startBenchStack({ dataDir, say });
    try {
      const s = await session(stack);
      const body = (i: number) => ({ prompt: `${PROMPTS[i % PROMPTS.length]} #${i}` });
      await run(stack, s, WARMUP, (i) => body(1000 + i), 'gemini');
      instant = await run(stack, s, N, body, 'gemini');
    } finally {
      await stack.stop();
    }
  } finally {
    await gemini.stop();
  }

  const step = (xs: Sample[], k: string) => p50(xs.map((x) => x.timings[k] ?? 0));
  const rest = instant.map((x) => x.ms - (x.timings.print ?? 0) - (x.timings.provider ?? 0));
  const result = {
    machine: machineInfo(),
    localRenderer: {
      endToEnd: { ...stats(local.map((x) => x.ms)), targetP50Ms: 1500 },
      job: stats(local.map((x) => x.jobMs)),
      stepsP50Ms: {
        render: step(local, 'provider'),
        print: step(local, 'print'),
        mockups: step(local, 'mockups'),
      },
    },
    instantProvider: {
      // the job's own overhead: everything but the provider's thinking, which the stand-in skips
      overhead: { ...stats(instant.map((x) => x.ms)), targetP50Ms: 300 },
      job: stats(instant.map((x) => x.jobMs)),
      stepsP50Ms: {
        provider: step(instant, 'provider'),
        print: step(instant, 'print'),
        rest: p50(rest),
      },
    },
  };
  mkdirSync(path.dirname(RESULTS), { recursive: true });
  writeFileSync(RESULTS, JSON.stringify(result, null, 2));
  const row = (name: string, s: ReturnType<typeof stats>, target: string) =>
    `${name.padEnd(40)} ${String(s.n).padStart(4)} ${String(s.p50Ms).padStart(8)} ${String(s.p95Ms).padStart(8)} ${String(s.maxMs).padStart(8)}  ${target}`;
  const l = result.localRenderer.stepsP50Ms;
  const g = result.instantProvider.stepsP50Ms;
  process.stdout.write(
    [
      `${'chat measure'.padEnd(40)} ${'n'.padStart(4)} ${'p50 ms'.padStart(8)} ${'p95 ms'.padStart(8)} ${'max ms'.padStart(8)}  target`,
      row('local renderer, graphic+print+2 mockups', result.localRenderer.endToEnd, 'p50 ≤ 1500 ms'),
      row('  of which the job (created → recorded)', result.localRenderer.job, ''),
      `  steps p50: render ${l.render} ms, print asset ${l.print} ms, 2 mockups ${l.mockups} ms`,
      row('instant provider: overhead, end to end', result.instantProvider.overhead, 'p50 ≤ 300 ms'),
      row('  of which the job (created → recorded)', result.instantProvider.job, ''),
      `  p50: provider activity ${g.provider} ms, print asset ${g.print} ms, the rest (API, Temporal, debit, records) ${g.rest} ms`,
      `written to ${path.relative(process.cwd(), RESULTS)}`,
      '',
    ].join('\n'),
  );
}

main().catch((err) => {
  process.stderr.write(`${err?.stack ?? err}\n`);
  process.exit(1);
});
