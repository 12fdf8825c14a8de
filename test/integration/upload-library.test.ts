// The design library (issue 35) through HTTP: uploads listed newest first with cursor pages and a name filter, read
// with their name and latest analysis, renamed, deleted (files gone at once, the quota counting what is left, a later
// generate refused with "design was deleted", mockups made from it kept), and each mode seeing its own uploads.
import assert from 'node:assert/strict';
import net from 'node:net';
import { Client, Connection } from '@temporalio/client';
import sharp from 'sharp';
import { storageUsed } from '../../db/uploads';
import { dropAnalysisVersion, uploadSize } from '../helpers/db-inspect';
import * as F from '../helpers/fixtures';
import { account, createKey, http } from '../helpers/http';
import { unreachableTemporal, useStack, withApiOn } from '../helpers/stack';
import { createUploadAnalysisActivities } from '../../activities/upload-analysis';
import { ownFileKey } from '../../lib/fetch';
import { createLogger } from '../../lib/log';
import { uploadAnalysisWorkflowId } from '../../lib/uploads/types';
import { until } from '../helpers/wait';

type Account = Awaited<ReturnType<typeof account>>;

describe('design library: GET/PATCH/DELETE /api/v1/uploads', function () {
  this.timeout(180_000);
  const stack = useStack('upload-library');
  let acct: Account;
  let garment: any;

  before(async () => {
    acct = await account(stack.baseUrl);
    const list = await http(stack.baseUrl, 'GET', '/api/v1/garments?category=t-shirts&limit=1', { key: acct.key });
    garment = list.body.garments[0];
  });

  const multipart = (key: string, png: Buffer, fileName: string) => {
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(png)], { type: 'image/png' }), fileName);
    return http(stack.baseUrl, 'POST', '/api/v1/upload', { key, body: form });
  };
  const jsonUpload = (key: string, png: Buffer, name?: string) =>
    http(stack.baseUrl, 'POST', '/api/v1/upload', {
      key,
      json: { imageData: F.toDataUrl(png), ...(name === undefined ? {} : { name }) },
    });
  /** A small design no other test uploads (dedup is per account, so bytes must differ to make new uploads). */
  let seed = 0;
  const design = () => F.stripes(2 + (seed++ % 6), 300 + seed, 360);

  it('names uploads from the file name or `name`, and lists them newest first in cursor pages', async () => {
    const a = await account(stack.baseUrl);
    const first = await multipart(a.key, await design(), 'Summer Logo.png');
    assert.equal(first.status, 201, first.text);
    const second = await jsonUpload(a.key, await design(), 'Winter 50% sale');
    assert.equal(second.status, 201, second.text);
    const third = await jsonUpload(a.key, await design());
    assert.equal(third.status, 201, third.text);

    const page1 = await http(stack.baseUrl, 'GET', '/api/v1/uploads?limit=2', { key: a.key });
    assert.equal(page1.status, 200, page1.text);
    assert.deepEqual(
      page1.body.uploads.map((u: any) => [u.id, u.name]),
      [
        [third.body.id, 'Untitled'],
        [second.body.id, 'Winter 50% sale'],
      ],
    );
    assert.equal(page1.body.pagination.hasMore, true);
    const u = page1.body.uploads[1];
    assert.equal(u.url, second.body.url);
    assert.equal(u.thumbnailUrl, second.body.thumbnailUrl);
    assert.ok(!Number.isNaN(Date.parse(u.createdAt)));
    const page2 = await http(
      stack.baseUrl,
      'GET',
      `/api/v1/uploads?limit=2&cursor=${encodeURIComponent(page1.body.pagination.nextCursor)}`,
      { key: a.key },
    );
    assert.deepEqual(
      page2.body.uploads.map((x: any) => [x.id, x.name]),
      [[first.body.id, 'Summer Logo']],
    );
    assert.deepEqual(page2.body.pagination, { hasMore: false, nextCursor: null });

    // q: any case, % taken literally; a cursor of another filter is refused
    const q = await http(stack.baseUrl, 'GET', `/api/v1/uploads?q=${encodeURIComponent('50%')}`, { key: a.key });
    assert.deepEqual(
      q.body.uploads.map((x: any) => x.id),
      [second.body.id],
    );
    const logo = await http(stack.baseUrl, 'GET', '/api/v1/uploads?q=LOGO', { key: a.key });
    assert.deepEqual(
      logo.body.uploads.map((x: any) => x.id),
      [first.body.id],
    );
    const wrong = await http(
      stack.baseUrl,
      'GET',
      `/api/v1/uploads?q=logo&cursor=${encodeURIComponent(page1.body.pagination.nextCursor)}`,
      { key: a.key },
    );
    assert.equal(wrong.status, 400);
    assert.equal(wrong.body.error.code, 'invalid_request');
    const bad = await http(stack.baseUrl, 'GET', '/api/v1/uploads?limit=0', { key: a.key });
    assert.equal(bad.status, 400);
    const unknown = await http(stack.baseUrl, 'GET', '/api/v1/uploads?sort=name', { key: a.key });
    assert.equal(unknown.status, 400);
  });

  it('analyses each new upload in the worker (workflow upload-analysis-<id>, AccountId), once, and keeps it', async () => {
    const png = await design();
    const up = await multipart(acct.key, png, 'worker.png');
    assert.equal(up.status, 201, up.text);
    // it waits UPLOAD_ANALYSIS_DELAY (5 s) first: after the client's burst of requests, not beside them
    const early = await http(stack.baseUrl, 'GET', `/api/v1/uploads/${up.body.id}`, { key: acct.key });
    assert.equal(early.body.analyzedAt, null);
    const handle = stack.client.workflow.getHandle(uploadAnalysisWorkflowId(up.body.id));
    assert.deepEqual(await handle.result(), { status: 'analyzed' });
    const desc = await handle.describe();
    assert.equal(desc.taskQueue, stack.taskQueue);
    assert.deepEqual(desc.searchAttributes.AccountId, [acct.userId]);
    const got = await http(stack.baseUrl, 'GET', `/api/v1/uploads/${up.body.id}`, { key: acct.key });
    assert.ok(got.body.analyzedAt, got.text);
    // what the worker kept is POST /analyze's answer for quantity 50, served as kept
    const asked = await http(stack.baseUrl, 'POST', '/api/v1/analyze', {
      key: acct.key,
      json: { imageUrl: up.body.url, quantity: 50 },
    });
    assert.equal(asked.status, 200, asked.text);
    assert.deepEqual(asked.body, got.body.analysis);
    // the same bytes again: the earlier upload (200), no second analysis
    const again = await multipart(acct.key, png, 'worker again.png');
    assert.equal(again.status, 200, again.text);
    assert.equal((await handle.describe()).runId, desc.runId);

    // the activity run again (a retry after its result was lost) keeps what is there; a deleted upload is left alone
    const { analyzeUpload } = createUploadAnalysisActivities({ ...stack, log: createLogger({ level: 'error' }) });
    const key = ownFileKey(stack.config.publicBaseUrl, up.body.url)!;
    const input = { uploadId: up.body.id, accountId: acct.userId, storageKey: key };
    assert.deepEqual(await analyzeUpload(input), { status: 'kept' });
    const after = await http(stack.baseUrl, 'GET', `/api/v1/uploads/${up.body.id}`, { key: acct.key });
    assert.equal(after.body.analyzedAt, got.body.analyzedAt);
    const del = await http(stack.baseUrl, 'DELETE', `/api/v1/uploads/${up.body.id}`, { key: acct.key });
    assert.equal(del.status, 204);
    assert.deepEqual(await analyzeUpload(input), { status: 'gone' });
  });

  it('a POST /analyze of the upload before the worker gets to it is made in the API; the worker then keeps it', async () => {
    const up = await jsonUpload(acct.key, await design(), 'asked first');
    assert.equal(up.status, 201, up.text);
    const asked = await http(stack.baseUrl, 'POST', '/api/v1/analyze', {
      key: acct.key,
      json: { imageUrl: up.body.url },
    });
    assert.equal(asked.status, 200, asked.text);
    const before = await http(stack.baseUrl, 'GET', `/api/v1/uploads/${up.body.id}`, { key: acct.key });
    assert.ok(before.body.analyzedAt);
    const handle = stack.client.workflow.getHandle(uploadAnalysisWorkflowId(up.body.id));
    assert.deepEqual(await handle.result(), { status: 'kept' });
    const after = await http(stack.baseUrl, 'GET', `/api/v1/uploads/${up.body.id}`, { key: acct.key });
    assert.equal(after.body.analyzedAt, before.body.analyzedAt);
    assert.deepEqual(after.body.analysis, asked.body);
  });

  it('an upload the API could not hand to the worker (Temporal down or silent) is still stored; its first ask analyses it', async function () {
    this.timeout(60_000);
    // a Temporal frontend that accepts connections and never answers: the start gives up at its deadline
    const hole = net.createServer(() => {});
    await new Promise<void>((r) => hole.listen(0, '127.0.0.1', r));
    const silent = new Client({
      connection: Connection.lazy({ address: `127.0.0.1:${(hole.address() as net.AddressInfo).port}` }),
      namespace: stack.config.temporal.namespace,
    });
    try {
      for (const temporal of [unreachableTemporal(), silent]) {
        const png = await design();
        const up = await withApiOn(stack, temporal, (base) =>
          http(base, 'POST', '/api/v1/upload', { key: acct.key, json: { imageData: F.toDataUrl(png) } }),
        );
        assert.equal(up.status, 201, up.text);
        const read = await http(stack.baseUrl, 'GET', `/api/v1/uploads/${up.body.id}`, { key: acct.key });
        assert.equal(read.body.analyzedAt, null);
        const asked = await http(stack.baseUrl, 'POST', '/api/v1/analyze', {
          key: acct.key,
          json: { imageUrl: up.body.url },
        });
        assert.equal(asked.status, 200, asked.text);
        const kept = await http(stack.baseUrl, 'GET', `/api/v1/uploads/${up.body.id}`, { key: acct.key });
        assert.deepEqual(kept.body.analysis, asked.body);
      }
    } finally {
      await silent.connection.close().catch(() => {});
      hole.close();
    }
  });

  it('POST /analyze of an upload serves the analysis kept from it when this version made it for that quantity', async () => {
    const up = await jsonUpload(acct.key, await F.crispLogo(500, 600), 'kept');
    assert.equal(up.status, 201, up.text);
    const read = () => http(stack.baseUrl, 'GET', `/api/v1/uploads/${up.body.id}`, { key: acct.key });
    // the analysis made after the upload's answer (quantity 50)
    const first = await until('the analysis after the upload', async () => {
      const r = await read();
      return r.body.analyzedAt ? r.body : null;
    });
    const ask = (quantity: number) =>
      http(stack.baseUrl, 'POST', '/api/v1/analyze', { key: acct.key, json: { imageUrl: up.body.url, quantity } });
    const same = await ask(50);
    assert.equal(same.status, 200, same.text);
    assert.deepEqual(same.body, first.analysis);
    assert.equal((await read()).body.analyzedAt, first.analyzedAt, 'served as kept, not made again');
    // another quantity is another answer: made and kept
    const more = await ask(500);
    assert.equal(more.status, 200, more.text);
    const afterMore = (await read()).body;
    assert.notEqual(afterMore.analyzedAt, first.analyzedAt);
    assert.deepEqual(afterMore.analysis, more.body);
    // an analysis kept without its version (made before analyses had one) is made again
    await dropAnalysisVersion(up.body.id);
    const again = await ask(500);
    assert.equal(again.status, 200, again.text);
    assert.deepEqual(again.body, more.body);
    assert.notEqual((await read()).body.analyzedAt, afterMore.analyzedAt);
  });

  it('reads an upload with its latest analysis, renames it, and keeps other accounts out', async () => {
    const up = await jsonUpload(acct.key, await F.crispLogo(600, 750), 'logo');
    assert.equal(up.status, 201, up.text);
    // the analysis made after the upload, or the one POST /analyze keeps: either way it is there
    const analysed = await http(stack.baseUrl, 'POST', '/api/v1/analyze', {
      key: acct.key,
      json: { imageUrl: up.body.url, quantity: 100 },
    });
    assert.equal(analysed.status, 200, analysed.text);
    const got = await http(stack.baseUrl, 'GET', `/api/v1/uploads/${up.body.id}`, { key: acct.key });
    assert.equal(got.status, 200, got.text);
    assert.equal(got.body.name, 'logo');
    assert.deepEqual(got.body.analysis.colors, analysed.body.colors);
    assert.ok(got.body.analyzedAt);
    assert.deepEqual(got.body.dimensions, { width: 600, height: 750 });

    const renamed = await http(stack.baseUrl, 'PATCH', `/api/v1/uploads/${up.body.id}`, {
      key: acct.key,
      json: { name: '  Club crest v2 ' },
    });
    assert.equal(renamed.status, 200, renamed.text);
    assert.equal(renamed.body.name, 'Club crest v2');
    for (const body of [{ name: '' }, { name: 'x'.repeat(201) }, {}, { name: 'a', extra: 1 }, { name: 'a\nb' }]) {
      const res = await http(stack.baseUrl, 'PATCH', `/api/v1/uploads/${up.body.id}`, { key: acct.key, json: body });
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.error.code, 'invalid_request');
    }

    const other = await account(stack.baseUrl);
    for (const [method, json] of [
      ['GET', undefined],
      ['PATCH', { name: 'mine now' }],
      ['DELETE', undefined],
    ] as const) {
      const res = await http(stack.baseUrl, method, `/api/v1/uploads/${up.body.id}`, { key: other.key, json });
      assert.equal(res.status, 404, `${method}: ${res.text}`);
      assert.equal(res.body.error.code, 'not_found');
    }
    const list = await http(stack.baseUrl, 'GET', '/api/v1/uploads', { key: other.key });
    assert.deepEqual(list.body.uploads, []);
  });

  it('deletes an upload: files gone at once, quota counts what is left, generate refused, mockups kept', async () => {
    const a = await account(stack.baseUrl);
    const keep = await jsonUpload(a.key, await design(), 'keep');
    const gone = await jsonUpload(a.key, await F.crispLogo(800, 1000), 'gone');
    assert.equal(gone.status, 201, gone.text);
    const gen = await http(stack.baseUrl, 'POST', '/api/v1/generate', {
      key: a.key,
      json: { designUrl: gone.body.url, garmentId: garment.id, garmentImageUrl: garment.colors[0].imageUrl },
    });
    assert.equal(gen.status, 200, gen.text);
    assert.equal(gen.body.status, 'completed', gen.text);
    const before = await storageUsed(stack.sql, a.userId);

    const del = await http(stack.baseUrl, 'DELETE', `/api/v1/uploads/${gone.body.id}`, { key: a.key });
    assert.equal(del.status, 204, del.text);
    assert.equal(del.text, '');
    for (const url of [gone.body.url, gone.body.thumbnailUrl]) assert.equal((await fetch(url)).status, 404, url);
    assert.equal((await fetch(gen.body.mockupUrl)).status, 200, 'the mockup made from it stays');
    assert.equal((await http(stack.baseUrl, 'GET', `/api/v1/uploads/${gone.body.id}`, { key: a.key })).status, 404);
    assert.equal((await http(stack.baseUrl, 'DELETE', `/api/v1/uploads/${gone.body.id}`, { key: a.key })).status, 404);
    const list = await http(stack.baseUrl, 'GET', '/api/v1/uploads', { key: a.key });
    assert.deepEqual(
      list.body.uploads.map((u: any) => u.id),
      [keep.body.id],
    );

    // what is left: the kept upload's files alone
    const kept = await uploadSize(keep.body.id);
    const after = await storageUsed(stack.sql, a.userId);
    assert.ok(after < before);
    assert.equal(after, kept.sizeBytes + kept.thumbnailBytes + kept.levelsBytes);

    const refused = await http(stack.baseUrl, 'POST', '/api/v1/generate', {
      key: a.key,
      json: { designUrl: gone.body.url, garmentId: garment.id, garmentImageUrl: garment.colors[0].imageUrl },
    });
    assert.equal(refused.status, 400, refused.text);
    assert.equal(refused.body.error.code, 'invalid_request');
    assert.equal(refused.body.error.message, 'design was deleted');
    assert.equal(refused.body.error.details.uploadId, gone.body.id);
    const batch = await http(stack.baseUrl, 'POST', '/api/v1/generate/batch', {
      key: a.key,
      json: { designUrl: gone.body.url, garmentId: garment.id, items: [{ color: garment.colors[0].name }] },
    });
    assert.equal(batch.status, 400, batch.text);
    assert.equal(batch.body.error.message, 'design was deleted');

    // the same bytes again make a new upload
    const again = await jsonUpload(a.key, await F.crispLogo(800, 1000), 'back');
    assert.equal(again.status, 201, again.text);
    assert.notEqual(again.body.id, gone.body.id);
  });

  it('shows each mode its own uploads', async () => {
    const a = await account(stack.baseUrl);
    const test = await createKey(stack.baseUrl, a.cookie, { name: 'sandbox', mode: 'test' });
    const png = await design();
    const live = await jsonUpload(a.key, png, 'live one');
    const sandbox = await jsonUpload(test.key, png, 'test one');
    assert.equal(live.status, 201, live.text);
    assert.equal(sandbox.status, 201, 'the same bytes in the other mode are an upload of that mode');
    assert.notEqual(sandbox.body.id, live.body.id);
    const liveList = await http(stack.baseUrl, 'GET', '/api/v1/uploads', { key: a.key });
    const testList = await http(stack.baseUrl, 'GET', '/api/v1/uploads', { key: test.key });
    assert.deepEqual(
      liveList.body.uploads.map((u: any) => u.id),
      [live.body.id],
    );
    assert.deepEqual(
      testList.body.uploads.map((u: any) => u.id),
      [sandbox.body.id],
    );
    assert.equal((await http(stack.baseUrl, 'GET', `/api/v1/uploads/${live.body.id}`, { key: test.key })).status, 404);
    // the dashboard's session chooses its mode with X-Mockup-Mode
    const session = await http(stack.baseUrl, 'GET', '/api/v1/uploads', {
      cookie: a.cookie,
      headers: { 'X-Mockup-Mode': 'test' },
    });
    assert.deepEqual(
      session.body.uploads.map((u: any) => u.id),
      [sandbox.body.id],
    );
  });

  it('warns low_contrast for a navy design on black, not on white (generate and batch)', async () => {
    const navy = await sharp({
      create: { width: 600, height: 600, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } },
    })
      .composite([
        {
          input: Buffer.from(
            '<svg xmlns="http://www.w3.org/2000/svg" width="600" height="600"><circle cx="300" cy="300" r="240" fill="#1F2A44"/></svg>',
          ),
        },
      ])
      .png()
      .toBuffer();
    const up = await jsonUpload(acct.key, navy, 'navy circle');
    assert.equal(up.status, 201, up.text);
    const black = garment.colors.find((c: any) => c.name === 'Black');
    const white = garment.colors.find((c: any) => c.name === 'White');
    assert.ok(black && white, 'the t-shirt comes in black and white');
    const gen = (color: any) =>
      http(stack.baseUrl, 'POST', '/api/v1/generate', {
        key: acct.key,
        json: { designUrl: up.body.url, garmentId: garment.id, garmentImageUrl: color.imageUrl },
      });
    const onBlack = await gen(black);
    assert.equal(onBlack.status, 200, onBlack.text);
    assert.equal(onBlack.body.status, 'completed', 'a warning, never a refusal');
    assert.equal(onBlack.body.warnings.length, 1, onBlack.text);
    const [w] = onBlack.body.warnings;
    assert.equal(w.code, 'low_contrast');
    assert.match(w.message, /hard to see on Black/);
    assert.equal(w.details.garmentColor, 'Black');
    assert.ok(w.details.lowShare >= 0.9, JSON.stringify(w.details));
    const onWhite = await gen(white);
    assert.equal(onWhite.status, 200, onWhite.text);
    assert.deepEqual(onWhite.body.warnings, []);
    const read = await http(stack.baseUrl, 'GET', `/api/v1/generations/${onBlack.body.id}`, { key: acct.key });
    assert.deepEqual(read.body.warnings, onBlack.body.warnings);

    // the same check before generating, for every colour of the garment (the studio shows it)
    const c = await http(stack.baseUrl, 'GET', `/api/v1/uploads/${up.body.id}/contrast?garmentId=${garment.id}`, {
      key: acct.key,
    });
    assert.equal(c.status, 200, c.text);
    const byName = new Map(c.body.colors.map((x: any) => [x.name, x]));
    assert.equal((byName.get('Black') as any).warning.code, 'low_contrast');
    assert.equal((byName.get('Black') as any).dark, true);
    assert.equal((byName.get('White') as any).warning, null);
    assert.equal((byName.get('White') as any).dark, false);
    const noGarment = await http(stack.baseUrl, 'GET', `/api/v1/uploads/${up.body.id}/contrast`, { key: acct.key });
    assert.equal(noGarment.status, 400);

    const batch = await http(stack.baseUrl, 'POST', '/api/v1/generate/batch', {
      key: acct.key,
      json: { designUrl: up.body.url, garmentId: garment.id, items: [{ color: 'Black' }, { color: 'White' }] },
    });
    assert.equal(batch.status, 200, batch.text);
    assert.deepEqual(
      batch.body.generations.map((g: any) => g.warnings.map((x: any) => x.code)),
      [['low_contrast'], []],
    );
  });
});
