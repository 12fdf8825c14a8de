// The bench's upload and analyze sequence (bench/run.ts section 4, quick run) on the API alone: a fresh database,
// one API (and an idle worker: the API is ready with one), rounds of 2 multipart uploads, 1 JSON upload, 2 analyses by imageUrl (the round's first
// upload) and 1 by imageData, back to back, then an idle pause. Per call: wall time and the API's CPU (all its
// threads, /proc/<pid>/stat) while it ran; per round: the API's CPU including the pause; the API's peak resident.
// Usage: node --import tsx bench/upload-seq.ts [rounds=6] [pauseMs=1500]
import { rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { makeBenchDesign } from './compositing';
import { sleep } from '../test/helpers/wait';
import { bodyOf, pngVariant } from './lib';
import { memoryOf, readProcStat, startCluster } from './stack';

const rounds = Number(process.argv[2] ?? 6);
const pauseMs = Number(process.argv[3] ?? 1500);
const cpuMs = (pid: number): number => readProcStat(`/proc/${pid}/stat`).cpuMs;

async function call(base: string, p: string, init: RequestInit): Promise<{ status: number; body: any }> {
  const res = await fetch(base + p, init);
  return { status: res.status, body: await bodyOf(res) };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

async function main() {
  const dataDir = path.join(os.tmpdir(), `upload-seq-${process.pid}`);
  const c = await startCluster({ dataDir, say: () => {}, workers: 1 });
  try {
    const api = c.apis[0]!;
    const pid = api.pid!;
    const base = c.baseUrl;
    const email = `seq-${process.pid}@example.test`;
    const signup = await fetch(`${base}/api/auth/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password: 'Bench-Horse-42-correct' }),
    });
    const cookie = signup.headers
      .getSetCookie()
      .find((x) => x.includes('_session='))!
      .split(';')[0]!;
    const k = await call(base, '/api/v1/keys', {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie },
      body: JSON.stringify({ name: 'seq' }),
    });
    const auth = { authorization: `Bearer ${k.body.key}` };
    const design = await makeBenchDesign();
    const calls: Record<string, { ms: number[]; cpu: number[] }> = {};
    const roundCpu: number[] = [];
    const timed = async (name: string, f: () => Promise<{ status: number; body: any }>) => {
      const c0 = cpuMs(pid);
      const t0 = performance.now();
      const r = await f();
      const ms = performance.now() - t0;
      const cpu = cpuMs(pid) - c0;
      if (r.status >= 300) throw new Error(`${name}: ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`);
      (calls[name] ??= { ms: [], cpu: [] }).ms.push(ms);
      calls[name].cpu.push(cpu);
      return r;
    };
    const dataUrl = `data:image/png;base64,${design.toString('base64')}`;
    await sleep(3000);
    for (let round = 0; round < rounds; round++) {
      const c0 = cpuMs(pid);
      let url = '';
      for (let i = 0; i < 2; i++) {
        const form = new FormData();
        form.append('file', new Blob([pngVariant(design, `seq ${round} ${i} ${Math.random()}`)]), 'design.png');
        const r = await timed(`upload multipart ${i + 1}`, () =>
          call(base, '/api/v1/upload', { method: 'POST', headers: auth, body: form }),
        );
        url ||= r.body.url;
      }
      const jsonBody = JSON.stringify({
        imageData: `data:image/png;base64,${pngVariant(design, `seq json ${round} ${Math.random()}`).toString('base64')}`,
      });
      const jh = { ...auth, 'content-type': 'application/json' };
      await timed('upload JSON', () => call(base, '/api/v1/upload', { method: 'POST', headers: jh, body: jsonBody }));
      for (let i = 0; i < 2; i++)
        await timed(`analyze imageUrl ${i + 1}`, () =>
          call(base, '/api/v1/analyze', { method: 'POST', headers: jh, body: JSON.stringify({ imageUrl: url }) }),
        );
      await timed('analyze imageData', () =>
        call(base, '/api/v1/analyze', { method: 'POST', headers: jh, body: JSON.stringify({ imageData: dataUrl }) }),
      );
      await sleep(pauseMs);
      roundCpu.push(cpuMs(pid) - c0);
    }
    const mem = memoryOf(pid);
    // the first round warms up: left out of the medians
    const out: Record<string, string> = {};
    for (const [name, v] of Object.entries(calls))
      out[name] =
        `p50 ${median(v.ms.slice(1)).toFixed(0)} ms, CPU ${median(v.cpu.slice(1)).toFixed(0)} ms ` +
        `(all: ${v.ms.map((x) => x.toFixed(0)).join(' ')})`;
    out['API CPU per round'] = `${median(roundCpu.slice(1)).toFixed(0)} ms (all: ${roundCpu.join(' ')})`;
    out['API resident'] = `peak ${mem?.hwmMiB} MiB, now ${mem?.rssMiB} MiB; load ${os.loadavg()[0]!.toFixed(2)}`;
    console.log(JSON.stringify(out, null, 1));
  } finally {
    await c.stop();
    rmSync(dataDir, { recursive: true, force: true }); // ~300 MB of database and files a run
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
