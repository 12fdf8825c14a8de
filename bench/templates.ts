// Template import benchmark (docs/templates.md, issue 32): through the API of a stack started like npm start, a
// ~50 MB PSD (a noisy photo, a smart object, two layers above) imported end to end (POST with Prefer: respond-async
// until GET says ready; target <= 10 s), and a ~200 MB PSB, with the worker's peak resident memory during each
// import (VmHWM, reset before it). Then the render phase: POST /generate on a ready 2000x2000 template with one smart
// object and two layers above (target: e2e p50 <= 150 ms), and in the same run, alternating, a flat paste of the same
// design through the same rectangle (POST /generate on a catalogue blank with printArea = the smart object's box;
// target: the template's p50 <= 0.6x the paste's). Run: node --import tsx bench/templates.ts (BENCH_TEMPLATE_PHASES=
// render for that phase alone). Writes bench/results/templates.json.
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createSql } from '../db/client';
import { grantTokens } from '../db/ledger';
import { mockupPsd } from '../test/helpers/psd';
import { machineInfo, templateBenchDesign } from './lib';
import { cpuByGroup, memoryOf, resetPeak, startBenchStack } from './stack';

const RESULTS = path.join(__dirname, 'results', 'templates.json');
const say = (m: string) => process.stderr.write(`[bench:templates] ${m}\n`);

