// Bulk renders (issue 35) through HTTP: POST /api/v1/generate/bulk expands designs x colours x zones into ordinary
// generations charged in one transaction, workflow bulk-<id> renders them (the dark variant on dark colours), GET
// shows progress and a page of generations, one ZIP of every mockup (read back with yauzl) and one signed
// bulk.completed; BULK_MAX_ITEMS and a short balance refuse before anything is charged; failed items and a cancel
// refund exactly; a worker stopped mid-bulk and started again loses and doubles nothing.
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { createBulkActivities } from '../../activities/bulk';
import { createMaintenanceActivities } from '../../activities/maintenance';
import { beginAccountDeletion } from '../../db/account-deletion';
import { grantTokens, tokenBalance } from '../../db/ledger';
import { namePart } from '../../lib/bulk/names';
import { createLogger } from '../../lib/log';
import { putStream, type Storage } from '../../lib/storage';
import { activeSigningSecrets } from '../../db/webhook-secrets';
import { verifyWebhookSignature } from '../../lib/webhooks/signature';
import * as inspect from '../helpers/db-inspect';
import { account, http } from '../helpers/http';
import { startCallbackReceiver, type CallbackReceiver } from '../helpers/receiver';
import { killNow, spawnWorkerProcess, startStack, type Stack } from '../helpers/stack';
import { sleep, until, waitUpTo } from '../helpers/wait';
import { zipEntries } from '../helpers/zip';

type Account = Awaited<ReturnType<typeof account>>;

const TEMPLATES = path.join(__dirname, '..', 'fixtures', 'templates');

const bytes = async (url: string) => Buffer.from(await (await fetch(url)).arrayBuffer());
const solid = (r: number, g: number, b: number, w = 400, h = 300) =>
  sharp({ create: { width: w, height: h, channels: 4, background: { r, g, b, alpha: 1 } } })
    .png()
    .toBuffer();

