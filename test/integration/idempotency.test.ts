// Idempotency-Key on POST /api/v1/generate, /generate/batch and /upload: a retry with the
// same key and body replays the first answer without new work or charge; another body is 409
// idempotency_conflict; a key whose request is still running is 409 idempotency_key_in_use; keys are the account's.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { insertAndChargeGenerations } from '../../db/generation-inserts';
import { claimIdempotencyKey, IdempotencyKeyLost } from '../../db/idempotency';
import { debitTokens, grantTokens, tokenBalance } from '../../db/ledger';
import { randomSuffix } from '../../lib/ids';
import { maintenanceSweep } from '../../workflows';
import { backdateIdempotencyKey, idempotencyKeyStored, ownedRowCounts } from '../helpers/db-inspect';
import { account, http, type HttpResult } from '../helpers/http';
import { startStack, storeDesign, type Stack } from '../helpers/stack';

const REPLAYED = 'idempotent-replayed';

describe('Idempotency-Key (POST /generate, /generate/batch, /upload)', function () {
  this.timeout(240_000);
  let stack: Stack;
  let acct: Awaited<ReturnType<typeof account>>;
  let garment: any;
  let designUrl: string;
  let design: Buffer;
  let origin: Server;
  let originUrl: string;
  /** Requests for /held/... wait here until the test lets them go. */
  const held = new Map<string, { res: ServerResponse; arrived: () => void }>();

  before(async () => {
    stack = await startStack('idempotency', { env: { ALLOW_PRIVATE_URLS: 'true' } });
    acct = await account(stack.baseUrl);
    const list = await http(stack.baseUrl, 'GET', '/api/v1/garments?category=t-shirts&limit=1', { key: acct.key });
    garment = list.body.garments[0];
    design = await sharp({
      create: { width: 600, height: 300, channels: 4, background: { r: 220, g: 20, b: 20, alpha: 1 } },
    })
      .png()
      .toBuffer();
    designUrl = await storeDesign(stack, design);
    // A design host whose /held/<name>.png answers only when the test releases it: the generation's workflow is
    // then provably running (charged, key held) while the test sends its retries.
    origin = createServer((req: IncomingMessage, res: ServerResponse) => {
      const name = req.url!.split('?')[0]!;
      if (name.startsWith('/held/')) {
        const h = held.get(name);
        if (h) {
          h.res = res;
          h.arrived();
          return;
        }
      }
      res.writeHead(200, { 'content-type': 'image/png' }).end(design);
    });
    await new Promise<void>((r) => origin.listen(0, '127.0.0.1', () => r()));
    originUrl = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`;
  });
  after(async () => {
    for (const h of held.values()) h.res?.writeHead(200, { 'content-type': 'image/png' }).end(design);
    origin?.close();
    await stack?.stop();
  });

  /** A design URL that is held until release(name); `arrived` resolves when the worker asks for it. */
  function holdDesign(): { url: string; arrived: Promise<void>; release: () => void } {
    const name = `/held/${randomSuffix()}.png`;
    let arrived!: () => void;
    const p = new Promise<void>((r) => (arrived = r));
    held.set(name, { res: undefined as unknown as ServerResponse, arrived });
    return {
      url: `${originUrl}${name}`,
      arrived: p,
      release: () => {
        const h = held.get(name)!;
        held.delete(name);
        h.res.writeHead(200, { 'content-type': 'image/png' }).end(design);
      },
    };
  }

  const body = (over: Record<string, unknown> = {}) => ({
    designUrl,
    garmentId: garment.id,
    garmentImageUrl: garment.colors[0].imageUrl,
    ...over,
  });
  const post = (path: string, json: unknown, idem: string | undefined, k = acct.key, headers = {}) =>
    http(stack.baseUrl, 'POST', path, {
      key: k,
      json,
      headers: { ...headers, ...(idem !== undefined ? { 'idempotency-key': idem } : {}) },
    });
  const generations = async (userId: string) => (await ownedRowCounts(userId, ['generations'])).generations;
  const uploads = async (userId: string) => (await ownedRowCounts(userId, ['uploads'])).uploads;
  /** `replay` is `first` again, marked as a replay (`first` itself was one when it was a recovered answer). */
  const assertReplayOf = (replay: HttpResult, first: HttpResult, firstWasRecovered = false) => {
    assert.equal(replay.status, first.status, replay.text);
    assert.equal(replay.headers.get(REPLAYED), 'true');
    assert.equal(first.headers.get(REPLAYED), firstWasRecovered ? 'true' : null);
    assert.equal(replay.text, first.text, 'the same body, byte for byte');
    for (const h of ['content-type', 'location', 'x-tokens-remaining', 'preference-applied'])
      assert.equal(replay.headers.get(h), first.headers.get(h), h);
  };

  describe('POST /generate', () => {
    it('a retry with the same key and body replays the first answer: one generation, one token', async () => {
      const before = await tokenBalance(stack.sql, acct.userId);
      const n = await generations(acct.userId);
      const k = randomUUID();
      const first = await post('/api/v1/generate', body(), k);
      assert.equal(first.status, 200, first.text);
      assert.equal(first.body.status, 'completed');
      const again = await post('/api/v1/generate', body(), k);
      assertReplayOf(again, first);
      const third = await post('/api/v1/generate', body(), k);
      assertReplayOf(third, first);
      assert.equal(await generations(acct.userId), n + 1);
      assert.equal(await tokenBalance(stack.sql, acct.userId), before - 1);
      // without a key, the same body is a new generation
      const plain = await post('/api/v1/generate', body(), undefined);
      assert.equal(plain.status, 200, plain.text);
      assert.notEqual(plain.body.id, first.body.id);
      assert.equal(await tokenBalance(stack.sql, acct.userId), before - 2);
    });

    it('replays a 202 (Prefer: respond-async) with its Location and Preference-Applied', async () => {
      const k = randomUUID();
      const prefer = { prefer: 'respond-async' };
      const first = await post('/api/v1/generate', body(), k, acct.key, prefer);
      assert.equal(first.status, 202, first.text);
      assert.ok(first.headers.get('location'));
      const again = await post('/api/v1/generate', body(), k, acct.key, prefer);
      assertReplayOf(again, first);
      assert.equal(again.body.id, first.body.id);
    });

    it('the same key with another body is 409 idempotency_conflict, charging nothing', async () => {
      const k = randomUUID();
      const first = await post('/api/v1/generate', body(), k);
      assert.equal(first.status, 200, first.text);
      const before = await tokenBalance(stack.sql, acct.userId);
      const n = await generations(acct.userId);
      const other = await post('/api/v1/generate', body({ placement: { scale: 0.3 } }), k);
      assert.equal(other.status, 409, other.text);
      assert.equal(other.body.error.code, 'idempotency_conflict');
      assert.match(other.body.error.message, /different request/);
      // another route with the same key is another request too
      const upload = await post('/api/v1/upload', { imageData: design.toString('base64') }, k);
      assert.equal(upload.status, 409, upload.text);
      assert.equal(upload.body.error.code, 'idempotency_conflict');
      assert.equal(await generations(acct.userId), n);
      assert.equal(await tokenBalance(stack.sql, acct.userId), before);
    });

    it('a retry while the first is still running is 409 idempotency_key_in_use with Retry-After, then a replay', async () => {
      const before = await tokenBalance(stack.sql, acct.userId);
      const hold = holdDesign();
      const k = randomUUID();
      const firstP = post('/api/v1/generate', body({ designUrl: hold.url }), k);
      await hold.arrived; // charged, workflow running, key held
      const during = await post('/api/v1/generate', body({ designUrl: hold.url }), k);
      assert.equal(during.status, 409, during.text);
      assert.equal(during.body.error.code, 'idempotency_key_in_use');
      assert.ok(Number(during.headers.get('retry-after')) >= 1);
      hold.release();
      const first = await firstP;
      assert.equal(first.status, 200, first.text);
      const after = await post('/api/v1/generate', body({ designUrl: hold.url }), k);
      assertReplayOf(after, first);
      assert.equal(await tokenBalance(stack.sql, acct.userId), before - 1);
    });

    it('concurrent requests with one key: one runs, the others are told it is running or get its answer', async () => {
      const before = await tokenBalance(stack.sql, acct.userId);
      const n = await generations(acct.userId);
      const k = randomUUID();
      const prefer = { prefer: 'respond-async' };
      const all = await Promise.all(
        Array.from({ length: 6 }, () => post('/api/v1/generate', body(), k, acct.key, prefer)),
      );
      const ran = all.filter((r) => r.status === 202 && r.headers.get(REPLAYED) === null);
      assert.equal(ran.length, 1, all.map((r) => `${r.status} ${r.text}`).join('\n'));
      for (const r of all) {
        if (r === ran[0]) continue;
        if (r.status === 409) assert.equal(r.body.error.code, 'idempotency_key_in_use', r.text);
        else assertReplayOf(r, ran[0]!);
      }
      assert.equal(await generations(acct.userId), n + 1);
      assert.equal(await tokenBalance(stack.sql, acct.userId), before - 1);
    });

    it('keys are per account: another account with the same key and body gets its own generation', async () => {
      const other = await account(stack.baseUrl);
      const k = randomUUID();
      const mine = await post('/api/v1/generate', body(), k);
      assert.equal(mine.status, 200, mine.text);
      const theirs = await post('/api/v1/generate', body(), k, other.key);
      assert.equal(theirs.status, 200, theirs.text);
      assert.equal(theirs.headers.get(REPLAYED), null);
      assert.notEqual(theirs.body.id, mine.body.id);
      assert.equal(await generations(other.userId), 1);
      // the dashboard's session is the same account as its keys
      const bySession = await http(stack.baseUrl, 'POST', '/api/v1/generate', {
        cookie: acct.cookie,
        json: body(),
        headers: { 'idempotency-key': k, origin: stack.baseUrl },
      });
      assertReplayOf(bySession, mine);
    });

    it('an invalid Idempotency-Key is 400 invalid_request in the envelope, and nothing runs', async () => {
      const n = await generations(acct.userId);
      for (const bad of ['', 'a'.repeat(256), 'has space', 'tab\there', 'caf\u00e9']) {
        const res = await post('/api/v1/generate', body(), bad);
        assert.equal(res.status, 400, `${JSON.stringify(bad)}: ${res.text}`);
        assert.equal(res.body.error.code, 'invalid_request');
        assert.match(res.body.error.message, /Idempotency-Key/);
        assert.equal(res.body.error.details.header, 'Idempotency-Key');
      }
      const longest = await post('/api/v1/generate', body(), `${'k'.repeat(254)}!`);
      assert.equal(longest.status, 200, longest.text);
      assert.equal(await generations(acct.userId), n + 1);
    });

    it('an error answer is not stored: after a 404 or a 402 the key runs again, with the same body or another', async () => {
      const k = randomUUID();
      const missing = await post('/api/v1/generate', body({ garmentId: 'no-such-garment' }), k);
      assert.equal(missing.status, 404, missing.text);
      const fixed = await post('/api/v1/generate', body(), k);
      assert.equal(fixed.status, 200, fixed.text);
      assert.equal(fixed.headers.get(REPLAYED), null);

      // an empty account: 402, then the same request after a top-up runs
      const poor = await account(stack.baseUrl);
      const drained = await debitTokens(stack.sql, poor.userId, [
        { reference: `test-drain-${randomSuffix()}`, amount: await tokenBalance(stack.sql, poor.userId) },
      ]);
      assert.ok(drained.ok);
      const k2 = randomUUID();
      const refused = await post('/api/v1/generate', body(), k2, poor.key);
      assert.equal(refused.status, 402, refused.text);
      assert.equal(refused.body.error.code, 'insufficient_tokens');
      await grantTokens(stack.sql, {
        userId: poor.userId,
        source: 'payg_purchase',
        amount: 1,
        expiresAt: null,
        reference: `test-topup-${randomSuffix()}`,
      });
      const paid = await post('/api/v1/generate', body(), k2, poor.key);
      assert.equal(paid.status, 200, paid.text);
      assert.equal(paid.headers.get(REPLAYED), null);
      assert.equal(paid.headers.get('x-tokens-remaining'), '0');
      assertReplayOf(await post('/api/v1/generate', body(), k2, poor.key), paid);
    });

    it('a key past its 24 hours runs again; the maintenance sweep purges such keys', async () => {
      const k = randomUUID();
      const first = await post('/api/v1/generate', body(), k);
      assert.equal(first.status, 200, first.text);
      await backdateIdempotencyKey(acct.userId, k, { created: '25 hours', expires: '1 hour' });
      const later = await post('/api/v1/generate', body(), k);
      assert.equal(later.status, 200, later.text);
      assert.equal(later.headers.get(REPLAYED), null);
      assert.notEqual(later.body.id, first.body.id);
      // and its new answer replays
      assertReplayOf(await post('/api/v1/generate', body(), k), later);

      await backdateIdempotencyKey(acct.userId, k, { expires: '1 second' });
      const sweep = await stack.client.workflow.execute(maintenanceSweep, {
        workflowId: `maintenance-idempotency-${randomSuffix(6)}`,
        taskQueue: stack.taskQueue,
      });
      assert.ok(sweep.idempotencyKeysPurged >= 1, JSON.stringify(sweep));
      assert.equal(await idempotencyKeyStored(acct.userId, k), false);
    });

    it('a key whose request charged and then lost its lock (a dead API) answers from what it created, charging nothing', async () => {
      const before = await tokenBalance(stack.sql, acct.userId);
      const n = await generations(acct.userId);
      const hold = holdDesign();
      const k = randomUUID();
      const firstP = post('/api/v1/generate', body({ designUrl: hold.url }), k);
      await hold.arrived;
      // as if the API process running the first request had died: its lock has run out
      await backdateIdempotencyKey(acct.userId, k, { lockedUntil: '1 second' });
      const recovered = await post('/api/v1/generate', body({ designUrl: hold.url }), k);
      assert.equal(recovered.status, 202, recovered.text);
      assert.equal(recovered.headers.get(REPLAYED), 'true');
      assert.match(recovered.headers.get('location') ?? '', new RegExp(`/api/v1/generations/${recovered.body.id}$`));
      hold.release();
      const first = await firstP; // its own client still gets its answer
      assert.equal(first.status, 200, first.text);
      assert.equal(first.body.id, recovered.body.id, 'the same generation');
      // the recovered answer is the key's answer from now on
      assertReplayOf(await post('/api/v1/generate', body({ designUrl: hold.url }), k), recovered, true);
      assert.equal(await generations(acct.userId), n + 1);
      assert.equal(await tokenBalance(stack.sql, acct.userId), before - 1);
    });

    it('a request whose key was taken over charges nothing (the charge checks the lock in its transaction)', async () => {
      const k = randomUUID();
      const claim = (fp: Buffer) =>
        claimIdempotencyKey(stack.sql, {
          accountId: acct.userId,
          key: k,
          fingerprint: fp,
          ttlMs: 86_400_000,
          lockMs: 60_000,
        });
      const fp = Buffer.alloc(32, 7);
      const a = await claim(fp);
      assert.equal(a.kind, 'acquired');
      assert.equal((await claim(fp)).kind, 'in_flight');
      await backdateIdempotencyKey(acct.userId, k, { lockedUntil: '1 second' });
      const b = await claim(fp);
      assert.equal(b.kind, 'acquired');
      const before = await tokenBalance(stack.sql, acct.userId);
      const n = await generations(acct.userId);
      const row = {
        id: `gen_${Date.now()}_${randomSuffix(6)}`,
        garmentId: garment.id,
        color: garment.colors[0].name,
        zone: 'front',
        garmentImageUrl: garment.colors[0].imageUrl,
        webhookUrl: null,
        job: {
          userId: acct.userId,
          designUrl,
          blankKey: 'x',
          zone: { x: 0.3, y: 0.2, width: 0.4, height: 0.5 },
          placement: { x: 50, y: 50, scale: 0.5, rotation: 0 },
          applyTexture: true,
        },
      };
      await assert.rejects(
        insertAndChargeGenerations(stack.sql, {
          userId: acct.userId,
          apiKeyId: null,
          batchId: null,
          rows: [row],
          idempotency: (a as { ref: any }).ref,
        }),
        IdempotencyKeyLost,
      );
      assert.equal(await tokenBalance(stack.sql, acct.userId), before);
      assert.equal(await generations(acct.userId), n);
    });
  });

  describe('POST /generate/batch', () => {
    it('a retry replays the batch: one batch, its tokens once', async () => {
      const before = await tokenBalance(stack.sql, acct.userId);
      const n = await generations(acct.userId);
      const k = randomUUID();
      const [c0, c1] = garment.colors;
      const batch = { designUrl, garmentId: garment.id, items: [{ color: c0.name }, { color: c1.name }] };
      const first = await post('/api/v1/generate/batch', batch, k);
      assert.equal(first.status, 200, first.text);
      const again = await post('/api/v1/generate/batch', batch, k);
      assertReplayOf(again, first);
      assert.equal(again.body.batchId, first.body.batchId);
      assert.equal(await generations(acct.userId), n + 2);
      assert.equal(await tokenBalance(stack.sql, acct.userId), before - 2);
      const other = await post('/api/v1/generate/batch', { ...batch, items: [{ color: c0.name }] }, k);
      assert.equal(other.status, 409, other.text);
      assert.equal(other.body.error.code, 'idempotency_conflict');
    });
  });

  describe('POST /upload', () => {
    it('a retry replays the upload, in either form: the fingerprint is the image', async () => {
      const n = await uploads(acct.userId);
      const k = randomUUID();
      const form = () => {
        const f = new FormData();
        f.append('file', new Blob([new Uint8Array(design)], { type: 'image/png' }), 'design.png');
        return f;
      };
      const upload = (b: FormData) =>
        http(stack.baseUrl, 'POST', '/api/v1/upload', { key: acct.key, body: b, headers: { 'idempotency-key': k } });
      const first = await upload(form());
      assert.equal(first.status, 201, first.text);
      assertReplayOf(await upload(form()), first); // another multipart boundary, the same image
      assertReplayOf(await post('/api/v1/upload', { imageData: design.toString('base64') }, k), first);
      assert.equal(await uploads(acct.userId), n + 1);
      const otherImage = await sharp(design).negate({ alpha: false }).png().toBuffer();
      const other = await post('/api/v1/upload', { imageData: otherImage.toString('base64') }, k);
      assert.equal(other.status, 409, other.text);
      assert.equal(other.body.error.code, 'idempotency_conflict');
      assert.equal(await uploads(acct.userId), n + 1);
    });
  });
});
