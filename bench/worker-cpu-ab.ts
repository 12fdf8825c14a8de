// The worker's CPU per mockup on two commits at once (issue 34; docs/benchmarks.md, "The worker's CPU per mockup
// since 3b18c9d"): each side's bench stack (bench/stack.ts) from its own checkout, started one after the other, then
// rounds of blocks alternating between the sides (new size, new design, a 7-colour batch, 2 s idle), each block's CPU
// per process group and per worker thread read from /proc. Not part of npm run bench.
//   SIDES=old=/work/wt/before,new=$PWD ACCOUNTS=10 ROUNDS=6 BLOCK=6 OUT=/tmp/ab.json node --import tsx bench/worker-cpu-ab.ts
// The design is bench/compositing.ts's 2400x3000 PNG, made once into DESIGN (default /tmp/worker-cpu-design.png).
import { existsSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import fs from 'node:fs';
import path from 'node:path';
import { sleep } from '../test/helpers/wait';
import { json } from './lib';
import { readProcStat } from './stack';

const SIDES = (process.env.SIDES ?? 'old=/work/wt/before,new=/work/wt/cpu-worker')
  .split(',')
  .map((s) => s.split('=') as [string, string]);
const OUT = process.env.OUT!;
const ROUNDS = Number(process.env.ROUNDS ?? 6);
const BLOCK = Number(process.env.BLOCK ?? 6);
const say = (m: string) => console.error(`[${new Date().toISOString().slice(11, 19)}] ${m}`);
const mono = () => Number(process.hrtime.bigint() / 1000n);
const threads = (pid: number) => {
  const out: Record<string, number> = {};
  for (const t of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      const st = readProcStat(`/proc/${pid}/task/${t}/stat`);
      const comm = st.comm.replace(/\d+$/, '#');
      out[comm] = (out[comm] ?? 0) + st.cpuMs;
    } catch {
      /* gone */
    }
  }
  return out;
};

async function side(name: string, ROOT: string) {
  const { startBenchStack, cpuByGroup } = await import(ROOT + '/bench/stack.ts');
  const { grantTokens } = await import(ROOT + '/db/ledger.ts');
  const { createSql } = await import(ROOT + '/db/client.ts');
  const { pngVariant } = await import(ROOT + '/bench/lib.ts');
  const designFile = process.env.DESIGN ?? '/tmp/worker-cpu-design.png';
  if (!existsSync(designFile)) {
    const { makeBenchDesign } = await import(ROOT + '/bench/compositing.ts');
    writeFileSync(designFile, await makeBenchDesign());
  }
  const design = readFileSync(designFile);
  const dataDir = path.join(process.env.DATA_DIR ?? '/tmp/worker-cpu-ab', name);
  rmSync(dataDir, { recursive: true, force: true });
  const stack = await startBenchStack({ dataDir, say: (m: string) => say(`${name}: ${m}`) });
  const sql = createSql(stack.databaseUrl, { max: 2 });
  const base = stack.baseUrl;
  const j = (method: string, p: string, body?: unknown, headers: Record<string, string> = {}) =>
    json(base, method, p, body, headers);
  const auths: Record<string, string>[] = [];
  for (let a = 0; a < Number(process.env.ACCOUNTS ?? 1); a++) {
    const su = await j('POST', '/api/auth/signup', {
      email: `cpuw-${a}-${Date.now()}@example.test`,
      password: 'Bench-Horse-42-correct',
    });
    const cookie = su.headers
      .getSetCookie()
      .find((c) => c.includes('_session='))!
      .split(';')[0]!;
    const userId = su.body.user.id;
    const k = await j('POST', '/api/v1/keys', { name: 'cpuw' }, { cookie });
    auths.push({ authorization: `Bearer ${k.body.key}` });
    await grantTokens(sql, { userId, source: 'payg_purchase', amount: 1_000_000, reference: `bench:${userId}` });
  }
  const auth = auths[0]!;
  let turn = 0;
  await sql.end();
  const list = await j('GET', '/api/v1/garments?category=t-shirts&limit=10', undefined, auth);
  const garment = list.body.garments[0];
  const colors = garment.colors.filter((c: any) => c.available);
  const upload = async (tag: string) => {
    const form = new FormData();
    form.append('file', new Blob([pngVariant(design, `cpuw ${tag} ${Math.random()}`)], { type: 'image/png' }), 'd.png');
    const res = await fetch(`${base}/api/v1/upload`, { method: 'POST', headers: auth, body: form });
    const b: any = await res.json();
    if (res.status !== 201) throw new Error(`upload ${res.status} ${JSON.stringify(b)}`);
    for (let i = 0; i < 600; i++) {
      const r2 = await fetch(`${base}/api/v1/uploads/${b.id}`, { headers: auth });
      if (r2.status === 404) break;
      const b2: any = await r2.json().catch(() => ({}));
      if (b2.analyzedAt) break;
      await sleep(100);
    }
    return b.url as string;
  };
  const main = await upload('main');
  const item0 = { garmentId: garment.id, garmentImageUrl: garment.colors[0].imageUrl };
  const gen = async (scale: number, designUrl = main) => {
    const r = await j(
      'POST',
      '/api/v1/generate',
      { designUrl, ...item0, placement: { x: 50, y: 35, scale, rotation: 0 } },
      auths[++turn % auths.length]!,
    );
    if (r.status !== 200 || r.body.status !== 'completed')
      throw new Error(`generate ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`);
  };
  const batch = async (scale: number) => {
    const res = await j(
      'POST',
      '/api/v1/generate/batch',
      {
        designUrl: main,
        placement: { x: 50, y: 35, scale },
        items: colors.map((c: any) => ({ garmentId: garment.id, garmentImageUrl: c.imageUrl })),
      },
      auth,
    );
    if (res.status !== 200) throw new Error(`batch ${res.status}`);
    return res.body.generations.length as number;
  };
  return { name, stack, cpuByGroup, gen, batch, upload, pid: stack.pids.worker as number };
}

