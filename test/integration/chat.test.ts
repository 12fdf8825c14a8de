// Design chat through HTTP against the real stack, with the Gemini and OpenAI SDKs pointed at local
// stand-ins that speak their wire formats (test/helpers/fake-image-providers.ts): primary success; failover on a
// 500, a timeout, a refusal and a blank graphic; both failing (500, refunded); reference images reaching the
// provider; a thread continuation carrying the previous graphic; 402; 404; 400s; 429; 202 and the job route; the
// local renderer when no key is set; a worker killed mid-job (one debit, one set of records); jobs whose workflow was terminated or never
// started (the API's answer and the chat-jobs sweep: failed, refunded once).
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import sharp from 'sharp';
import { grantTokens, tokenBalance } from '../../db/ledger';
import { randomSuffix } from '../../lib/ids';
import { chatDesign, chatJobsSweep } from '../../workflows';
import {
  GEMINI_COLOR,
  OPENAI_COLOR,
  startFakeGemini,
  startFakeOpenAI,
  type FakeProvider,
} from '../helpers/fake-image-providers';
import { account, http, type HttpResult } from '../helpers/http';
import { startStack, type Stack } from '../helpers/stack';

const GEMINI_KEY = `gem-${randomSuffix(12)}`;
const OPENAI_KEY = `sk-${randomSuffix(12)}`;
const TIMEOUT_MS = 2500; // per provider attempt: room for a loaded machine, short enough for the timeout test
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const RESULT_FIELDS = [
  'graphicUrl',
  'messageId',
  'mockups',
  'printAssetUrl',
  'threadId',
  'tokensRemaining',
  'tokensSpent',
].sort();

async function until<T>(what: string, f: () => Promise<T | undefined | false>, ms = 60_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(150);
  }
}

async function fetchImage(url: string) {
  const res = await fetch(url);
  assert.equal(res.status, 200, url);
  const body = Buffer.from(await res.arrayBuffer());
  return { body, meta: await sharp(body).metadata(), type: res.headers.get('content-type') };
}

/** Share of pixels of an image within 16 levels of a colour (alpha ignored). */
async function colorShare(img: Buffer, hex: string): Promise<number> {
  const { data, info } = await sharp(img).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const n = parseInt(hex.slice(1), 16);
  const c = [(n >> 16) & 255, (n >> 8) & 255, n & 255];
  let hit = 0;
  for (let i = 0; i < data.length; i += info.channels)
    if (Math.max(...c.map((v, k) => Math.abs(data[i + k]! - v))) <= 16) hit++;
  return hit / (data.length / info.channels);
}

/** Share of clearly blue pixels (Gemini's disc as printed on a blank: shaded, so not its exact colour). */
async function blueShare(img: Buffer): Promise<number> {
  const { data, info } = await sharp(img).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  let hit = 0;
  for (let i = 0; i < data.length; i += info.channels) {
    const [r, g, b] = [data[i]!, data[i + 1]!, data[i + 2]!];
    if (b > r + 60 && b > g + 40) hit++;
  }
  return hit / (data.length / info.channels);
}