async function main() {
  const stack = await startBenchStack({ dataDir: path.join(__dirname, '..', '.data', 'bench-templates'), say });
  const out: Record<string, unknown> = { machine: machineInfo(), measuredUnderLoad: true };
  let base = '';
  let auth: Record<string, string> = {};
  try {
    base = stack.baseUrl;
    const signup = await fetch(`${base}/api/auth/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        email: `bench-${randomBytes(4).toString('hex')}@example.test`,
        password: 'Correct-Horse-42',
      }),
    });
    const cookie = signup.headers.getSetCookie()[0]!.split(';')[0]!;
    const userId = ((await signup.json()) as { user: { id: string } }).user.id;
    // the render phase's generations
    const sql = createSql(stack.databaseUrl, { max: 1 });
    await grantTokens(sql, { userId, source: 'payg_purchase', amount: 10_000, reference: `bench:${userId}` });
    await sql.end();
    const keyRes = await fetch(`${base}/api/v1/keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie },
      body: JSON.stringify({ name: 'bench' }),
    });
    auth = { authorization: `Bearer ${((await keyRes.json()) as { key: string }).key}` };

    const phases = (process.env.BENCH_TEMPLATE_PHASES ?? 'import,render').split(',');
    if (phases.includes('render')) {
      try {
        await renderPhase();
      } catch (err) {
        say(`render: failed: ${(err as Error).message}`);
        out.render = { error: (err as Error).message };
      }
    }
    const only = process.env.BENCH_TEMPLATE_CASES?.split(',');
    const cases = (
      phases.includes('import')
        ? [
            { name: 'psd-50mb', opts: { width: 3600, height: 2700, psb: false } },
            { name: 'psb-200mb', opts: { width: 7200, height: 5400, psb: true } },
          ]
        : []
    ).filter((c) => !only || only.includes(c.name));
    for (const c of cases) {
      try {
        await importCase(c);
      } catch (err) {
        const cause = (err as Error & { cause?: { code?: string; message?: string } }).cause;
        say(
          `${c.name}: failed: ${(err as Error).message}${cause ? ` (${cause.code ?? ''} ${cause.message ?? ''})` : ''}`,
        );
        out[c.name] = { error: (err as Error).message };
      }
    }
  } finally {
    await stack.stop();
  }
  mkdirSync(path.dirname(RESULTS), { recursive: true });
  writeFileSync(RESULTS, JSON.stringify(out, null, 2));
  console.log(JSON.stringify(out, null, 2));

  async function renderPhase() {
    // the API with the rate limits lifted (the same worker and database), so 80 generations in a row are not 429s
    const api = stack.lifted?.baseUrl ?? base;
    const N = Number(process.env.BENCH_TEMPLATE_RENDERS ?? 40);
    // 2000x2000, one smart object in perspective (about 1000x1100 px on the template), two full-size layers above
    const quad: [number, number, number, number, number, number, number, number] = [
      500, 450, 1500, 500, 1450, 1550, 550, 1500,
    ];
    const file = mockupPsd({ width: 2000, height: 2000, quad, content: { width: 1000, height: 1000 }, layersAbove: 2 });
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(file)]), 'render-2000.psd');
    const imp = await fetch(`${api}/api/v1/templates`, { method: 'POST', headers: auth, body: form });
    let tpl = (await imp.json()) as { id: string; status: string };
    // under load the import can outlast the sync wait (202): poll until it is ready
    for (let i = 0; tpl.status === 'processing' && i < 600; i++) {
      await new Promise((r) => setTimeout(r, 200));
      tpl = (await (await fetch(`${api}/api/v1/templates/${tpl.id}`, { headers: auth })).json()) as typeof tpl;
    }
    if (tpl.status !== 'ready') throw new Error(`template import: ${imp.status} ${JSON.stringify(tpl)}`);
    // the design: a 1000x1000 PNG upload (its levels prepared at upload, as a customer's design would be)
    const png = await templateBenchDesign();
    const up = new FormData();
    up.append('file', new Blob([new Uint8Array(png)]), 'design.png');
    const upload = (await (
      await fetch(`${api}/api/v1/upload`, { method: 'POST', headers: auth, body: up })
    ).json()) as {
      url: string;
    };
    const garments = (await (await fetch(`${api}/api/v1/garments?limit=1`, { headers: auth })).json()) as {
      garments: { id: string; colors: { imageUrl: string }[] }[];
    };
    const g = garments.garments[0]!;
    // the smart object's box on a 2000x2000 image, in percent: the flat paste's print area on the blank
    const printArea = { x: 25, y: 22.5, width: 50, height: 55 };
    const generate = async (body: object) => {
      const t0 = performance.now();
      const res = await fetch(`${api}/api/v1/generate`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const j = (await res.json()) as { status?: string; error?: unknown };
      const ms = performance.now() - t0;
      if (res.status !== 200 || j.status !== 'completed')
        throw new Error(`generate: ${res.status} ${JSON.stringify(j)}`);
      return ms;
    };
    const onTemplate = { templateId: tpl.id, designUrl: upload.url };
    const paste = {
      designUrl: upload.url,
      garmentId: g.id,
      garmentImageUrl: g.colors[0]!.imageUrl,
      printArea,
      placement: { x: 50, y: 50, scale: 1, rotation: 0 },
      applyTexture: false,
    };
    // warm both paths (the worker's caches), then alternate
    for (let i = 0; i < 3; i++) {
      await generate(onTemplate);
      await generate(paste);
    }
    const a: number[] = [];
    const b: number[] = [];
    for (let i = 0; i < N; i++) {
      a.push(await generate(onTemplate));
      b.push(await generate(paste));
    }
    const pct = (xs: number[], p: number) => {
      const s = [...xs].sort((x, y) => x - y);
      return Math.round(s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]! * 10) / 10;
    };
    const row = {
      renders: N,
      template: { p50Ms: pct(a, 50), p90Ms: pct(a, 90) },
      flatPaste: { p50Ms: pct(b, 50), p90Ms: pct(b, 90) },
      ratioP50: Math.round((pct(a, 50) / pct(b, 50)) * 100) / 100,
    };
    say(`render: ${JSON.stringify(row)}`);
    out.render = row;
  }

  async function importCase(c: { name: string; opts: { width: number; height: number; psb: boolean } }) {
    const file = mockupPsd({
      ...c.opts,
      noise: true,
      quad: [900, 700, 2100, 760, 2050, 1800, 950, 1750],
      content: { width: 1200, height: 1100 },
    });
    say(`${c.name}: ${(file.length / 1024 ** 2).toFixed(1)} MiB`);
    // writing the file blocked this process's event loop for a while: let the HTTP client notice any pooled
    // connection that closed meanwhile before the upload picks one
    await new Promise((r) => setTimeout(r, 200));
    const pid = stack.pids.worker;
    const peakReset = pid !== undefined && resetPeak(pid);
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(file)]), `${c.name}.${c.opts.psb ? 'psb' : 'psd'}`);
    const cpu0 = cpuByGroup(stack.pids);
    const t0 = performance.now();
    const res = await fetch(`${base}/api/v1/templates`, {
      method: 'POST',
      headers: { ...auth, prefer: 'respond-async' },
      body: form,
    });
    const accepted = performance.now() - t0;
    const t = (await res.json()) as { id: string; status: string; error?: string; fidelity?: unknown };
    if (res.status !== 202) throw new Error(`${c.name}: ${res.status} ${JSON.stringify(t)}`);
    let now = t;
    while (now.status === 'processing') {
      await new Promise((r) => setTimeout(r, 100));
      now = (await (await fetch(`${base}/api/v1/templates/${t.id}`, { headers: auth })).json()) as typeof t;
    }
    const total = performance.now() - t0;
    const mem = pid !== undefined ? memoryOf(pid) : null;
    // CPU time of the import in the worker and the API (what load bends much less than the wall time)
    const cpu1 = cpuByGroup(stack.pids);
    const cpuMs = (g: string) => Math.round((cpu1[g] ?? 0) - (cpu0[g] ?? 0));
    const row = {
      fileMiB: Math.round((file.length / 1024 ** 2) * 10) / 10,
      status: now.status,
      error: now.error,
      acceptedMs: Math.round(accepted),
      readyMs: Math.round(total),
      workerPeakMiB: peakReset ? mem?.hwmMiB : null,
      workerCpuMs: cpuMs('worker'),
      apiCpuMs: cpuMs('api'),
      fidelity: now.fidelity,
    };
    say(`${c.name}: ${JSON.stringify(row)}`);
    out[c.name] = row;
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
