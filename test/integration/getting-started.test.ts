// The getting-started routes (issue 39) over HTTP: the sample designs (the project's own PNGs), the front page's
// mockups (rendered by this service on the first request, kept in storage and never redrawn), and the onboarding
// checklist read from the account's data.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { SAMPLES } from '../../lib/samples';
import { quickStart } from '../../api/openapi/getting-started';
import { SHOWCASE } from '../../api/services/showcase';
import { createKey, http, signup } from '../helpers/http';
import { startStack, type Stack } from '../helpers/stack';
import { waitUpTo } from '../helpers/wait';

describe('Getting started: samples, showcase, onboarding', function () {
  this.timeout(120_000);
  let stack: Stack;

  before(async () => {
    stack = await startStack('getting-started');
  });
  after(async () => {
    await stack?.stop();
  });

  it('lists the three samples, signed out, each a transparent 1800 px PNG with its licence', async () => {
    const res = await http(stack.baseUrl, 'GET', '/api/samples');
    assert.equal(res.status, 200);
    assert.deepEqual(
      res.body.samples.map((s: { id: string }) => s.id),
      SAMPLES.map((s) => s.id),
    );
    for (const s of res.body.samples) {
      assert.match(s.licence, /project's own work/);
      assert.ok(s.url.startsWith(`${stack.config.publicBaseUrl}/files/samples/`), s.url);
      const file = await fetch(s.url);
      assert.equal(file.status, 200);
      assert.equal(file.headers.get('content-type'), 'image/png');
      const meta = await sharp(Buffer.from(await file.arrayBuffer())).metadata();
      assert.deepEqual([meta.format, meta.width, meta.height, meta.hasAlpha], ['png', 1800, 1800, true]);
    }
  });

  it('renders the showcase mockups once, signed out, and answers the same files afterwards', async () => {
    const first = await http(stack.baseUrl, 'GET', '/api/showcase');
    assert.equal(first.status, 200);
    assert.equal(first.body.mockups.length, SHOWCASE.length);
    for (const m of first.body.mockups) {
      const file = await fetch(m.imageUrl);
      assert.equal(file.status, 200);
      const bytes = Buffer.from(await file.arrayBuffer());
      const meta = await sharp(bytes).metadata();
      assert.equal(meta.format, 'jpeg');
      assert.deepEqual([meta.width, meta.height], [m.width, m.height]);
      assert.ok(Math.max(m.width, m.height) <= 640);
      // a mockup, not a blank: the design changed a good part of the picture (pixels off the blank by > 48)
      const { key } = await aKey();
      const garment = (await http(stack.baseUrl, 'GET', `/api/v1/garments/${m.garmentId}`, { key })).body;
      const blankUrl = garment.colors.find((c: { name: string }) => c.name === m.color).imageUrl;
      const raw = (b: Buffer) => sharp(b).resize(m.width, m.height).removeAlpha().raw().toBuffer();
      const blank = await raw(Buffer.from(await (await fetch(blankUrl)).arrayBuffer()));
      const shown = await raw(bytes);
      let changed = 0;
      for (let i = 0; i < shown.length; i += 3)
        if (
          Math.abs(shown[i]! - blank[i]!) +
            Math.abs(shown[i + 1]! - blank[i + 1]!) +
            Math.abs(shown[i + 2]! - blank[i + 2]!) >
          48
        )
          changed++;
      const share = changed / (shown.length / 3);
      assert.ok(share > 0.01, `${m.imageUrl}: only ${(share * 100).toFixed(1)} % of it differs from the blank`);
    }
    const again = await http(stack.baseUrl, 'GET', '/api/showcase');
    assert.deepEqual(again.body, first.body);
  });

  let cachedKey: { key: string } | undefined;
  async function aKey(): Promise<{ key: string }> {
    cachedKey ??= await createKey(stack.baseUrl, (await signup(stack.baseUrl)).cookie);
    return cachedKey;
  }

  it("answers the onboarding checklist from the account's data, and 401 signed out", async () => {
    assert.deepEqual((await http(stack.baseUrl, 'GET', '/api/onboarding')).body, { error: 'Unauthorized' });
    const { cookie } = await signup(stack.baseUrl);
    const done = async () =>
      Object.fromEntries(
        (await http(stack.baseUrl, 'GET', '/api/onboarding', { cookie })).body.steps.map(
          (s: { id: string; done: boolean }) => [s.id, s.done],
        ),
      );
    assert.deepEqual(await done(), { mockup: false, key: false, api_call: false, store: false });
    const { key } = await createKey(stack.baseUrl, cookie);
    assert.deepEqual(await done(), { mockup: false, key: true, api_call: false, store: false });
    assert.equal((await http(stack.baseUrl, 'GET', '/api/v1/garments?limit=1', { key })).status, 200);
    // the request log is written just after the answer
    await waitUpTo(async () => (await done()).api_call, { ms: 15_000, every: 200 });
    assert.deepEqual(await done(), { mockup: false, key: true, api_call: true, store: false });
  });

  it("runs the API reference's quick start as written: a sample uploaded with curl becomes a mockup", async () => {
    const { key } = await aKey();
    const doc = await http(stack.baseUrl, 'GET', '/api/v1/openapi.json');
    const text: string = doc.body.info.description;
    assert.ok(text.includes(quickStart(stack.config.publicBaseUrl)), 'the reference carries the quick start');
    const script = /```sh\n([\s\S]*?)```/.exec(quickStart(stack.config.publicBaseUrl))![1]!;
    assert.match(script, /^KEY=<your key>$/m);
    const dir = mkdtempSync(path.join(tmpdir(), 'quick-start-'));
    const { stdout } = await promisify(execFile)(
      'bash',
      ['-euo', 'pipefail', '-c', script.replace('KEY=<your key>', `KEY=${key}`)],
      { cwd: dir, timeout: 60_000 },
    ).finally(() => rmSync(dir, { recursive: true, force: true }));
    const generation = JSON.parse(stdout);
    assert.match(generation.id, /^gen_/);
    assert.ok(['pending', 'processing', 'completed'].includes(generation.status), stdout);
  });
});