describe('design chat: POST /api/chat and the chatDesign job', function () {
  this.timeout(180_000);
  let stack: Stack;
  let gemini: FakeProvider;
  let openai: FakeProvider;
  let origin: Server;
  let originUrl: string;
  let blanks: string[];
  const referencePng = sharp({
    create: { width: 640, height: 480, channels: 3, background: { r: 200, g: 30, b: 40 } },
  })
    .png()
    .toBuffer();

  before(async () => {
    [gemini, openai] = await Promise.all([startFakeGemini(GEMINI_KEY), startFakeOpenAI(OPENAI_KEY)]);
    const ref = await referencePng;
    origin = createServer((req, res) => {
      if (req.url === '/ref.png') res.writeHead(200, { 'content-type': 'image/png' }).end(ref);
      else if (req.url === '/not-an-image') res.writeHead(200, { 'content-type': 'text/plain' }).end('hello');
      else res.writeHead(404).end();
    });
    await new Promise<void>((r) => origin.listen(0, '127.0.0.1', () => r()));
    originUrl = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`;
    stack = await startStack('chat', {
      env: {
        ALLOW_PRIVATE_URLS: 'true',
        GEMINI_API_KEY: GEMINI_KEY,
        GEMINI_BASE_URL: gemini.baseUrl,
        GEMINI_TIMEOUT_MS: String(TIMEOUT_MS),
        OPENAI_API_KEY: OPENAI_KEY,
        OPENAI_BASE_URL: openai.baseUrl,
        OPENAI_TIMEOUT_MS: String(TIMEOUT_MS),
        CHAT_PROVIDER_ATTEMPTS: '2',
      },
    });
    const acct = await account(stack.baseUrl);
    const list = await http(stack.baseUrl, 'GET', '/api/v1/garments?limit=2', { key: acct.key });
    blanks = list.body.garments.map((g: { colors: { imageUrl: string }[] }) => g.colors[0]!.imageUrl);
    assert.equal(blanks.length, 2);
  });
  beforeEach(() => {
    gemini?.reset();
    openai?.reset();
  });
  after(async () => {
    await stack?.stop();
    await gemini?.stop();
    await openai?.stop();
    origin?.closeAllConnections();
    origin?.close();
  });

  const chat = (cookie: string, json: unknown) => http(stack.baseUrl, 'POST', '/api/chat', { cookie, json });
  const jobOf = async (userId: string) => {
    const [row] = await stack.sql<{ id: string; status: string; provider: string; attempts: any[]; failure: string }[]>`
      select id, status, provider, attempts, failure from render_jobs where user_id = ${userId}
      order by created_at desc limit 1`;
    return row!;
  };

  it('primary success: Gemini draws, the print asset and two mockups are made, everything is recorded', async () => {
    const acct = await account(stack.baseUrl);
    const res = await chat(acct.cookie, {
      prompt: 'A retro sunset surf club logo in orange and purple',
      garmentUrls: blanks,
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.headers.get('x-image-provider'), 'gemini');
    assert.deepEqual(Object.keys(res.body).sort(), RESULT_FIELDS);
    const b = res.body;
    assert.match(b.threadId, /^thr_\d+_[a-z0-9]+$/);
    assert.match(b.messageId, /^msg_\d+_[a-z0-9]+$/);
    assert.equal(b.tokensSpent, 12);
    assert.equal(b.tokensRemaining, 50 - 12);
    assert.equal(await tokenBalance(stack.sql, acct.userId), 38);

    // the request Gemini received, through @google/genai
    assert.equal(gemini.requests.length, 1);
    const g = gemini.requests[0]!;
    assert.equal(g.path, '/v1beta/models/gemini-2.5-flash-image:generateContent');
    assert.equal(g.apiKey, GEMINI_KEY);
    assert.match(g.text, /retro sunset surf club logo in orange and purple/);
    assert.deepEqual(g.config.responseModalities, ['IMAGE']);
    assert.equal(g.images.length, 0);
    assert.equal(openai.requests.length, 0);

    const graphic = await fetchImage(b.graphicUrl);
    assert.equal(graphic.meta.format, 'png');
    assert.ok(graphic.body.equals(await gemini.image()), 'the graphic is what Gemini answered');
    const print = await fetchImage(b.printAssetUrl);
    assert.equal(print.meta.format, 'png');
    assert.equal(print.meta.density, 300);
    assert.ok(print.meta.hasAlpha);
    assert.equal(Math.max(print.meta.width!, print.meta.height!), 2048);
    assert.deepEqual([print.meta.width, print.meta.height], [2048, 2048], 'trimmed to the disc, upscaled');
    const { data } = await sharp(print.body).raw().toBuffer({ resolveWithObject: true });
    assert.equal(data[3], 0, 'the white background is gone');
    assert.ok((await colorShare(print.body, GEMINI_COLOR)) > 0.5);
    assert.equal(b.mockups.length, 2);
    for (const m of b.mockups) {
      const img = await fetchImage(m);
      assert.equal(img.meta.format, 'jpeg');
      assert.ok((await blueShare(img.body)) > 0.01, 'the design is on the blank');
    }

    const [job] = await stack.sql<any[]>`select * from render_jobs where thread_id = ${b.threadId}`;
    assert.equal(job.status, 'completed');
    assert.equal(job.provider, 'gemini');
    assert.equal(job.model, 'nano-banana');
    assert.deepEqual(job.attempts, [{ provider: 'gemini', ok: true, tries: 1 }]);
    for (const k of ['references', 'provider', 'print', 'mockups']) assert.equal(typeof job.timings[k], 'number');
    const messages = await stack.sql<any[]>`select role, content, tokens_spent from chat_messages
      where thread_id = ${b.threadId} order by seq`;
    assert.deepEqual(
      messages.map((m) => [m.role, m.content, m.tokens_spent]),
      [
        ['user', 'A retro sunset surf club logo in orange and purple', 0],
        ['assistant', null, 12],
      ],
    );
    const assets = await stack.sql<any[]>`select kind, position, dpi, placement, garment_url from render_assets
      where job_id = ${job.id} order by kind, position`;
    assert.deepEqual(
      assets.map((a) => [a.kind, a.position, a.placement, a.garment_url]),
      [
        ['graphic', 0, null, null],
        ['mockup', 0, 'front', blanks[0]],
        ['mockup', 1, 'front', blanks[1]],
        ['print', 0, null, null],
      ],
    );
    const usage = await stack.sql<
      any[]
    >`select tokens, model, debit_reference from token_usage where job_id = ${job.id}`;
    assert.deepEqual([...usage], [{ tokens: 12, model: 'nano-banana', debit_reference: job.id }]);
    const debits = await stack.sql`select amount from token_debits where reference = ${job.id}`;
    assert.deepEqual([...debits], [{ amount: 12 }]);

    // the job route answers the same body
    const again = await http(stack.baseUrl, 'GET', `/api/chat/jobs/${job.id}`, { cookie: acct.cookie });
    assert.equal(again.status, 200);
    assert.deepEqual(again.body, b);
    assert.equal(again.headers.get('x-image-provider'), 'gemini');
  });

  it('one blank: a full-front and a left-chest mockup on it; the 4k model asks Gemini for 4K and prints 4096 px', async () => {
    const acct = await account(stack.baseUrl);
    await grantTokens(stack.sql, {
      userId: acct.userId,
      source: 'payg_purchase',
      amount: 100,
      reference: `t:${acct.userId}`,
    });
    const res = await chat(acct.cookie, {
      prompt: 'Mountain adventure crew badge, forest green',
      model: 'nano-banana-pro-4k',
      garmentUrls: [blanks[0]],
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.tokensSpent, 90);
    assert.equal(res.body.tokensRemaining, 150 - 90);
    const g = gemini.requests[0]!;
    assert.equal(g.model, 'gemini-3-pro-image-preview');
    assert.deepEqual(g.config.imageConfig, { aspectRatio: '1:1', imageSize: '4K' });
    const print = await fetchImage(res.body.printAssetUrl);
    assert.deepEqual([print.meta.width, print.meta.height], [4096, 4096]);
    assert.equal(print.meta.density, 300);
    const rows = await stack.sql<any[]>`select placement, garment_url from render_assets
      where kind = 'mockup' and message_id = ${res.body.messageId} order by position`;
    assert.deepEqual(
      rows.map((r) => [r.placement, r.garment_url]),
      [
        ['front', blanks[0]],
        ['left-chest', blanks[0]],
      ],
    );
    const [front, chest] = await Promise.all(res.body.mockups.map((u: string) => fetchImage(u)));
    const [f, c] = await Promise.all([blueShare(front!.body), blueShare(chest!.body)]);
    assert.ok(f > 4 * c && c > 0.001, `front ${f} vs left chest ${c}`);
  });

  it('fails over to OpenAI when Gemini answers 500 (retried, then moved on)', async () => {
    const acct = await account(stack.baseUrl);
    gemini.behave = () => 'error500';
    const res = await chat(acct.cookie, { prompt: 'ocean waves for the sailing team' });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.headers.get('x-image-provider'), 'openai');
    assert.equal(gemini.requests.length, 2, 'CHAT_PROVIDER_ATTEMPTS attempts on a 500');
    assert.equal(openai.requests.length, 1);
    const o = openai.requests[0]!;
    assert.equal(o.path, '/v1/images/generations');
    assert.equal(o.apiKey, `Bearer ${OPENAI_KEY}`);
    assert.equal(o.model, 'gpt-image-1');
    assert.equal(o.config.quality, 'low');
    assert.deepEqual(res.body.mockups, []);
    assert.ok((await colorShare((await fetchImage(res.body.graphicUrl)).body, OPENAI_COLOR)) > 0.2);
    const job = await jobOf(acct.userId);
    assert.deepEqual(
      job.attempts.map((a) => [a.provider, a.ok, a.tries, a.type ?? null]),
      [
        ['gemini', false, 2, 'ProviderUnavailable'],
        ['openai', true, 1, null],
      ],
    );
  });

  it('fails over to OpenAI when Gemini does not answer in time', async () => {
    const acct = await account(stack.baseUrl);
    gemini.behave = () => 'hang';
    const t0 = Date.now();
    const res = await chat(acct.cookie, { prompt: 'midnight owl under the moon' });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.headers.get('x-image-provider'), 'openai');
    assert.equal(gemini.requests.length, 2);
    assert.ok(Date.now() - t0 >= 2 * TIMEOUT_MS, 'each attempt waited its timeout');
    const job = await jobOf(acct.userId);
    assert.equal(job.attempts[0].provider, 'gemini');
    assert.equal(job.attempts[0].ok, false);
    assert.match(job.attempts[0].error, /did not answer/);
  });

  it('moves on at once when Gemini refuses the prompt (no retry)', async () => {
    const acct = await account(stack.baseUrl);
    gemini.behave = () => 'refuse';
    const res = await chat(acct.cookie, { prompt: 'something the model will not draw' });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.headers.get('x-image-provider'), 'openai');
    assert.equal(gemini.requests.length, 1, 'a refusal is not retried');
    const job = await jobOf(acct.userId);
    assert.deepEqual(
      job.attempts.map((a) => [a.provider, a.ok, a.tries, a.type ?? null]),
      [
        ['gemini', false, 1, 'ProviderRefused'],
        ['openai', true, 1, null],
      ],
    );
  });

  it("a blank graphic is that provider's failure: OpenAI is asked; both blank is a failed, refunded job", async () => {
    const acct = await account(stack.baseUrl);
    gemini.behave = () => 'blank';
    const res = await chat(acct.cookie, { prompt: 'a design Gemini draws as nothing', garmentUrls: [blanks[0]] });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.headers.get('x-image-provider'), 'openai');
    assert.equal(gemini.requests.length, 1, 'a blank answer is not retried');
    assert.equal(openai.requests.length, 1);
    assert.ok((await colorShare((await fetchImage(res.body.graphicUrl)).body, OPENAI_COLOR)) > 0.2);
    assert.equal(res.body.mockups.length, 2);
    const job = await jobOf(acct.userId);
    assert.deepEqual(
      job.attempts.map((a) => [a.provider, a.ok, a.tries, a.type ?? null]),
      [
        ['gemini', false, 1, 'EmptyGraphic'],
        ['openai', true, 1, null],
      ],
    );
    assert.equal(await tokenBalance(stack.sql, acct.userId), 38);

    // both blank: the local renderer is not a fallback; 500, and the tokens are back
    const acct2 = await account(stack.baseUrl);
    openai.behave = () => 'blank';
    const failed = await chat(acct2.cookie, { prompt: 'a design nobody draws at all' });
    assert.equal(failed.status, 500, failed.text);
    assert.deepEqual(failed.body, { error: 'Generation failed' });
    const job2 = await jobOf(acct2.userId);
    assert.equal(job2.status, 'failed');
    assert.deepEqual(
      job2.attempts.map((a) => [a.provider, a.ok, a.type ?? null]),
      [
        ['gemini', false, 'EmptyGraphic'],
        ['openai', false, 'EmptyGraphic'],
      ],
    );
    assert.equal(await tokenBalance(stack.sql, acct2.userId), 50);
  });

  it('both providers failing: 500 Generation failed, the tokens are back, the failed job is recorded', async () => {
    const acct = await account(stack.baseUrl);
    gemini.behave = () => 'error500';
    openai.behave = () => 'refuse';
    const res = await chat(acct.cookie, { prompt: 'a design nobody can make', garmentUrls: blanks });
    assert.equal(res.status, 500, res.text);
    assert.deepEqual(res.body, { error: 'Generation failed' });
    assert.equal(await tokenBalance(stack.sql, acct.userId), 50);
    const job = await jobOf(acct.userId);
    assert.equal(job.status, 'failed');
    assert.equal(job.failure, 'generation_failed');
    assert.deepEqual(
      job.attempts.map((a) => [a.provider, a.tries]),
      [
        ['gemini', 2],
        ['openai', 1],
      ],
    );
    const refunds = await stack.sql`select amount from token_grants where reference = ${`refund:${job.id}`}`;
    assert.deepEqual([...refunds], [{ amount: 12 }]);
    const threads = await stack.sql`select id from chat_threads where user_id = ${acct.userId}`;
    assert.equal(threads.length, 0, 'no thread or messages for a failed job');
    const again = await http(stack.baseUrl, 'GET', `/api/chat/jobs/${job.id}`, { cookie: acct.cookie });
    assert.equal(again.status, 500);
    assert.deepEqual(again.body, { error: 'Generation failed' });
  });

  it('reference images (images, designUrls) reach Gemini, and OpenAI through the edits endpoint', async () => {
    const acct = await account(stack.baseUrl);
    const up = await http(stack.baseUrl, 'POST', '/api/v1/upload', {
      key: acct.key,
      json: { imageData: `data:image/png;base64,${(await gemini.image()).toString('base64')}` },
    });
    assert.equal(up.status, 201, up.text);
    const res = await chat(acct.cookie, {
      prompt: 'In the style of these references, a star badge',
      images: [`${originUrl}/ref.png`],
      designUrls: [up.body.url],
    });
    assert.equal(res.status, 200, res.text);
    const g = gemini.requests[0]!;
    assert.equal(g.images.length, 2);
    assert.deepEqual(
      g.images.map((i) => i.mimeType),
      ['image/png', 'image/png'],
    );
    const metas = await Promise.all(g.images.map((i) => sharp(i.data).metadata()));
    assert.deepEqual(
      metas.map((m) => [m.width, m.height]),
      [
        [640, 480],
        [1024, 1024],
      ],
    );
    assert.match(g.text, /references/);

    // OpenAI takes them as image[] files of a multipart edit
    const acct2 = await account(stack.baseUrl);
    gemini.behave = () => 'refuse';
    const res2 = await chat(acct2.cookie, {
      prompt: 'In the style of these references, a star badge',
      images: [`${originUrl}/ref.png`],
      designUrls: [up.body.url],
    });
    assert.equal(res2.status, 200, res2.text);
    assert.equal(res2.headers.get('x-image-provider'), 'openai');
    const o = openai.requests[0]!;
    assert.equal(o.path, '/v1/images/edits');
    assert.equal(o.config.imageField, 'image[]');
    assert.equal(o.images.length, 2);
    assert.deepEqual((await sharp(o.images[0]!.data).metadata()).width, 640);
  });

  it('a reference that cannot be read fails the job with 400 and refunds it', async () => {
    const acct = await account(stack.baseUrl);
    const res = await chat(acct.cookie, {
      prompt: 'a design with a broken reference',
      images: [`${originUrl}/not-an-image`],
    });
    assert.equal(res.status, 400, res.text);
    assert.match(res.body.error, /not an image/);
    assert.equal(await tokenBalance(stack.sql, acct.userId), 50);
    assert.equal(gemini.requests.length, 0);
  });

  it('continuing a thread passes the previous graphic to the provider; the thread routes list it', async () => {
    const acct = await account(stack.baseUrl);
    const first = await chat(acct.cookie, { prompt: 'A bold lightning bolt in yellow' });
    assert.equal(first.status, 200, first.text);
    const previous = (await fetchImage(first.body.graphicUrl)).body;
    gemini.reset();
    const second = await chat(acct.cookie, { prompt: 'make it blue please', threadId: first.body.threadId });
    assert.equal(second.status, 200, second.text);
    assert.equal(second.body.threadId, first.body.threadId);
    assert.notEqual(second.body.messageId, first.body.messageId);
    assert.equal(second.body.tokensRemaining, 50 - 24);
    const g = gemini.requests[0]!;
    assert.equal(g.images.length, 1, 'the previous graphic');
    const [a, b] = await Promise.all([previous, g.images[0]!.data].map((x) => sharp(x).ensureAlpha().raw().toBuffer()));
    assert.ok(a!.equals(b!), 'the same pixels as the previous graphic');
    assert.match(g.text, /current design/);

    const thread = await http(stack.baseUrl, 'GET', `/api/chat/threads/${first.body.threadId}`, {
      cookie: acct.cookie,
    });
    assert.equal(thread.status, 200, thread.text);
    assert.equal(thread.body.title, 'A bold lightning bolt in yellow');
    assert.deepEqual(
      thread.body.messages.map((m: any) => [m.role, m.content, m.model, m.tokens]),
      [
        ['user', 'A bold lightning bolt in yellow', 'nano-banana', 0],
        ['assistant', null, 'nano-banana', 12],
        ['user', 'make it blue please', 'nano-banana', 0],
        ['assistant', null, 'nano-banana', 12],
      ],
    );
    assert.equal(thread.body.messages[1].graphicUrl, first.body.graphicUrl);
    assert.equal(thread.body.messages[3].printAssetUrl, second.body.printAssetUrl);
    assert.deepEqual(
      thread.body.messages[1].images.map((i: any) => i.kind),
      ['graphic', 'print'],
    );

    // a second thread, then the list: newest first, one per page
    const other = await chat(acct.cookie, { prompt: 'Coffee lovers unite in brown' });
    assert.equal(other.status, 200);
    const p1 = await http(stack.baseUrl, 'GET', '/api/chat/threads?limit=1', { cookie: acct.cookie });
    assert.equal(p1.status, 200);
    assert.deepEqual(
      p1.body.threads.map((t: any) => [t.id, t.messageCount]),
      [[other.body.threadId, 2]],
    );
    assert.equal(p1.body.pagination.hasMore, true);
    const p2 = await http(
      stack.baseUrl,
      'GET',
      `/api/chat/threads?limit=1&cursor=${encodeURIComponent(p1.body.pagination.nextCursor)}`,
      { cookie: acct.cookie },
    );
    assert.deepEqual(
      p2.body.threads.map((t: any) => [t.id, t.messageCount]),
      [[first.body.threadId, 4]],
    );
    assert.equal(p2.body.pagination.hasMore, false);

    // another user sees none of it
    const stranger = await account(stack.baseUrl);
    const foreign = await chat(stranger.cookie, { prompt: 'make it blue please', threadId: first.body.threadId });
    assert.equal(foreign.status, 404);
    assert.deepEqual(foreign.body, { error: 'Thread not found' });
    const peek = await http(stack.baseUrl, 'GET', `/api/chat/threads/${first.body.threadId}`, {
      cookie: stranger.cookie,
    });
    assert.equal(peek.status, 404);
    const jobPeek = await http(stack.baseUrl, 'GET', `/api/chat/jobs/${(await jobOf(acct.userId)).id}`, {
      cookie: stranger.cookie,
    });
    assert.equal(jobPeek.status, 404);
    const list = await http(stack.baseUrl, 'GET', '/api/chat/threads', { cookie: stranger.cookie });
    assert.deepEqual(list.body.threads, []);
  });

  it('402 when the balance is below the model cost, with tokensNeeded and tokensAvailable; nothing is started', async () => {
    const acct = await account(stack.baseUrl);
    const res = await chat(acct.cookie, { prompt: 'A premium print-ready design', model: 'nano-banana-pro-4k' });
    assert.equal(res.status, 402);
    assert.deepEqual(res.body, { error: 'Token balance too low', tokensNeeded: 90, tokensAvailable: 50 });
    const jobs = await stack.sql`select id from render_jobs where user_id = ${acct.userId}`;
    assert.equal(jobs.length, 0);
    assert.equal(gemini.requests.length, 0);
  });

  it('validation: 401, Prompt is required, other invalid fields, unknown thread', async () => {
    let res = await http(stack.baseUrl, 'POST', '/api/chat', { json: { prompt: 'a valid prompt here' } });
    assert.equal(res.status, 401);
    assert.deepEqual(res.body, { error: 'Unauthorized' });
    const acct = await account(stack.baseUrl);
    for (const body of [{}, { prompt: 42 }, { prompt: '  short  ' }, { prompt: '1234567' }, []]) {
      res = await chat(acct.cookie, body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.deepEqual(res.body, { error: 'Prompt is required' });
    }
    const cases: [unknown, RegExp][] = [
      [{ prompt: 'a valid prompt here', model: 'dall-e' }, /model/],
      [{ prompt: 'a valid prompt here', garmentUrls: ['ftp://example.com/a.png'] }, /garmentUrls.*http/],
      [
        {
          prompt: 'a valid prompt here',
          designUrls: [
            'https://a.example/1.png',
            'https://a.example/2.png',
            'https://a.example/3.png',
            'https://a.example/4.png',
            'https://a.example/5.png',
          ],
        },
        /at most 4/,
      ],
      [{ prompt: 'a valid prompt here', images: 'https://a.example/1.png' }, /images/],
    ];
    for (const [body, msg] of cases) {
      res = await chat(acct.cookie, body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.deepEqual(Object.keys(res.body), ['error']);
      assert.match(res.body.error, msg);
    }
    res = await chat(acct.cookie, { prompt: 'a valid prompt here', threadId: 'thr_1_doesnotexist' });
    assert.equal(res.status, 404);
    assert.deepEqual(res.body, { error: 'Thread not found' });
    res = await http(stack.baseUrl, 'GET', '/api/chat/jobs/job_1_nope', { cookie: acct.cookie });
    assert.equal(res.status, 404);
    assert.equal(await tokenBalance(stack.sql, acct.userId), 50);
  });

  it('429 after 10 requests a minute per user (every authenticated POST counts), and 100 an hour per account', async () => {
    const acct = await account(stack.baseUrl);
    const results: HttpResult[] = [];
    for (let i = 0; i < 10; i++) results.push(await chat(acct.cookie, { prompt: 'short' })); // 400s count too
    assert.deepEqual(
      results.map((r) => r.status),
      Array(10).fill(400),
    );
    const limited = await chat(acct.cookie, { prompt: 'a perfectly valid prompt' });
    assert.equal(limited.status, 429);
    assert.deepEqual(Object.keys(limited.body).sort(), ['error', 'retryAfter']);
    assert.equal(limited.body.error, 'Too many requests');
    assert.ok(limited.body.retryAfter >= 1 && limited.body.retryAfter <= 60);
    assert.equal(limited.headers.get('retry-after'), String(limited.body.retryAfter));
    // another user is not affected
    const other = await account(stack.baseUrl);
    assert.equal((await chat(other.cookie, { prompt: 'short' })).status, 400);

    // the hour window (lowered for the test: the same code path as 100)
    const saved = stack.config.chat.perHour;
    stack.config.chat.perHour = 3;
    try {
      const third = await account(stack.baseUrl);
      for (let i = 0; i < 3; i++) assert.equal((await chat(third.cookie, { prompt: 'short' })).status, 400);
      const hour = await chat(third.cookie, { prompt: 'a perfectly valid prompt' });
      assert.equal(hour.status, 429);
      assert.ok(hour.body.retryAfter > 60, `hour window: ${hour.body.retryAfter}`);
    } finally {
      stack.config.chat.perHour = saved;
    }
  });

  it('answers 202 {jobId, status} after CHAT_SYNC_TIMEOUT_MS; the job route then returns the same body', async () => {
    const acct = await account(stack.baseUrl);
    const saved = stack.config.chat.syncTimeoutMs;
    stack.config.chat.syncTimeoutMs = 300;
    gemini.behave = () => 'slow';
    gemini.slowMs = 1000; // within its timeout, beyond the synchronous budget
    let res;
    try {
      res = await chat(acct.cookie, { prompt: 'A slow but lovely flower design', garmentUrls: [blanks[1]] });
    } finally {
      stack.config.chat.syncTimeoutMs = saved;
    }
    assert.equal(res.status, 202, res.text);
    assert.deepEqual(Object.keys(res.body).sort(), ['jobId', 'status']);
    assert.match(res.body.jobId, /^job_\d+_[a-z0-9]+$/);
    assert.equal(res.body.status, 'running');
    const running = await http(stack.baseUrl, 'GET', `/api/chat/jobs/${res.body.jobId}`, { cookie: acct.cookie });
    assert.equal(running.status, 202);
    assert.deepEqual(running.body, { jobId: res.body.jobId, status: 'running' });
    const done = await until('the job', async () => {
      const r = await http(stack.baseUrl, 'GET', `/api/chat/jobs/${res.body.jobId}`, { cookie: acct.cookie });
      return r.status === 200 ? r : undefined;
    });
    assert.deepEqual(Object.keys(done.body).sort(), RESULT_FIELDS);
    assert.equal(done.body.mockups.length, 2);
    assert.equal(done.headers.get('x-image-provider'), 'gemini');
    // the Temporal workflow is the job: id = job id, AccountId set
    const desc = await stack.client.workflow.getHandle(res.body.jobId).describe();
    assert.equal(desc.type, 'chatDesign');
    assert.deepEqual(desc.searchAttributes.AccountId, [acct.userId]);
  });

  it('uses the local renderer only when neither key is set (X-Image-Provider: local)', async () => {
    const acct = await account(stack.baseUrl);
    const saved = { g: stack.config.chat.gemini.apiKey, o: stack.config.chat.openai.apiKey };
    stack.config.chat.gemini.apiKey = undefined;
    stack.config.chat.openai.apiKey = undefined;
    let res;
    try {
      res = await chat(acct.cookie, { prompt: 'Retro sunset surf club in orange and purple', garmentUrls: blanks });
    } finally {
      stack.config.chat.gemini.apiKey = saved.g;
      stack.config.chat.openai.apiKey = saved.o;
    }
    assert.equal(res.status, 200, res.text);
    assert.equal(res.headers.get('x-image-provider'), 'local');
    assert.equal(gemini.requests.length + openai.requests.length, 0);
    const graphic = await fetchImage(res.body.graphicUrl);
    assert.ok((await colorShare(graphic.body, '#f07a1a')) > 0.02, 'orange, as the prompt says');
    const print = await fetchImage(res.body.printAssetUrl);
    assert.equal(print.meta.density, 300);
    assert.ok(Math.max(print.meta.width!, print.meta.height!) >= 2048);
    assert.equal(res.body.mockups.length, 2);

    // configured providers that fail never fall back to it
    const acct2 = await account(stack.baseUrl);
    gemini.behave = () => 'error400';
    openai.behave = () => 'error400';
    const failed = await chat(acct2.cookie, { prompt: 'Retro sunset surf club in orange and purple' });
    assert.equal(failed.status, 500);
    assert.deepEqual(
      (await jobOf(acct2.userId)).attempts.map((a) => [a.provider, a.tries, a.type]),
      [
        ['gemini', 1, 'ProviderRejected'],
        ['openai', 1, 'ProviderRejected'],
      ],
    );
  });

  /** Runs the chat-jobs sweep as the schedule does: workflow chatJobsSweep on the worker. */
  const sweep = () =>
    stack.client.workflow.execute(chatJobsSweep, {
      workflowId: `chat-jobs-sweep-test-${randomSuffix(6)}`,
      taskQueue: stack.taskQueue,
    });
  const refundsOf = async (jobId: string) =>
    (await stack.sql`select amount from token_grants where reference = ${`refund:${jobId}`}`).map((r) => r.amount);

  it('a workflow terminated while POST /api/chat waits: 202, the job stays running until the chat-jobs sweep', async () => {
    const acct = await account(stack.baseUrl);
    gemini.behave = () => 'hang';
    openai.behave = () => 'hang';
    const pending = chat(acct.cookie, { prompt: 'A design whose job an operator ends' });
    await until('Gemini asked', async () => gemini.requests.length > 0);
    const job = await jobOf(acct.userId);
    assert.equal(await tokenBalance(stack.sql, acct.userId), 38, 'the debit was taken with the job');
    await stack.client.workflow.getHandle(job.id).terminate('operator');
    const res = await pending;
    assert.equal(res.status, 202, res.text);
    assert.deepEqual(res.body, { jobId: job.id, status: 'running' });
    // only the workflow and the sweep fail a started job: nothing was failed or refunded by the API
    assert.equal((await jobOf(acct.userId)).status, 'running');
    assert.deepEqual(await refundsOf(job.id), []);
    await stack.sql`update render_jobs set created_at = now() - interval '1 hour' where id = ${job.id}`;
    await sweep();
    assert.equal(await tokenBalance(stack.sql, acct.userId), 50);
    assert.deepEqual(await refundsOf(job.id), [12]);
    const after = await jobOf(acct.userId);
    assert.equal(after.status, 'failed');
    assert.equal(after.failure, 'generation_failed');
  });

  it('a job whose workflow is terminated after the 202: the chat-jobs sweep fails it and refunds it once', async () => {
    const acct = await account(stack.baseUrl);
    gemini.behave = () => 'hang';
    openai.behave = () => 'hang';
    const saved = stack.config.chat.syncTimeoutMs;
    stack.config.chat.syncTimeoutMs = 300;
    let res;
    try {
      res = await chat(acct.cookie, { prompt: 'A design left hanging by its provider' });
    } finally {
      stack.config.chat.syncTimeoutMs = saved;
    }
    assert.equal(res.status, 202, res.text);
    const jobId: string = res.body.jobId;
    await until('Gemini asked', async () => gemini.requests.length > 0);
    assert.equal(await tokenBalance(stack.sql, acct.userId), 38);
    await stack.client.workflow.getHandle(jobId).terminate('operator');
    const get = () => http(stack.baseUrl, 'GET', `/api/chat/jobs/${jobId}`, { cookie: acct.cookie });
    assert.equal((await get()).status, 202, 'nothing else will finish it');

    // within CHAT_ORPHAN_AFTER (2 minutes) of its creation the sweep leaves it alone
    await sweep();
    assert.equal((await jobOf(acct.userId)).status, 'running');
    await stack.sql`update render_jobs set created_at = now() - interval '1 hour' where id = ${jobId}`;
    const first = await sweep();
    assert.ok(first.failed >= 1 && first.refunded >= 1, JSON.stringify(first));
    const [row] = await stack.sql<{ status: string; failure: string; error: string; tokens_spent: number }[]>`
      select status, failure, error, tokens_spent from render_jobs where id = ${jobId}`;
    assert.equal(row!.status, 'failed');
    assert.equal(row!.failure, 'generation_failed');
    assert.match(row!.error, /workflow ended \(terminated\)/);
    assert.equal(await tokenBalance(stack.sql, acct.userId), 50);
    assert.deepEqual(await refundsOf(jobId), [12]);
    const failed = await get();
    assert.equal(failed.status, 500);
    assert.deepEqual(failed.body, { error: 'Generation failed' });

    await sweep();
    assert.equal(await tokenBalance(stack.sql, acct.userId), 50, 'a second sweep gives nothing back twice');
    assert.deepEqual(await refundsOf(jobId), [12]);
  });

  it('a job row whose workflow never started: the sweep fails it without a refund; a late start charges nothing', async () => {
    const acct = await account(stack.baseUrl);
    const [oldId, freshId] = [`job_${Date.now()}_${randomSuffix()}`, `job_${Date.now()}_${randomSuffix()}`];
    for (const [id, age] of [
      [oldId, '1 hour'],
      [freshId, '0 seconds'],
    ] as const) {
      await stack.sql`insert into render_jobs (id, user_id, model, prompt, request, created_at)
        values (${id}, ${acct.userId}, 'nano-banana', 'An orphaned job of a dead API', '{}',
          now() - ${age}::interval)`;
    }
    const out = await sweep();
    assert.ok(out.failed >= 1, JSON.stringify(out));
    const rows = await stack.sql<{ id: string; status: string; failure: string | null; error: string | null }[]>`
      select id, status, failure, error from render_jobs where id in ${stack.sql([oldId, freshId])}`;
    const byId = new Map(rows.map((r) => [r.id, r]));
    assert.equal(byId.get(oldId)!.status, 'failed');
    assert.equal(byId.get(oldId)!.failure, 'generation_failed');
    assert.match(byId.get(oldId)!.error!, /never started/);
    assert.equal(byId.get(freshId)!.status, 'running', 'younger than CHAT_ORPHAN_AFTER');
    assert.deepEqual(await refundsOf(oldId), [], 'nothing was taken, nothing is given');
    assert.equal(await tokenBalance(stack.sql, acct.userId), 50);
    const res = await http(stack.baseUrl, 'GET', `/api/chat/jobs/${oldId}`, { cookie: acct.cookie });
    assert.equal(res.status, 500);
    assert.deepEqual(res.body, { error: 'Generation failed' });

    // the API was only slow: its workflow starts after the sweep failed the job, and takes nothing
    await assert.rejects(
      stack.client.workflow.execute(chatDesign, {
        workflowId: oldId,
        taskQueue: stack.taskQueue,
        args: [
          {
            jobId: oldId,
            accountId: acct.userId,
            prompt: 'An orphaned job of a dead API',
            model: 'nano-banana',
            images: [],
            garmentUrls: [],
            designUrls: [],
            threadId: null,
          },
        ],
      }),
    );
    assert.equal((await stack.sql`select 1 from token_debits where reference = ${oldId}`).length, 0);
    assert.equal(gemini.requests.length, 0);
    await stack.sql`update render_jobs set status = 'failed', completed_at = now() where id = ${freshId}`;
  });

  it('a worker killed mid-job: another takes over; one debit, one set of records', async function () {
    this.timeout(240_000);
    const acct = await account(stack.baseUrl);
    await stack.stopWorker();
    const root = path.resolve(__dirname, '../..');
    let child: ChildProcess | undefined = spawn(
      process.execPath,
      ['--import', 'tsx', path.join(root, 'worker/main.ts')],
      {
        cwd: root,
        env: {
          ...process.env,
          TEMPORAL_TASK_QUEUE: stack.taskQueue,
          PUBLIC_BASE_URL: stack.baseUrl,
          ALLOW_PRIVATE_URLS: 'true',
          GEMINI_API_KEY: GEMINI_KEY,
          GEMINI_BASE_URL: gemini.baseUrl,
          GEMINI_TIMEOUT_MS: String(TIMEOUT_MS),
          OPENAI_API_KEY: OPENAI_KEY,
          OPENAI_BASE_URL: openai.baseUrl,
          OPENAI_TIMEOUT_MS: String(TIMEOUT_MS),
          CHAT_PROVIDER_ATTEMPTS: '2',
          LOG_LEVEL: 'warn',
        },
        stdio: ['ignore', 'ignore', 'inherit'],
      },
    );
    let release: () => void = () => {};
    try {
      const reached = new Promise<void>((r) => {
        gemini.onRequest = () => {
          gemini.onRequest = undefined;
          r();
          return new Promise<void>((go) => (release = go));
        };
      });
      const pending = chat(acct.cookie, { prompt: 'A crash-proof heart design', garmentUrls: blanks });
      await Promise.race([reached, sleep(120_000).then(() => Promise.reject(new Error('Gemini never reached')))]);
      const exited = new Promise((r) => child!.once('exit', r));
      child.kill('SIGKILL');
      await exited;
      child = undefined;
      release(); // the killed worker never reads this answer
      await stack.startWorker();
      const res = await pending;
      assert.equal(res.status, 200, res.text);
      assert.ok(gemini.requests.length >= 2, 'Gemini was asked again by the new worker');
      const job = await jobOf(acct.userId);
      assert.equal(job.status, 'completed');
      const debits = await stack.sql`select amount from token_debits where reference = ${job.id}`;
      assert.deepEqual([...debits], [{ amount: 12 }], 'one debit');
      assert.equal(await tokenBalance(stack.sql, acct.userId), 38);
      const counts = await stack.sql<any[]>`select
          (select count(*)::int from chat_threads where user_id = ${acct.userId}) as threads,
          (select count(*)::int from chat_messages where job_id = ${job.id}) as messages,
          (select count(*)::int from render_assets where job_id = ${job.id}) as assets,
          (select count(*)::int from token_usage where job_id = ${job.id}) as usage,
          (select count(*)::int from render_jobs where user_id = ${acct.userId}) as jobs`;
      assert.deepEqual(counts[0], { threads: 1, messages: 2, assets: 4, usage: 1, jobs: 1 });
      assert.equal(res.body.mockups.length, 2);
    } finally {
      release();
      if (child && child.exitCode === null) child.kill('SIGKILL');
      if (!stack.worker) await stack.startWorker();
    }
  });
});
