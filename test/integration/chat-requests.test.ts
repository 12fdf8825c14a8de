// Design chat's requests through HTTP against the real stack and the provider stand-ins: a thread continued with
// the previous graphic; 402; 401 and 400s; 429; 202 after CHAT_SYNC_TIMEOUT_MS and the job route; the local renderer
// when no key is set.
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { tokenBalance } from '../../db/ledger';
import { colorShare, fetchImage, RESULT_FIELDS, useChatStack } from '../helpers/chat';
import * as inspect from '../helpers/db-inspect';
import { account, http, type HttpResult } from '../helpers/http';
import { until } from '../helpers/wait';

const CHAT_WAIT = { ms: 60_000, every: 150 };

describe('design chat: threads, limits and answers of POST /api/chat', function () {
  this.timeout(180_000);
  const { stack, gemini, openai, chat, blanks, jobOf } = useChatStack('chat-requests');

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
    assert.equal(await inspect.renderJobCount(acct.userId), 0);
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
      res = await chat(acct.cookie, { prompt: 'A slow but lovely flower design', garmentUrls: [blanks()[1]] });
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
    const done = await until(
      'the job',
      async () => {
        const r = await http(stack.baseUrl, 'GET', `/api/chat/jobs/${res.body.jobId}`, { cookie: acct.cookie });
        return r.status === 200 ? r : undefined;
      },
      CHAT_WAIT,
    );
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
      res = await chat(acct.cookie, { prompt: 'Retro sunset surf club in orange and purple', garmentUrls: blanks() });
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
});
