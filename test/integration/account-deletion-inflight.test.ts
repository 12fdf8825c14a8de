// A generation still running when its account is deleted stores nothing and calls nobody back (issue 33, item 5;
// docs/accounts.md#deletion). Through HTTP on the real stack: the design host holds each generation's download, so
// the render is provably in flight when DELETE /api/auth/account is asked; the deletion workflow's last step (the
// erasure) waits for the test, so one generation finishes after the deletion began and before its rows are erased,
// the other after.
import assert from 'node:assert/strict';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { createAccountDeletionActivities } from '../../activities/account-deletion';
import { mockupKeys } from '../../activities/generation';
import { chatKeys } from '../../lib/chat/plan';
import type { AccountDeletionInput } from '../../lib/accounts/types';
import { createLogger } from '../../lib/log';
import { generationState, generationStates, ownedRowCounts, renderJobIds } from '../helpers/db-inspect';
import { account, GOOD_PASSWORD, http } from '../helpers/http';
import { startCallbackReceiver, type CallbackReceiver } from '../helpers/receiver';
import { startStack, workflowResultWhenStarted, type Stack } from '../helpers/stack';
import { sleep, until } from '../helpers/wait';

describe('deletion while a generation runs: no file stored, no callback sent', function () {
  this.timeout(180_000);
  let stack: Stack;
  let origin: Server;
  let originUrl: string;
  let receiver: CallbackReceiver;
  /** design downloads held open, by path */
  const held = new Map<string, ServerResponse>();
  let design: Buffer;
  /** The deletion's erasure step waits until the test opens it; armed again for each test. */
  let openErasure: () => void = () => {};
  let erasureReached: () => void = () => {};
  let erasureStarted: Promise<void> = Promise.resolve();
  let gate: Promise<void> = Promise.resolve();
  const armErasure = () => {
    erasureStarted = new Promise<void>((r) => (erasureReached = r));
    gate = new Promise<void>((r) => (openErasure = r));
  };

  before(async () => {
    design = await sharp({
      create: { width: 600, height: 600, channels: 4, background: { r: 200, g: 30, b: 60, alpha: 1 } },
    })
      .png()
      .toBuffer();
    origin = createServer((req, res) => void held.set(req.url!, res));
    await new Promise<void>((r) => origin.listen(0, '127.0.0.1', () => r()));
    originUrl = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`;
    receiver = await startCallbackReceiver();
    stack = await startStack('deletion-inflight', { worker: false, env: { ALLOW_PRIVATE_URLS: 'true' } });
    // the deletion's real steps; its erasure waits until the test opens it (the step, not the code under test)
    const real = createAccountDeletionActivities({
      sql: stack.sql,
      config: stack.config,
      storage: stack.storage,
      log: createLogger({ level: 'warn' }),
    });
    await stack.startWorker({
      async eraseAccount(input: AccountDeletionInput) {
        erasureReached();
        await gate;
        return real.eraseAccount(input);
      },
    });
  });
  after(async () => {
    openErasure();
    for (const res of held.values()) if (!res.headersSent) res.destroy();
    origin?.closeAllConnections();
    origin?.close();
    await receiver?.close();
    await stack?.stop();
  });

  const release = (path: string) => {
    const res = held.get(path);
    assert.ok(res, `the design ${path} was asked for`);
    res.writeHead(200, { 'content-type': 'image/png' }).end(design);
  };

  it('a render finishing after the deletion began, and one finishing after the erasure, leave no file and send no callback', async () => {
    armErasure();
    const acct = await account(stack.baseUrl);
    const garment = (await http(stack.baseUrl, 'GET', '/api/v1/garments?limit=1', { key: acct.key })).body.garments[0];
    const generate = async (name: string) => {
      const res = await http(stack.baseUrl, 'POST', '/api/v1/generate', {
        key: acct.key,
        headers: { prefer: 'respond-async' },
        json: {
          designUrl: `${originUrl}/${name}.png`,
          garmentId: garment.id,
          garmentImageUrl: garment.colors[0].imageUrl,
          webhookUrl: receiver.url,
        },
      });
      assert.equal(res.status, 202, res.text);
      return res.body.id as string;
    };
    const early = await generate('early');
    const late = await generate('late');
    // both renders are fetching their design: begun, charged, processing
    await until('both design downloads', () => held.has('/early.png') && held.has('/late.png'), { every: 50 });
    const mid = await generationStates({ ids: [early, late] });
    assert.deepEqual(
      mid.map((r) => r.status),
      ['processing', 'processing'],
    );

    const del = await http(stack.baseUrl, 'DELETE', '/api/auth/account', {
      cookie: acct.cookie,
      json: { password: GOOD_PASSWORD },
    });
    assert.equal(del.status, 202, del.text);
    // the deletion has cancelled, disconnected and deleted the files it knew of; its erasure waits
    await erasureStarted;

    // the first render finishes now: its account is deleted, its row still there
    release('/early.png');
    const first = await workflowResultWhenStarted<{ status: string; error?: string }>(stack.client, early);
    assert.equal(first.status, 'failed', JSON.stringify(first));
    assert.equal(first.error, 'The account was deleted');
    const row = await generationState(early);
    assert.deepEqual([row?.status, row?.mockupKey], ['failed', null], 'never completed for a deleted account');

    // the erasure runs, the deletion finishes; then the second render finishes, its rows gone
    openErasure();
    const deletion = await workflowResultWhenStarted<Record<string, unknown>>(stack.client, del.body.workflowId);
    assert.ok(deletion, 'the deletion finished');
    assert.equal(await generationState(late), undefined, 'erased');
    release('/late.png');
    const second = await workflowResultWhenStarted<{ status: string; error?: string }>(stack.client, late);
    assert.equal(second.status, 'failed', JSON.stringify(second));

    for (const id of [early, late]) {
      const keys = mockupKeys(id);
      assert.equal(await stack.storage.exists(keys.mockup), false, `no mockup of ${id} stays`);
      assert.equal(await stack.storage.exists(keys.thumbnail), false, `no thumbnail of ${id} stays`);
      // the callback workflow, if started, ended without sending
      await stack.client.workflow
        .getHandle(`webhook-${id}`)
        .result()
        .catch(() => undefined);
      assert.equal(receiver.count(id), 0, `no callback for ${id}`);
    }
    await sleep(500);
    assert.equal(receiver.requests.length, 0, 'nothing was called back');
  });

  it('a design chat job whose account is deleted before it is recorded leaves no file and records nothing', async () => {
    const acct = await account(stack.baseUrl);
    const ask = async (name: string) => {
      const res = http(stack.baseUrl, 'POST', '/api/chat', {
        cookie: acct.cookie,
        json: { prompt: 'A lighthouse badge in two colours', designUrls: [`${originUrl}/${name}.png`] },
      });
      await until(`the reference ${name}`, () => held.has(`/${name}.png`), { every: 50 });
      const [job] = await renderJobIds(acct.userId, `/${name}.png`);
      assert.ok(job, `the job reading ${name}`);
      return { id: job, answer: res };
    };
    const first = await ask('chat-early');
    const second = await ask('chat-late');

    armErasure();
    const del = await http(stack.baseUrl, 'DELETE', '/api/auth/account', {
      cookie: acct.cookie,
      json: { password: GOOD_PASSWORD },
    });
    assert.equal(del.status, 202, del.text);
    await erasureStarted;
    release('/chat-early.png'); // recorded while the account row is deleted but not yet erased
    const a = await workflowResultWhenStarted<{ status: string; error?: string }>(stack.client, first.id);
    assert.equal(a.status, 'failed', JSON.stringify(a));
    assert.equal(a.error, 'The account was deleted');
    const early = await first.answer;
    assert.equal(early.status, 410, early.text); // the account's own answer, not a 500
    assert.deepEqual(early.body, { error: 'The account was deleted' });
    openErasure();
    await workflowResultWhenStarted(stack.client, del.body.workflowId);
    release('/chat-late.png'); // recorded after the erasure
    const b = await workflowResultWhenStarted<{ status: string }>(stack.client, second.id);
    assert.equal(b.status, 'failed', JSON.stringify(b));
    const late = await second.answer;
    assert.equal(late.status, 410, late.text); // its job row went with the erasure: still the account's answer

    for (const id of [first.id, second.id]) {
      const keys = [
        chatKeys.reference(id, 0),
        chatKeys.graphic(id, 'local', 1, 'png'),
        chatKeys.print(chatKeys.graphic(id, 'local', 1, 'png')),
        chatKeys.mockup(id, 0),
      ];
      for (const k of keys) assert.equal(await stack.storage.exists(k), false, `${k} was deleted`);
    }
    assert.deepEqual(await ownedRowCounts(acct.userId, ['chat_messages', 'render_jobs']), {
      chat_messages: 0,
      render_jobs: 0,
    });
  });
});