describe('bulk renders: POST /api/v1/generate/bulk', function () {
  this.timeout(300_000);
  let stack: Stack;
  let hooks: CallbackReceiver;
  let origin: Server;
  let originUrl: string;
  /** design requests to the slow origin are answered after this many ms */
  let originDelayMs = 0;
  let garment: any;
  let child: ChildProcess | undefined;

  before(async () => {
    stack = await startStack('bulk', {
      env: { ALLOW_PRIVATE_URLS: 'true', BULK_MAX_ITEMS: '12', BULK_CONCURRENCY: '2' },
    });
    hooks = await startCallbackReceiver();
    const design = await solid(30, 140, 60);
    origin = createServer((req, res) => {
      if (req.url?.startsWith('/missing')) return void res.writeHead(404).end('no');
      setTimeout(() => {
        if (!res.destroyed) res.writeHead(200, { 'content-type': 'image/png' }).end(design);
      }, originDelayMs);
    });
    await new Promise<void>((r) => origin.listen(0, '127.0.0.1', () => r()));
    originUrl = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`;
    const reader = await account(stack.baseUrl);
    const list = await http(stack.baseUrl, 'GET', '/api/v1/garments?category=t-shirts&limit=1', { key: reader.key });
    garment = list.body.garments[0];
    assert.ok(
      garment.colors.some((c: any) => c.name === 'Black') && garment.colors.some((c: any) => c.name === 'White'),
    );
  });
  after(async () => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    await hooks?.close();
    origin?.closeAllConnections();
    await new Promise<void>((r) => (origin ? origin.close(() => r()) : r()));
    await stack?.stop();
  });

  const upload = async (acct: Account, png: Buffer, fileName: string) => {
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(png)], { type: 'image/png' }), fileName);
    const res = await http(stack.baseUrl, 'POST', '/api/v1/upload', { key: acct.key, body: form });
    assert.equal(res.status, 201, res.text);
    return res.body.url as string;
  };
  const bulk = (acct: Account, json: unknown, headers?: Record<string, string>) =>
    http(stack.baseUrl, 'POST', '/api/v1/generate/bulk', { key: acct.key, json, ...(headers ? { headers } : {}) });
  const read = (acct: Account, id: string, q = '') =>
    http(stack.baseUrl, 'GET', `/api/v1/generate/bulk/${id}${q}`, { key: acct.key });
  /** The bulk once it has ended (finishedAt set). */
  const ended = async (acct: Account, id: string, ms = 120_000) => {
    let last = '';
    return until(
      () => `bulk ${id} to end: ${last}`,
      async () => {
        const res = await read(acct, id, '?limit=100');
        assert.equal(res.status, 200, res.text);
        last = res.text;
        return res.body.finishedAt ? res.body : undefined;
      },
      { ms, every: 150 },
    );
  };

  it('renders designs x colours x zones, the dark variant on dark colours, one ZIP and one signed bulk.completed', async () => {
    const acct = await account(stack.baseUrl);
    const before = await tokenBalance(stack.sql, acct.userId);
    const logo = await upload(acct, await solid(200, 30, 30), 'Red Logo.png');
    const light = await upload(acct, await solid(240, 240, 240), 'light ink.png');
    const res = await bulk(acct, {
      designs: [{ designUrl: logo, darkDesignUrl: light }, { designUrl: `${originUrl}/art/Green%20Star.png` }],
      targets: [{ garmentId: garment.id, colors: ['White', 'Black'], zones: ['front', 'back'] }],
      webhookUrl: hooks.url,
    });
    assert.equal(res.status, 202, res.text);
    assert.match(res.body.id, /^blk_\d+_[a-z0-9]+$/);
    assert.equal(res.body.status, 'running');
    assert.equal(res.body.total, 8);
    assert.equal(res.body.tokensCharged, 8);
    assert.equal(res.headers.get('location'), `${stack.baseUrl}/api/v1/generate/bulk/${res.body.id}`);
    // every item charged at once, in the transaction that accepted the bulk
    assert.equal(res.headers.get('x-tokens-remaining'), String(before - 8));
    assert.equal(await tokenBalance(stack.sql, acct.userId), before - 8);

    const done = await ended(acct, res.body.id);
    assert.equal(done.status, 'completed');
    assert.deepEqual([done.completed, done.failed, done.tokensRefunded], [8, 0, 0]);
    assert.equal(done.generations.length, 8);
    assert.equal(done.pagination.hasMore, false);
    // in the order of the expansion: design, colour, zone; each an ordinary generation resource
    assert.deepEqual(
      done.generations.map((g: any) => [g.color, g.zone]),
      [
        ['White', 'front'],
        ['White', 'back'],
        ['Black', 'front'],
        ['Black', 'back'],
        ['White', 'front'],
        ['White', 'back'],
        ['Black', 'front'],
        ['Black', 'back'],
      ],
    );
    // the light-ink variant goes on the dark colour only
    assert.deepEqual(
      done.generations.slice(0, 4).map((g: any) => g.designUrl),
      [logo, logo, light, light],
    );
    for (const g of done.generations) {
      assert.equal(g.status, 'completed', g.error);
      const one = await http(stack.baseUrl, 'GET', `/api/v1/generations/${g.id}`, { key: acct.key });
      assert.equal(one.body.status, 'completed');
    }
    assert.equal(await tokenBalance(stack.sql, acct.userId), before - 8);

    // the ZIP: every mockup once, named <design>-<garment>-<colour>-<zone>.jpg, the same bytes as its mockupUrl
    assert.ok(done.archiveUrl, 'archiveUrl');
    const zipRes = await fetch(done.archiveUrl);
    assert.equal(zipRes.headers.get('content-type'), 'application/zip');
    const zipBytes = Buffer.from(await zipRes.arrayBuffer());
    // streamed from storage: its length announced, no ETag (that would need the whole body)
    assert.equal(zipRes.headers.get('content-length'), String(zipBytes.length));
    assert.equal(zipRes.headers.get('etag'), null);
    assert.equal((await fetch(`${stack.baseUrl}/files/archives/blk_1_none.zip`)).status, 404);
    const entries = await zipEntries(zipBytes);
    const g0 = garment.id.toLowerCase();
    assert.deepEqual(
      [...entries.keys()],
      [
        `red-logo-${g0}-white-front.jpg`,
        `red-logo-${g0}-white-back.jpg`,
        `red-logo-${g0}-black-front.jpg`,
        `red-logo-${g0}-black-back.jpg`,
        `green-star-${g0}-white-front.jpg`,
        `green-star-${g0}-white-back.jpg`,
        `green-star-${g0}-black-front.jpg`,
        `green-star-${g0}-black-back.jpg`,
      ],
    );
    const mockups = await Promise.all(done.generations.map((g: any) => bytes(g.mockupUrl)));
    [...entries.values()].forEach((body, i) => assert.ok(body.equals(mockups[i]!), `entry ${i} is its mockup`));

    // one bulk.completed, signed with the account's secret; no per-item callback (not asked for)
    const hook = await hooks.waitFor(res.body.id);
    const payload = JSON.parse(hook.body.toString('utf8'));
    assert.equal(hook.headers['x-webhook-event'] ?? payload.event, 'bulk.completed');
    assert.equal(payload.event, 'bulk.completed');
    assert.deepEqual(payload.data, {
      id: res.body.id,
      status: 'completed',
      total: 8,
      completed: 8,
      failed: 0,
      archiveUrl: done.archiveUrl,
      tokensCharged: 8,
      tokensRefunded: 0,
    });
    const secrets = await activeSigningSecrets(stack.sql, acct.userId);
    const header = Object.entries(hook.headers).find(([k]) => k.endsWith('signature'))?.[1] as string;
    assert.equal(verifyWebhookSignature({ header, secret: secrets, body: hook.body }).valid, true);
    for (const g of done.generations) assert.equal(hooks.count(g.id), 0);

    // the workflow: bulk-<id>, searchable by account
    const d = await stack.client.workflow.getHandle(`bulk-${res.body.id}`).describe();
    assert.equal(d.type, 'bulkRender');
    assert.equal(d.status.name, 'COMPLETED');
    assert.deepEqual(d.searchAttributes.AccountId, [acct.userId]);
    await sleep(500);
    assert.equal(hooks.count(res.body.id), 1, 'bulk.completed once');

    // paging through the generations
    const p1 = await read(acct, res.body.id, '?limit=3');
    assert.equal(p1.body.generations.length, 3);
    assert.equal(p1.body.pagination.hasMore, true);
    const p2 = await read(acct, res.body.id, `?limit=100&cursor=${encodeURIComponent(p1.body.pagination.nextCursor)}`);
    assert.deepEqual(
      [...p1.body.generations, ...p2.body.generations].map((g: any) => g.id),
      done.generations.map((g: any) => g.id),
    );
    // another account does not see it
    const other = await account(stack.baseUrl);
    assert.equal((await read(other, res.body.id)).status, 404);
  });

  it('renders on templates: one item per design and template target, charged once each, named <design>-<template>-<smart object>', async () => {
    const acct = await account(stack.baseUrl);
    const form = new FormData();
    form.append(
      'file',
      new Blob([new Uint8Array(readFileSync(path.join(TEMPLATES, 'smart-objects-ag-psd.psd')))]),
      'Two Cards.psd',
    );
    const imported = await http(stack.baseUrl, 'POST', '/api/v1/templates', { key: acct.key, body: form });
    assert.equal(imported.status, 201, imported.text);
    assert.equal(imported.body.status, 'ready', imported.text);
    const tpl = imported.body;
    assert.ok(tpl.smartObjects.length >= 2, imported.text);
    const [first, second] = tpl.smartObjects as { id: string; name: string }[];
    const before = await tokenBalance(stack.sql, acct.userId);
    const logo = await upload(acct, await solid(200, 30, 30), 'Red Logo.png');

    // unknown template: 404 naming the target; unknown smart object: 400; nothing charged
    const missing = await bulk(acct, { designs: [{ designUrl: logo }], targets: [{ templateId: 'tpl_1_nope' }] });
    assert.equal(missing.status, 404, missing.text);
    assert.match(missing.body.error.message, /targets\[0\]/);
    const badSo = await bulk(acct, {
      designs: [{ designUrl: logo }],
      targets: [
        { garmentId: garment.id, colors: ['White'] },
        { templateId: tpl.id, smartObjectId: '99' },
      ],
    });
    assert.equal(badSo.status, 400, badSo.text);
    assert.equal(badSo.body.error.details.field, 'targets[1].smartObjectId');
    assert.equal(await tokenBalance(stack.sql, acct.userId), before);

    const res = await bulk(acct, {
      designs: [{ designUrl: logo }, { designUrl: `${originUrl}/art/Green%20Star.png` }],
      targets: [
        { templateId: tpl.id, smartObjectId: second!.id },
        { garmentId: garment.id, colors: ['White'] },
        { templateId: tpl.id },
      ],
    });
    assert.equal(res.status, 202, res.text);
    assert.equal(res.body.total, 6);
    assert.equal(res.body.tokensCharged, 6);
    assert.equal(await tokenBalance(stack.sql, acct.userId), before - 6);
    const done = await ended(acct, res.body.id);
    assert.equal(done.status, 'completed');
    assert.deepEqual([done.completed, done.failed, done.tokensRefunded], [6, 0, 0]);
    // one debit per item, keyed by its generation id
    for (const g of done.generations) {
      assert.equal(g.status, 'completed', g.error);
      assert.equal((await inspect.debitAmounts(g.id)).length, 1, g.id);
    }
    const onTemplate = done.generations.filter((g: any) => g.templateId);
    assert.equal(onTemplate.length, 4);
    for (const g of onTemplate) assert.equal(g.templateId, tpl.id);
    // the default smart object is the largest; the named one is used as named
    const largest = (
      await http(stack.baseUrl, 'POST', '/api/v1/generate', {
        key: acct.key,
        json: { templateId: tpl.id, designUrl: logo },
      })
    ).body;
    assert.equal(largest.status, 'completed', largest.error);
    assert.deepEqual(
      done.generations.map((g: any) => g.designs?.[0]?.smartObjectId ?? null),
      [second!.id, null, largest.designs[0].smartObjectId, second!.id, null, largest.designs[0].smartObjectId],
    );
    // a render on a template in a bulk is the same image as the single generate of the same design and smart object
    const single = await bytes(largest.mockupUrl);
    const fromBulk = await bytes(done.generations[2].mockupUrl);
    const [a, b] = await Promise.all(
      [single, fromBulk].map((buf) => sharp(buf).raw().toBuffer({ resolveWithObject: true })),
    );
    assert.deepEqual([a!.info.width, a!.info.height], [b!.info.width, b!.info.height]);
    assert.ok(a!.data.equals(b!.data), 'the same pixels as the single generate');

    const entries = await zipEntries(Buffer.from(await (await fetch(done.archiveUrl)).arrayBuffer()));
    const so = (id: string) => namePart(tpl.smartObjects.find((s: any) => s.id === id).name || id);
    const t = namePart(tpl.name);
    const big = largest.designs[0].smartObjectId;
    const g0 = garment.id.toLowerCase();
    assert.deepEqual(
      [...entries.keys()],
      [
        `red-logo-${t}-${so(second!.id)}.jpg`,
        `red-logo-${g0}-white-front.jpg`,
        `red-logo-${t}-${so(big)}.jpg`,
        `green-star-${t}-${so(second!.id)}.jpg`,
        `green-star-${g0}-white-front.jpg`,
        `green-star-${t}-${so(big)}.jpg`,
      ],
    );
    assert.ok(first);
    assert.equal(t, 'two-cards');
  });

  it("places a template item at the bulk's placement (missing members: the smart object's defaults) and renders every item in the background lane", async () => {
    const acct = await account(stack.baseUrl);
    await grantTokens(stack.sql, {
      userId: acct.userId,
      source: 'payg_purchase',
      amount: 20,
      reference: `t:${acct.userId}`,
    });
    const form = new FormData();
    form.append(
      'file',
      new Blob([new Uint8Array(readFileSync(path.join(TEMPLATES, 'smart-objects-ag-psd.psd')))]),
      'Cards.psd',
    );
    const imported = await http(stack.baseUrl, 'POST', '/api/v1/templates', { key: acct.key, body: form });
    assert.equal(imported.status, 201, imported.text);
    const tpl = imported.body;
    const logo = await upload(acct, await solid(200, 30, 30), 'Logo.png');
    const run = async (placement?: Record<string, number>) => {
      const res = await bulk(acct, {
        designs: [{ designUrl: logo }],
        targets: [{ templateId: tpl.id }, { garmentId: garment.id, colors: ['White'] }],
        ...(placement ? { placement } : {}),
      });
      assert.equal(res.status, 202, res.text);
      const done = await ended(acct, res.body.id);
      for (const g of done.generations) assert.equal(g.status, 'completed', g.error);
      return { generations: done.generations as any[], jobs: await inspect.bulkItemJobs(res.body.id) };
    };
    // a full placement: both kinds of item take it as given
    const given = { x: 30, y: 60, scale: 0.5, rotation: 15 };
    const full = await run(given);
    assert.deepEqual(full.generations[0].designs[0].placement, given);
    assert.deepEqual(full.generations[1].placement, given);
    // none: each kind its own defaults
    const none = await run();
    assert.deepEqual(none.generations[0].designs[0].placement, { x: 50, y: 50, scale: 1, rotation: 0 });
    assert.deepEqual(none.generations[1].placement, { x: 50, y: 35, scale: 0.8, rotation: 0 });
    // part of one: the members given, each kind's defaults for the others
    const part = await run({ scale: 0.4 });
    assert.deepEqual(part.generations[0].designs[0].placement, { x: 50, y: 50, scale: 0.4, rotation: 0 });
    assert.deepEqual(part.generations[1].placement, { x: 50, y: 35, scale: 0.4, rotation: 0 });
    // the placement is what was rendered: the template's mockups differ
    const [a, b] = await Promise.all(
      [full, none].map(async (r) =>
        sharp(await bytes(r.generations[0].mockupUrl))
          .raw()
          .toBuffer(),
      ),
    );
    assert.ok(!a!.equals(b!), 'another placement, another picture');
    // every item of a bulk, on a template or a garment, waits in the compositing gate's background lane
    for (const r of [full, none, part]) {
      assert.equal(r.jobs[0].kind, 'template');
      assert.deepEqual(
        r.jobs.map((j) => j.background),
        [true, true],
      );
    }
  });

  it('refuses above BULK_MAX_ITEMS, a short balance and bad input before anything is charged', async () => {
    const acct = await account(stack.baseUrl);
    const before = await tokenBalance(stack.sql, acct.userId);
    const designUrl = `${originUrl}/art/a.png`;
    // 2 designs x 7 default colours (every available one) = 14 > 12 (BULK_MAX_ITEMS in this stack)
    const available = garment.colors.filter((c: any) => c.available).length;
    const over = await bulk(acct, {
      designs: [{ designUrl }, { designUrl: `${originUrl}/art/b.png` }],
      targets: [{ garmentId: garment.id }],
    });
    assert.equal(over.status, 400, over.text);
    assert.equal(over.body.error.code, 'invalid_request');
    assert.match(over.body.error.message, /BULK_MAX_ITEMS/);
    assert.deepEqual(over.body.error.details, { total: 2 * available, max: 12 });

    for (const [json, field] of [
      [{ designs: [], targets: [{ garmentId: garment.id }] }, 'designs'],
      [{ designs: [{ designUrl }], targets: [{ garmentId: garment.id, zones: ['sleeve'] }] }, 'targets'],
      [{ designs: [{ designUrl }], targets: [{ garmentId: garment.id, colors: ['Nope'] }] }, 'targets[0].color'],
      [{ designs: [{ designUrl }], targets: [{ garmentId: 'no-such-garment' }] }, 'targets[0]'],
      [{ designs: [{ designUrl }], targets: [{ templateId: 'tpl_1_x' }] }, 'targets.0.templateId'],
      [{ designs: [{ designUrl }], targets: [{ garmentId: garment.id }], itemWebhooks: true }, 'itemWebhooks'],
    ] as const) {
      const r = await bulk(acct, json);
      assert.ok(r.status === 400 || r.status === 404, `${JSON.stringify(json)}: ${r.status} ${r.text}`);
      assert.ok(r.body.error.code, r.text);
      assert.ok(JSON.stringify(r.body.error).includes(field.split('.')[0]!), `${field}: ${r.text}`);
    }

    // 402 with required and available; nothing recorded or charged
    const poor = await account(stack.baseUrl);
    const zones = ['front', 'back'];
    await inspect.expireGrants(poor.userId);
    await grantTokens(stack.sql, { userId: poor.userId, source: 'free', amount: 3, reference: `t:${poor.userId}` });
    const short = await bulk(poor, {
      designs: [{ designUrl }],
      targets: [{ garmentId: garment.id, colors: ['White', 'Black'], zones }],
    });
    assert.equal(short.status, 402, short.text);
    assert.equal(short.body.error.code, 'insufficient_tokens');
    assert.deepEqual([short.body.error.details.required, short.body.error.details.available], [4, 3]);
    assert.equal(await tokenBalance(stack.sql, poor.userId), 3);
    assert.equal(await inspect.bulkCount(poor.userId), 0);
    assert.deepEqual(await inspect.ownedRowCounts(poor.userId, ['generations']), { generations: 0 });
    assert.equal(await tokenBalance(stack.sql, acct.userId), before);
  });

  it('refunds failed items exactly and archives the rest', async () => {
    const acct = await account(stack.baseUrl);
    const before = await tokenBalance(stack.sql, acct.userId);
    const res = await bulk(acct, {
      designs: [{ designUrl: `${originUrl}/art/ok.png` }, { designUrl: `${originUrl}/missing/gone.png` }],
      targets: [{ garmentId: garment.id, colors: ['White', 'Black'] }],
    });
    assert.equal(res.status, 202, res.text);
    const done = await ended(acct, res.body.id);
    assert.equal(done.status, 'completed');
    assert.deepEqual([done.total, done.completed, done.failed, done.tokensRefunded], [4, 2, 2, 2]);
    assert.deepEqual(
      done.generations.map((g: any) => g.status),
      ['completed', 'completed', 'failed', 'failed'],
    );
    assert.equal(await tokenBalance(stack.sql, acct.userId), before - 2);
    const entries = await zipEntries(await bytes(done.archiveUrl));
    assert.deepEqual(
      [...entries.keys()].map((n) => n.split('-')[0]),
      ['ok', 'ok'],
    );
  });

  it('cancel stops the bulk and refunds exactly what was not rendered', async () => {
    const acct = await account(stack.baseUrl);
    const before = await tokenBalance(stack.sql, acct.userId);
    originDelayMs = 1500;
    try {
      const res = await bulk(acct, {
        designs: [{ designUrl: `${originUrl}/art/slow.png` }],
        targets: [{ garmentId: garment.id, colors: ['White', 'Black', 'Navy'], zones: ['front', 'back'] }],
        webhookUrl: hooks.url,
      });
      assert.equal(res.status, 202, res.text);
      assert.equal(res.body.total, 6);
      await sleep(400); // the first two (BULK_CONCURRENCY) are in flight
      const canceled = await http(stack.baseUrl, 'POST', `/api/v1/generate/bulk/${res.body.id}/cancel`, {
        key: acct.key,
      });
      assert.equal(canceled.status, 200, canceled.text);
      assert.equal(canceled.body.status, 'canceled');
      const done = await ended(acct, res.body.id);
      assert.equal(done.status, 'canceled');
      assert.equal(done.completed + done.failed, 6);
      assert.ok(done.completed >= 1 && done.completed <= 3, `in flight when canceled: ${done.completed}`);
      assert.equal(done.tokensRefunded, done.failed);
      for (const g of done.generations.filter((x: any) => x.status === 'failed')) assert.match(g.error, /Canceled/);
      // exact: the rendered items stay charged, the rest are back
      assert.equal(await tokenBalance(stack.sql, acct.userId), before - done.completed);
      const entries = await zipEntries(await bytes(done.archiveUrl));
      assert.equal(entries.size, done.completed);
      const hook = JSON.parse((await hooks.waitFor(res.body.id)).body.toString('utf8'));
      assert.equal(hook.data.status, 'canceled');
      assert.equal(hook.data.tokensRefunded, done.failed);
      // a second cancel answers the bulk as it is
      const again = await http(stack.baseUrl, 'POST', `/api/v1/generate/bulk/${res.body.id}/cancel`, {
        key: acct.key,
      });
      assert.equal(again.status, 200);
      assert.equal(again.body.failed, done.failed);
      assert.equal(await tokenBalance(stack.sql, acct.userId), before - done.completed);
    } finally {
      originDelayMs = 0;
    }
  });

  it('the maintenance sweep closes a bulk whose workflow was terminated, every item refunded', async () => {
    const acct = await account(stack.baseUrl);
    const before = await tokenBalance(stack.sql, acct.userId);
    originDelayMs = 4000;
    try {
      const res = await bulk(acct, {
        designs: [{ designUrl: `${originUrl}/art/terminated.png` }],
        targets: [{ garmentId: garment.id, colors: ['White', 'Black', 'Navy'] }],
      });
      assert.equal(res.status, 202, res.text);
      await stack.client.workflow.getHandle(`bulk-${res.body.id}`).terminate('test: an operator ends it');
      // the sweep with GENERATION_ORPHAN_AFTER at 0: the items' workflow (the bulk's) has closed
      const acts = createMaintenanceActivities({
        sql: stack.sql,
        log: createLogger({ level: 'error' }),
        temporal: stack.client,
        config: { ...stack.config, generationOrphanAfterMs: 0 },
      });
      await acts.recoverOrphanedGenerations();
      const done = (await read(acct, res.body.id)).body;
      assert.equal(done.status, 'completed');
      assert.ok(done.finishedAt);
      assert.deepEqual([done.completed, done.failed, done.tokensRefunded, done.archiveUrl], [0, 3, 3, null]);
      assert.equal(await tokenBalance(stack.sql, acct.userId), before);
      await acts.recoverOrphanedGenerations();
      assert.equal(await tokenBalance(stack.sql, acct.userId), before, 'nothing refunded twice');
    } finally {
      originDelayMs = 0;
    }
  });

  it('a bulk finishing while its account is being deleted keeps no archive and sends no bulk.completed', async () => {
    const acct = await account(stack.baseUrl);
    const res = await bulk(acct, {
      designs: [{ designUrl: `${originUrl}/art/deleted.png` }],
      targets: [{ garmentId: garment.id, colors: ['White'] }],
      webhookUrl: hooks.url,
    });
    assert.equal(res.status, 202, res.text);
    const done = await ended(acct, res.body.id);
    assert.equal(done.completed, 1);
    await hooks.waitFor(res.body.id);
    // the moment before its last step: items rendered, no archive, the row open
    const key = `archives/${res.body.id}.zip`;
    await stack.storage.delete(key);
    await inspect.reopenBulk(res.body.id);

    // the deletion is asked for while the archive is being written (after the check before it)
    let writes = 0;
    const storage: Storage = {
      kind: stack.storage.kind,
      put: (k, b, t) => stack.storage.put(k, b, t),
      get: (k) => stack.storage.get(k),
      exists: (k) => stack.storage.exists(k),
      delete: (k) => stack.storage.delete(k),
      async putStream(k, body, t) {
        writes++;
        await putStream(stack.storage, k, body, t);
        assert.equal(await beginAccountDeletion(stack.sql, acct.userId), true);
      },
    };
    const activities = createBulkActivities({
      sql: stack.sql,
      storage,
      config: stack.config,
      log: createLogger({ level: 'warn' }),
    });
    const finished = await activities.finishBulk(res.body.id);
    assert.equal(writes, 1);
    assert.equal(finished.accountDeleted, true);
    assert.equal(finished.webhookUrl, null, 'no bulk.completed');
    assert.equal(finished.archiveUrl, null);
    assert.equal(await stack.storage.exists(key), false, 'the archive written meanwhile was deleted');
    assert.deepEqual(await inspect.bulkArchive(res.body.id), { archiveKey: null, finishedAt: null });
    // run again (a retry): the deletion is seen before anything is written
    const again = await activities.finishBulk(res.body.id);
    assert.equal(again.accountDeleted, true);
    assert.equal(writes, 1);
    assert.equal(await stack.storage.exists(key), false);
  });

  it('honours Idempotency-Key: a retry answers the same bulk and charges nothing more', async () => {
    const acct = await account(stack.baseUrl);
    const before = await tokenBalance(stack.sql, acct.userId);
    const json = {
      designs: [{ designUrl: `${originUrl}/art/idem.png` }],
      targets: [{ garmentId: garment.id, colors: ['White'] }],
    };
    const first = await bulk(acct, json, { 'Idempotency-Key': 'bulk-once-1' });
    const second = await bulk(acct, json, { 'Idempotency-Key': 'bulk-once-1' });
    assert.equal(first.status, 202);
    assert.equal(second.status, 202);
    assert.equal(second.body.id, first.body.id);
    assert.equal(second.headers.get('idempotent-replayed'), 'true');
    await ended(acct, first.body.id);
    assert.equal(await tokenBalance(stack.sql, acct.userId), before - 1);
    assert.equal(await inspect.bulkCount(acct.userId), 1);
  });

  it('a worker killed mid-bulk (SIGKILL) and another taking over loses and doubles nothing', async () => {
    const acct = await account(stack.baseUrl);
    const before = await tokenBalance(stack.sql, acct.userId);
    // the first worker: the real worker process on this stack's task queue, killed without warning mid-bulk
    await stack.stopWorker();
    child = spawnWorkerProcess(stack);
    // each design read takes 2.5 s: the worker dies with the first design's two items done and the second's in flight
    originDelayMs = 2500;
    try {
      const res = await bulk(acct, {
        // three designs (the worker reads each once, then keeps it): two items of each
        designs: [1, 2, 3].map((i) => ({ designUrl: `${originUrl}/art/restart-${i}.png` })),
        targets: [{ garmentId: garment.id, colors: ['White', 'Black'] }],
        webhookUrl: hooks.url,
      });
      assert.equal(res.status, 202, res.text);
      // (up to 2400 reads, as many minutes as the loaded machine needs to start the worker process)
      await waitUpTo(async () => (await read(acct, res.body.id)).body.completed >= 2, { ms: 240_000, every: 25 });
      await killNow(child);
      const mid = (await read(acct, res.body.id)).body;
      assert.ok(mid.completed >= 2 && mid.completed < 6, `killed mid-bulk (${mid.completed} of 6 done)`);
      originDelayMs = 200;
      await stack.startWorker();
      const done = await ended(acct, res.body.id, 180_000);
      assert.equal(done.status, 'completed');
      assert.deepEqual([done.completed, done.failed], [6, 0]);
      const ids = done.generations.map((g: any) => g.id);
      // one debit each, no refund, one mockup each in the archive, one callback
      const debits = await Promise.all(ids.map((id: string) => inspect.debitAmounts(id)));
      assert.equal(debits.flat().length, 6);
      const refunds = await Promise.all(ids.map((id: string) => inspect.refundAmounts(id)));
      assert.equal(refunds.flat().length, 0);
      assert.equal(await tokenBalance(stack.sql, acct.userId), before - 6);
      const entries = await zipEntries(await bytes(done.archiveUrl));
      assert.equal(entries.size, 6);
      await hooks.waitFor(res.body.id);
      await sleep(500);
      assert.equal(hooks.count(res.body.id), 1);
    } finally {
      originDelayMs = 0;
    }
  });
});
