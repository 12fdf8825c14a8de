// Design chat's providers through HTTP against the real stack, with the Gemini and OpenAI SDKs pointed at local
// stand-ins that speak their wire formats (test/helpers/fake-image-providers.ts): primary success and what it records;
// the 4k model on one blank; failover on a 500, a timeout, a refusal and a blank graphic; both failing (500,
// refunded); reference images reaching the provider, and one that cannot be read. Threads and request edges are
// chat-requests.test.ts, jobs and their recovery chat-jobs.test.ts.
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { grantTokens, tokenBalance } from '../../db/ledger';
import {
  blueShare,
  colorShare,
  fetchImage,
  GEMINI_KEY,
  OPENAI_KEY,
  RESULT_FIELDS,
  TIMEOUT_MS,
  useChatStack,
} from '../helpers/chat';
import * as inspect from '../helpers/db-inspect';
import { GEMINI_COLOR, OPENAI_COLOR } from '../helpers/fake-image-providers';
import { account, http } from '../helpers/http';

describe('design chat: the providers behind POST /api/chat', function () {
  this.timeout(180_000);
  const { stack, gemini, openai, chat, blanks, originUrl, jobOf } = useChatStack('chat-providers');

  it('primary success: Gemini draws, the print asset and two mockups are made, everything is recorded', async () => {
    const acct = await account(stack.baseUrl);
    const res = await chat(acct.cookie, {
      prompt: 'A retro sunset surf club logo in orange and purple',
      garmentUrls: blanks(),
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

    const job = (await inspect.renderJobsOfThread(b.threadId))[0]!;
    assert.equal(job.status, 'completed');
    assert.equal(job.provider, 'gemini');
    assert.equal(job.model, 'nano-banana');
    assert.deepEqual(job.attempts, [{ provider: 'gemini', ok: true, tries: 1 }]);
    for (const k of ['references', 'provider', 'print', 'mockups']) assert.equal(typeof job.timings[k], 'number');
    assert.deepEqual(await inspect.chatMessages(b.threadId), [
      ['user', 'A retro sunset surf club logo in orange and purple', 0],
      ['assistant', null, 12],
    ]);
    assert.deepEqual(await inspect.renderAssets({ jobId: job.id }), [
      ['graphic', 0, null, null],
      ['mockup', 0, 'front', blanks()[0]],
      ['mockup', 1, 'front', blanks()[1]],
      ['print', 0, null, null],
    ]);
    assert.deepEqual(await inspect.tokenUsageOfJob(job.id), [
      { tokens: 12, model: 'nano-banana', debitReference: job.id },
    ]);
    assert.deepEqual(await inspect.debitAmounts(job.id), [12]);

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
      garmentUrls: [blanks()[0]],
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
    assert.deepEqual(
      (await inspect.renderAssets({ messageId: res.body.messageId, kind: 'mockup' })).map(([, , placement, url]) => [
        placement,
        url,
      ]),
      [
        ['front', blanks()[0]],
        ['left-chest', blanks()[0]],
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
    const res = await chat(acct.cookie, { prompt: 'a design Gemini draws as nothing', garmentUrls: [blanks()[0]] });
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
    const res = await chat(acct.cookie, { prompt: 'a design nobody can make', garmentUrls: blanks() });
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
    assert.deepEqual(await inspect.refundAmounts(job.id), [12]);
    assert.deepEqual(await inspect.chatThreadIds(acct.userId), [], 'no thread or messages for a failed job');
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
      images: [`${originUrl()}/ref.png`],
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
      images: [`${originUrl()}/ref.png`],
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
      images: [`${originUrl()}/not-an-image`],
    });
    assert.equal(res.status, 400, res.text);
    assert.match(res.body.error, /not an image/);
    assert.equal(await tokenBalance(stack.sql, acct.userId), 50);
    assert.equal(gemini.requests.length, 0);
  });
});
