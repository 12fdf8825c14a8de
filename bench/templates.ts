// Template import benchmark (docs/templates.md, issue 32): through the API of a stack started like npm start, a
// ~50 MB PSD (a noisy photo, a smart object, two layers above) imported end to end (POST with Prefer: respond-async
// until GET says ready; target <= 10 s), and a ~200 MB PSB, with the worker's peak resident memory during each
// import (VmHWM, reset before it). Run: node --import tsx bench/templates.ts. Writes bench/results/templates.json.
// Not yet here: the render phase (generate on a ready template vs a flat paste), which needs generate on templates.
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { mockupPsd } from '../test/helpers/psd';
import { machineInfo } from './lib';
import { memoryOf, resetPeak, startBenchStack } from './stack';

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
    const keyRes = await fetch(`${base}/api/v1/keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie },
      body: JSON.stringify({ name: 'bench' }),
    });
    auth = { authorization: `Bearer ${((await keyRes.json()) as { key: string }).key}` };

    const cases = [
      { name: 'psd-50mb', opts: { width: 3000, height: 2200, psb: false } },
      { name: 'psb-200mb', opts: { width: 5600, height: 4500, psb: true } },
    ];
    for (const c of cases) {
      try {
        await importCase(c);
      } catch (err) {
        say(`${c.name}: failed: ${(err as Error).message}`);
        out[c.name] = { error: (err as Error).message };
      }
    }
  } finally {
    await stack.stop();
  }
  mkdirSync(path.dirname(RESULTS), { recursive: true });
  writeFileSync(RESULTS, JSON.stringify(out, null, 2));
  console.log(JSON.stringify(out, null, 2));

  async function importCase(c: { name: string; opts: { width: number; height: number; psb: boolean } }) {
    const file = mockupPsd({
      ...c.opts,
      noise: true,
      quad: [900, 700, 2100, 760, 2050, 1800, 950, 1750],
      content: { width: 1200, height: 1100 },
    });
    say(`${c.name}: ${(file.length / 1024 ** 2).toFixed(1)} MiB`);
    const pid = stack.pids.worker;
    const peakReset = pid !== undefined && resetPeak(pid);
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(file)]), `${c.name}.${c.opts.psb ? 'psb' : 'psd'}`);
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
    const row = {
      fileMiB: Math.round((file.length / 1024 ** 2) * 10) / 10,
      status: now.status,
      error: now.error,
      acceptedMs: Math.round(accepted),
      readyMs: Math.round(total),
      workerPeakMiB: peakReset ? mem?.hwmMiB : null,
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
