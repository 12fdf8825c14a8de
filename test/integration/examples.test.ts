// examples/fetch.mjs and examples/curl.sh run against the stack, so they cannot rot: each must finish every step
// (upload, analyze, generate sync and async with polling, batch, list with cursors, a verified callback) and what
// it reports must match what the API holds.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { account, createKey, http } from '../helpers/http';
import { startCallbackReceiver, type CallbackReceiver } from '../helpers/receiver';
import { useStack } from '../helpers/stack';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../..');

type Step = { step: string } & Record<string, any>;
const steps = (stdout: string): Map<string, Step> =>
  new Map(
    stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Step)
      .map((s) => [s.step, s]),
  );

describe('examples/ (plain fetch and curl) against the stack', () => {
  const stack = useStack('examples', { env: { ALLOW_PRIVATE_URLS: 'true' } });
  let receiver: CallbackReceiver;
  let designFile: string;

  before(async () => {
    receiver = await startCallbackReceiver();
    const dir = mkdtempSync(path.join(tmpdir(), 'examples-'));
    designFile = path.join(dir, 'logo.png');
    writeFileSync(
      designFile,
      await sharp({ create: { width: 500, height: 400, channels: 4, background: '#0033a0' } })
        .png()
        .toBuffer(),
    );
  });
  after(async () => {
    await receiver?.close();
  });

  /** Every step ran, and the ids it listed are exactly the generations the key can see. */
  async function checkRun(out: Map<string, Step>, key: string, expectedCount: number, madeAfterList: string) {
    for (const s of ['upload', 'analyze', 'generate', 'generate-async', 'batch', 'list', 'done'])
      assert.ok(out.has(s), `step ${s} ran`);
    assert.match(out.get('upload')!.id, /^upl_/);
    assert.equal(out.get('generate')!.status, 'completed');
    assert.equal(out.get('generate')!.livemode, false, 'a test key was used');
    assert.ok(['pending', 'processing'].includes(out.get('generate-async')!.acceptedStatus));
    assert.equal(out.get('generate-async')!.status, 'completed');
    assert.deepEqual(out.get('batch')!.statuses, ['completed', 'completed']);
    const api = await http(stack.baseUrl, 'GET', '/api/v1/generations?limit=100', { key });
    const held = api.body.generations.map((g: any) => g.id).filter((id: string) => id !== madeAfterList);
    assert.equal(out.get('list')!.count, expectedCount);
    assert.deepEqual([...out.get('list')!.ids].sort(), [...held].sort());
    assert.equal(new Set(out.get('list')!.ids).size, expectedCount, 'pages do not repeat');
  }

  it('examples/fetch.mjs: every step, and a callback received and verified', async () => {
    const acct = await account(stack.baseUrl);
    const test = await createKey(stack.baseUrl, acct.cookie, { name: 'example', mode: 'test' });
    const secret = (await http(stack.baseUrl, 'GET', '/api/v1/webhooks/secret', { cookie: acct.cookie })).body.secret;
    const { stdout } = await run(process.execPath, [path.join(ROOT, 'examples/fetch.mjs')], {
      env: {
        PATH: process.env.PATH,
        MOCKUP_BASE_URL: stack.baseUrl,
        MOCKUP_API_KEY: test.key,
        MOCKUP_DESIGN: designFile,
        MOCKUP_WEBHOOK_SECRET: secret,
        MOCKUP_CALLBACK_HOST: '127.0.0.1',
      },
      timeout: 240_000,
    });
    const out = steps(stdout);
    const cb = out.get('callback')!;
    // 4 generations listed before the callback's own
    await checkRun(out, test.key, 4, cb.id);
    assert.equal(cb.verified, true);
    assert.equal(cb.event, 'generation.completed');
    assert.equal(cb.livemode, false);
    assert.match(cb.deliveryId, /^dlv_/);
  });

  it('examples/curl.sh: every step; its verify command accepts a real callback and refuses a tampered one', async () => {
    const acct = await account(stack.baseUrl);
    const test = await createKey(stack.baseUrl, acct.cookie, { name: 'example', mode: 'test' });
    const { stdout } = await run('bash', [path.join(ROOT, 'examples/curl.sh')], {
      env: {
        PATH: process.env.PATH,
        MOCKUP_BASE_URL: stack.baseUrl,
        MOCKUP_API_KEY: test.key,
        MOCKUP_DESIGN: designFile,
        MOCKUP_WEBHOOK_URL: receiver.url,
      },
      timeout: 240_000,
    });
    const out = steps(stdout);
    const requested = out.get('callback-requested')!;
    await checkRun(out, test.key, 4, requested.id);
    const req = await receiver.waitFor(requested.id);
    const secret = (await http(stack.baseUrl, 'GET', '/api/v1/webhooks/secret', { cookie: acct.cookie })).body.secret;
    const dir = mkdtempSync(path.join(tmpdir(), 'callback-'));
    const bodyFile = path.join(dir, 'body.json');
    writeFileSync(bodyFile, req.body);
    const header = String(req.headers['x-mockup-signature']);
    const ok = await run('bash', [path.join(ROOT, 'examples/curl.sh'), 'verify', bodyFile, header, secret]);
    assert.equal(ok.stdout.trim(), 'valid');
    const tampered = path.join(dir, 'tampered.json');
    writeFileSync(tampered, req.body.toString('utf8').replace('"completed"', '"failed"'));
    await assert.rejects(run('bash', [path.join(ROOT, 'examples/curl.sh'), 'verify', tampered, header, secret]));
    await assert.rejects(
      run('bash', [path.join(ROOT, 'examples/curl.sh'), 'verify', bodyFile, header, 'whsec_' + '1'.repeat(64)]),
    );
  });
});
