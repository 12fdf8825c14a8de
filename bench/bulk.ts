// Bulk renders (issue 35), against the stack as `npm start` serves it (every rate limit on; signups and token grants
// through the lifted API and the database):
//   1. throughput: 120 items (4 designs x 2 tees x 5 colours x 3 zones) as one POST /generate/bulk, against the same
//      120 items as synchronous POST /generate calls from 8 clients (one account each, 15 calls per client, under the
//      30 a minute generate window); and how long after its last item the bulk's archive is ready;
//   2. fairness: account B's single POST /generate p50 (one client, one call at a time) idle, then while account A's
//      300-item bulk runs.
// Run: node --import tsx bench/bulk.ts (BENCH_QUICK=1: 48 items each). Prints a table, writes bench/results/bulk.json.
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createSql } from '../db/client';
import { grantTokens } from '../db/ledger';
import { makeBenchDesign } from './compositing';
import { machineInfo, pngVariant, round, stats } from './lib';
import { startBenchStack } from './stack';

const QUICK = process.env.BENCH_QUICK === '1';
const RESULTS = path.join(__dirname, 'results', 'bulk.json');
const say = (m: string) => process.stderr.write(`[bench:bulk] ${m}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const ZONES = ['front', 'back', 'left-chest'];
const FAIR_CALLS = QUICK ? 8 : 20;

interface Key {
  userId: string;
  auth: Record<string, string>;
}

async function main() {
  const stack = await startBenchStack({
    dataDir: path.join(__dirname, '..', '.data', 'bench-bulk'),
    say,
    limitsOn: true,
  });
  const sql = createSql(stack.databaseUrl, { max: 2 });
  try {
    const base = stack.baseUrl; // every limit on
    const setup = stack.lifted!.baseUrl;
    const signup = async (tag: string): Promise<Key> => {
      const email = `bench-bulk-${tag}-${randomBytes(4).toString('hex')}@example.test`;
      const res = await fetch(`${setup}/api/auth/signup`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email, password: 'Correct-Horse-42' }),
      });
      const user = ((await res.json()) as { user: { id: string } }).user;
      const cookie = res.headers.getSetCookie()[0]!.split(';')[0]!;
      const keyRes = await fetch(`${setup}/api/v1/keys`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', cookie },
        body: JSON.stringify({ name: 'bench' }),
      });
      const key = ((await keyRes.json()) as { key: string }).key;
      await grantTokens(sql, {
        userId: user.id,
        source: 'payg_purchase',
        amount: 10_000,
        reference: `bench-bulk:${user.id}`,
      });
      return { userId: user.id, auth: { authorization: `Bearer ${key}` } };
    };
    const a = await signup('a');
    // account B: one for the idle calls, one for the calls during the bulk (each within its 30 a minute)
    const b = await signup('b');
    const bBusy = await signup('b-busy');
    const clients = await Promise.all(Array.from({ length: 8 }, (_, i) => signup(`c${i}`)));

    const garments = (
      (await (await fetch(`${setup}/api/v1/garments?category=t-shirts&limit=2`, { headers: a.auth })).json()) as {
        garments: { id: string; colors: { name: string; imageUrl: string; available: boolean }[] }[];
      }
    ).garments;
    const design = await makeBenchDesign(1200, 1500);
    const upload = async (k: Key, png: Buffer) => {
      const res = await fetch(`${setup}/api/v1/upload`, {
        method: 'POST',
        headers: { ...k.auth, 'content-type': 'application/json' },
        body: JSON.stringify({ imageData: `data:image/png;base64,${png.toString('base64')}` }),
      });
      if (res.status !== 201) throw new Error(`upload answered ${res.status}: ${await res.text()}`);
      return ((await res.json()) as { url: string }).url;
    };
    // designs are our uploads (their levels prepared), one set per account that uses them
    const designsOf = async (k: Key, n: number) =>
      Promise.all(Array.from({ length: n }, (_, i) => upload(k, pngVariant(design, `d${i}`))));

    // the first 5 available colours of each tee (2 in a quick run)
    const colorsOf = (g: (typeof garments)[number]) =>
      g.colors
        .filter((c) => c.available)
        .slice(0, QUICK ? 2 : 5)
        .map((c) => c.name);
    const items = (urls: string[]) =>
      urls.flatMap((designUrl) =>
        garments.flatMap((g) =>
          colorsOf(g).flatMap((color) => ZONES.map((zone) => ({ designUrl, garmentId: g.id, color, zone }))),
        ),
      );

    let refused429 = 0;
    const generate = async (k: Key, body: Record<string, unknown>) => {
      for (;;) {
        const t0 = performance.now();
        const res = await fetch(`${base}/api/v1/generate`, {
          method: 'POST',
          headers: { ...k.auth, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        const text = await res.text();
        if (res.status === 429) {
          refused429++;
          await sleep(1000 * Number(res.headers.get('retry-after') ?? 1));
          continue;
        }
        if (res.status !== 200) throw new Error(`generate answered ${res.status}: ${text}`);
        return performance.now() - t0;
      }
    };
    const single = (it: ReturnType<typeof items>[number]) => ({
      designUrl: it.designUrl,
      garmentId: it.garmentId,
      garmentImageUrl: garments.find((g) => g.id === it.garmentId)!.colors.find((c) => c.name === it.color)!.imageUrl,
      color: it.color,
      zone: it.zone,
    });
    const startBulk = async (k: Key, urls: string[]) => {
      const res = await fetch(`${base}/api/v1/generate/bulk`, {
        method: 'POST',
        headers: { ...k.auth, 'content-type': 'application/json' },
        body: JSON.stringify({
          designs: urls.map((designUrl) => ({ designUrl })),
          targets: garments.map((g) => ({ garmentId: g.id, colors: colorsOf(g), zones: ZONES })),
        }),
      });
      if (res.status !== 202) throw new Error(`bulk answered ${res.status}: ${await res.text()}`);
      return (await res.json()) as { id: string; total: number };
    };
    const bulkEnd = async (k: Key, id: string) => {
      for (;;) {
        const res = await fetch(`${base}/api/v1/generate/bulk/${id}?limit=1`, { headers: k.auth });
        const body = (await res.json()) as { finishedAt: string | null; completed: number; failed: number };
        if (res.status === 200 && body.finishedAt) return body;
        await sleep(200);
      }
    };
    const lastItemAt = async (id: string) => {
      const [row] = await sql<{ last: Date; first: Date }[]>`
        select max(g.completed_at) as last, min(g.started_at) as first
        from bulk_items i join generations g on g.id = i.generation_id where i.bulk_id = ${id}`;
      return row!;
    };

    // ------------------------------------------------------------------ 1. throughput
    const singleUrls = await Promise.all(clients.map((c) => designsOf(c, 4)));
    const aUrls = await designsOf(a, 10);
    say('warming up');
    for (const [i, c] of clients.entries()) await generate(c, single(items(singleUrls[i]!)[0]!));
    const perClient = items(singleUrls[0]!).length / clients.length;
    const total = items(singleUrls[0]!).length;
    say(`${total} items as single generates from ${clients.length} clients`);
    const t0 = performance.now();
    await Promise.all(
      clients.map(async (c, ci) => {
        const mine = items(singleUrls[ci]!).slice(ci * perClient, (ci + 1) * perClient);
        for (const it of mine) await generate(c, single(it));
      }),
    );
    const singlesS = (performance.now() - t0) / 1000;
    say(`singles: ${round(singlesS, 2)} s`);

    say(`${total} items as one bulk`);
    const tb = Date.now();
    const started = await startBulk(a, aUrls.slice(0, 4));
    const ended = await bulkEnd(a, started.id);
    const { last } = await lastItemAt(started.id);
    const [closed] = await sql<
      { finishedAt: Date }[]
    >`select finished_at as "finishedAt" from bulk_jobs where id = ${started.id}`;
    const bulkS = (last.getTime() - tb) / 1000;
    const archiveAfterMs = closed!.finishedAt.getTime() - last.getTime();
    say(`bulk: ${round(bulkS, 2)} s to its last item, archive ${archiveAfterMs} ms after it (${ended.completed} ok)`);

    // ------------------------------------------------------------------ 2. fairness
    const bUrl = (await designsOf(b, 1))[0]!;
    const bBusyUrl = (await designsOf(bBusy, 1))[0]!;
    const bItem = (url: string, i: number) => ({
      designUrl: url,
      garmentId: garments[0]!.id,
      garmentImageUrl: garments[0]!.colors[i % 3]!.imageUrl,
      placement: { x: 50, y: 35, scale: 0.6 + (i % 20) * 0.01, rotation: 0 },
    });
    await generate(b, bItem(bUrl, 0));
    await generate(bBusy, bItem(bBusyUrl, 0));
    const refusedBefore = refused429;
    const idle: number[] = [];
    for (let i = 0; i < FAIR_CALLS; i++) idle.push(await generate(b, bItem(bUrl, i + 1)));
    // 300 items: 10 designs x 2 tees x 5 colours x 3 zones (a quick run: 4 x 2 x 2 x 3 = 48)
    const bigUrls = QUICK ? aUrls.slice(0, 4) : aUrls;
    const big = await startBulk(a, bigUrls);
    say(`B's singles while A's ${big.total}-item bulk runs`);
    await sleep(1500); // the bulk under way
    const busy: number[] = [];
    for (let i = 0; i < FAIR_CALLS; i++) busy.push(await generate(bBusy, bItem(bBusyUrl, i + 1)));
    const fairness429 = refused429 - refusedBefore;
    const [progress] = await sql<{ n: number }[]>`
      select count(*) filter (where g.status in ('pending', 'processing'))::int as n
      from bulk_items i join generations g on g.id = i.generation_id where i.bulk_id = ${big.id}`;
    await bulkEnd(a, big.id);

    const result = {
      when: new Date().toISOString(),
      machine: machineInfo(),
      throughput: {
        items: total,
        singlesClients: clients.length,
        singlesSeconds: round(singlesS, 2),
        singlesPerSecond: round(total / singlesS, 2),
        bulkSeconds: round(bulkS, 2),
        bulkPerSecond: round(total / bulkS, 2),
        bulkOverSingles: round(singlesS / bulkS, 2),
        archiveReadyAfterLastItemMs: archiveAfterMs,
      },
      fairness: {
        bulkItems: big.total,
        calls: FAIR_CALLS,
        idle: stats(idle),
        duringBulk: stats(busy),
        p50Ratio: round(stats(busy).p50Ms / stats(idle).p50Ms, 2),
        bulkItemsStillRunningAfterB: progress!.n,
        refused429: fairness429,
      },
    };
    mkdirSync(path.dirname(RESULTS), { recursive: true });
    writeFileSync(RESULTS, JSON.stringify(result, null, 2) + '\n');
    console.log('\nBulk renders (limits on)\n');
    console.log('| measure | value |');
    console.log('|---|---:|');
    const t = result.throughput;
    const f = result.fairness;
    console.log(
      `| ${t.items} single generates, ${t.singlesClients} clients | ${t.singlesSeconds} s (${t.singlesPerSecond}/s) |`,
    );
    console.log(`| the same ${t.items} as one bulk (to its last item) | ${t.bulkSeconds} s (${t.bulkPerSecond}/s) |`);
    console.log(`| bulk throughput / singles' | ${t.bulkOverSingles} |`);
    console.log(`| archive ready after the last item | ${t.archiveReadyAfterLastItemMs} ms |`);
    console.log(`| B's single p50, idle | ${f.idle.p50Ms} ms |`);
    console.log(
      `| B's single p50 while A's ${f.bulkItems}-item bulk runs | ${f.duringBulk.p50Ms} ms (x${f.p50Ratio}) |`,
    );
    console.log(`| A's items still running when B's last call ended | ${f.bulkItemsStillRunningAfterB} |`);
    console.log(`| 429s met by B's calls (waited out) | ${f.refused429} |`);
  } finally {
    await sql.end();
    await stack.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