async function main() {
  const sides = [];
  for (const [n, r] of SIDES) sides.push(await side(n, r));
  const acc: any = {};
  const add = (s: string, phase: string, mockups: number, c0: any, c1: any, th0: any, th1: any) => {
    const a = ((acc[phase] ??= {})[s] ??= { mockups: 0, cpu: {}, threads: {} });
    a.mockups += mockups;
    for (const g of Object.keys(c1)) a.cpu[g] = (a.cpu[g] ?? 0) + c1[g] - (c0[g] ?? 0);
    for (const g of Object.keys(th1)) a.threads[g] = (a.threads[g] ?? 0) + th1[g] - (th0[g] ?? 0);
  };
  const windows: any = {};
  const measure = async (s: any, phase: string, fn: () => Promise<number>) => {
    const c0 = s.cpuByGroup(s.stack.pids),
      th0 = threads(s.pid),
      t0 = mono();
    const n = await fn();
    const t1 = mono();
    add(s.name, phase, n, c0, s.cpuByGroup(s.stack.pids), th0, threads(s.pid));
    ((windows[s.name] ??= {})[phase] ??= []).push([t0, t1]);
  };
  // warm-up on each
  for (const s of sides) {
    for (let i = 0; i < 6; i++) await s.gen(0.9 + i * 0.002);
    await s.batch(0.5);
  }
  // fresh designs for the new-design block, uploaded ahead
  const fresh: Record<string, string[]> = {};
  for (const s of sides) {
    fresh[s.name] = [];
    for (let i = 0; i < ROUNDS * 2; i++) fresh[s.name]!.push(await s.upload('v' + i));
  }
  await sleep(2000);
  let seq = 0;
  for (let r = 0; r < ROUNDS; r++) {
    const order = r % 2 ? [...sides].reverse() : sides;
    for (const s of order) {
      await measure(s, 'size', async () => {
        for (let i = 0; i < BLOCK; i++) await s.gen(0.7 + ((seq + i) % 64) * 0.002);
        return BLOCK;
      });
      await measure(s, 'design', async () => {
        for (let i = 0; i < 2; i++) await s.gen(0.8, fresh[s.name]![r * 2 + i]);
        return 2;
      });
      await measure(s, 'batch', async () => s.batch(0.6 + r * 0.003));
      await measure(s, 'idle', async () => {
        await sleep(2000);
        return 1;
      });
    }
    seq += BLOCK;
    say(`round ${r + 1}/${ROUNDS}`);
  }
  for (const s of sides) await s.stack.stop();
  const table: any = {};
  for (const [phase, bySide] of Object.entries<any>(acc))
    for (const [s, a] of Object.entries<any>(bySide)) {
      const per = (v: number) => Math.round((v / a.mockups) * 10) / 10;
      table[`${phase} ${s}`] = {
        n: a.mockups,
        worker: per(a.cpu.worker),
        api: per(a.cpu.api),
        pg: per(a.cpu.postgres),
        temporal: per(a.cpu.temporal),
        ...Object.fromEntries(
          Object.entries<number>(a.threads)
            .map(([k, v]) => [k.slice(0, 10), per(v)])
            .filter(([, v]) => v),
        ),
      };
    }
  console.table(table);
  writeFileSync(
    OUT,
    JSON.stringify({ acc, windows, pids: Object.fromEntries(sides.map((s) => [s.name, s.pid])) }, null, 1),
  );
}
main().catch((e) => {
  console.error(e);
  process.exit(1);
});
