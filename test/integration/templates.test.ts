// Templates through HTTP on the real stack (docs/templates.md): import (multipart and URL, sync 201 and async 202),
// the resource, list with cursor pages, read, delete, test mode, Idempotency-Key, and every hostile file refused with
// a 400 before anything is stored or parsed.
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { storageUsed } from '../../db/uploads';
import { templateImportWorkflowId } from '../../lib/template-import/types';
import { fileUrl } from '../../lib/storage';
import * as inspect from '../helpers/db-inspect';
import { account, createKey, http, type HttpResult } from '../helpers/http';
import { mockupPsd, rawPsd, zipChannel, type RawLayer } from '../helpers/psd';
import { startStack, type Stack } from '../helpers/stack';
import { waitUpTo } from '../helpers/wait';

const MAX_BYTES = 6 * 1024 * 1024;

describe('templates (POST/GET/DELETE /api/v1/templates)', () => {
  let stack: Stack;
  let key: string;
  let cookie: string;
  let userId: string;
  before(async () => {
    stack = await startStack('templates', { env: { TEMPLATE_MAX_BYTES: String(MAX_BYTES) } });
    ({ key, cookie, userId } = await account(stack.baseUrl));
  });
  after(async () => stack?.stop());

  function upload(
    bytes: Buffer,
    opts: { k?: string; name?: string; filename?: string; headers?: Record<string, string> } = {},
  ) {
    const form = new FormData();
    if (opts.name) form.append('name', opts.name);
    form.append('file', new Blob([new Uint8Array(bytes)]), opts.filename ?? 'Tee mockup.psd');
    return http(stack.baseUrl, 'POST', '/api/v1/templates', { key: opts.k ?? key, body: form, headers: opts.headers });
  }

  async function ready(id: string, k = key): Promise<HttpResult> {
    const res = await waitUpTo(
      async () => {
        const got = await http(stack.baseUrl, 'GET', `/api/v1/templates/${id}`, { key: k });
        return got.body.status !== 'processing' && got;
      },
      { ms: 20_000, every: 100 },
    );
    if (!res) throw new Error(`template ${id} still processing`);
    return res;
  }

  const listAll = async (k = key) => (await http(stack.baseUrl, 'GET', '/api/v1/templates?limit=100', { key: k })).body;

  it('imports a PSD with a smart object: 201 with exactly the resource, its preview and thumbnail', async () => {
    const psd = mockupPsd();
    const res = await upload(psd);
    assert.equal(res.status, 201, res.text);
    const t = res.body;
    assert.deepEqual(Object.keys(t).sort(), [
      'fidelity',
      'height',
      'id',
      'name',
      'previewUrl',
      'smartObjects',
      'status',
      'thumbnailUrl',
      'unsupported',
      'width',
    ]);
    assert.match(t.id, /^tpl_\d+_[a-z0-9]+$/);
    assert.equal(t.name, 'Tee mockup');
    assert.equal(t.status, 'ready');
    assert.deepEqual([t.width, t.height], [600, 400]);
    assert.equal(t.smartObjects.length, 1);
    const so = t.smartObjects[0];
    assert.deepEqual(Object.keys(so).sort(), ['blendMode', 'height', 'id', 'name', 'quad', 'warp', 'width']);
    assert.equal(so.name, 'Your design');
    assert.deepEqual(so.quad, [
      [200, 120],
      [400, 120],
      [400, 270],
      [200, 270],
    ]);
    assert.equal(t.fidelity.comparedTo, 'photoshop-composite');
    assert.equal(typeof t.fidelity.psnr, 'number');
    assert.ok(Array.isArray(t.unsupported));
    // the preview: a lossless PNG at the template's full size; the thumbnail at most 400 px
    const preview = await fetch(t.previewUrl);
    assert.equal(preview.headers.get('content-type'), 'image/png');
    const meta = await sharp(Buffer.from(await preview.arrayBuffer())).metadata();
    assert.deepEqual([meta.format, meta.width, meta.height], ['png', 600, 400]);
    const thumb = await sharp(Buffer.from(await (await fetch(t.thumbnailUrl)).arrayBuffer())).metadata();
    assert.ok(thumb.width! <= 400 && thumb.height! <= 400);
    // the import is the workflow template-import-<id>, on the template queue, findable by AccountId
    const desc = await stack.client.workflow.getHandle(templateImportWorkflowId(t.id)).describe();
    assert.equal(desc.taskQueue, stack.config.templates.taskQueue);
    assert.notEqual(desc.taskQueue, stack.config.temporal.taskQueue);
    assert.deepEqual(desc.searchAttributes.AccountId, [userId]);
    // the source PSD and the prepared buffers are not public files
    const src = await fetch(`${stack.baseUrl}/files/templates/${t.id}/source.psd`);
    assert.equal(src.status, 404);
    assert.equal((await fetch(`${stack.baseUrl}/files/templates/${t.id}/prepared.json`)).status, 404);
  });

  it('imports a PSB from a URL (JSON {url, name}); Prefer: respond-async answers 202 and the client polls', async () => {
    const k = `test-designs/mockup-${Date.now()}.psb`;
    await stack.storage.put(k, mockupPsd({ psb: true }), 'application/octet-stream');
    const res = await http(stack.baseUrl, 'POST', '/api/v1/templates', {
      key,
      json: { url: fileUrl(stack.config, k), name: 'Mug' },
      headers: { prefer: 'respond-async' },
    });
    assert.equal(res.status, 202, res.text);
    assert.equal(res.body.status, 'processing');
    assert.equal(res.body.previewUrl, null);
    assert.equal(res.headers.get('location'), `${stack.baseUrl}/api/v1/templates/${res.body.id}`);
    assert.equal(res.headers.get('preference-applied'), 'respond-async');
    const done = await ready(res.body.id);
    assert.equal(done.body.status, 'ready', done.text);
    assert.equal(done.body.name, 'Mug');
    assert.equal(done.body.smartObjects.length, 1);
  });

  it('refuses URLs the SSRF guard refuses, and bodies of neither form', async () => {
    const res = await http(stack.baseUrl, 'POST', '/api/v1/templates', {
      key,
      json: { url: 'http://127.0.0.1:9/x.psd' },
    });
    assert.equal(res.status, 400, res.text);
    assert.equal(res.body.error.details.reason, 'blocked_address');
    const bad = await http(stack.baseUrl, 'POST', '/api/v1/templates', { key, json: { url: 'ftp://x/y.psd' } });
    assert.equal(bad.status, 400);
    const none = await http(stack.baseUrl, 'POST', '/api/v1/templates', {
      key,
      body: 'x',
      headers: { 'content-type': 'text/plain' },
    });
    assert.equal(none.status, 400);
    assert.match(none.body.error.message, /part named "file"/);
  });

  it('lists with cursor pages, reads one, deletes it (204, its files gone, then 404)', async () => {
    const a = await upload(mockupPsd(), { name: 'A' });
    const b = await upload(mockupPsd(), { name: 'B' });
    assert.equal(b.status, 201, b.text);
    const p1 = await http(stack.baseUrl, 'GET', '/api/v1/templates?limit=1', { key });
    assert.equal(p1.status, 200);
    assert.deepEqual(
      p1.body.templates.map((t: { id: string }) => t.id),
      [b.body.id],
    );
    assert.equal(p1.body.pagination.hasMore, true);
    const p2 = await http(
      stack.baseUrl,
      'GET',
      `/api/v1/templates?limit=1&cursor=${encodeURIComponent(p1.body.pagination.nextCursor)}`,
      { key },
    );
    assert.deepEqual(
      p2.body.templates.map((t: { id: string }) => t.id),
      [a.body.id],
    );
    const bad = await http(stack.baseUrl, 'GET', '/api/v1/templates?cursor=nonsense', { key });
    assert.equal(bad.status, 400);
    assert.match(bad.body.error.message, /Invalid cursor/);

    const got = await http(stack.baseUrl, 'GET', `/api/v1/templates/${a.body.id}`, { key });
    assert.deepEqual(got.body, a.body);
    const del = await http(stack.baseUrl, 'DELETE', `/api/v1/templates/${a.body.id}`, { key });
    assert.equal(del.status, 204);
    assert.equal((await http(stack.baseUrl, 'GET', `/api/v1/templates/${a.body.id}`, { key })).status, 404);
    assert.equal((await http(stack.baseUrl, 'DELETE', `/api/v1/templates/${a.body.id}`, { key })).status, 404);
    assert.equal((await fetch(a.body.previewUrl)).status, 404);
    assert.equal(await stack.storage.exists(`templates/${a.body.id}/source.psd`), false);
    assert.equal(await stack.storage.exists(`templates/${a.body.id}/prepared.json`), false);
    // another account sees none of them
    const other = await account(stack.baseUrl);
    assert.equal((await http(stack.baseUrl, 'GET', `/api/v1/templates/${b.body.id}`, { key: other.key })).status, 404);
    assert.deepEqual((await listAll(other.key)).templates, []);
  });

  it('counts the file against the storage quota as uploads do: 413 past it, the bytes back on delete', async () => {
    const a = await account(stack.baseUrl);
    const used = () => storageUsed(stack.sql, a.userId);
    const psd = mockupPsd();
    const res = await upload(psd, { k: a.key });
    assert.equal(res.status, 201, res.text);
    assert.equal(await used(), psd.length);
    // the account near its quota: the next template does not fit, nothing is stored or recorded
    const limit = stack.config.uploads.quotaBytes;
    await inspect.skewStorageUsage(a.userId, limit - 10 - (await used()));
    const over = await upload(psd, { k: a.key });
    assert.equal(over.status, 413, over.text);
    assert.equal(over.body.error.code, 'storage_quota_exceeded');
    assert.equal(over.body.error.details.requiredBytes, psd.length);
    assert.deepEqual(
      (await listAll(a.key)).templates.map((t: any) => t.id),
      [res.body.id],
    );
    await inspect.skewStorageUsage(a.userId, psd.length - (await used()));
    const del = await http(stack.baseUrl, 'DELETE', `/api/v1/templates/${res.body.id}`, { key: a.key });
    assert.equal(del.status, 204);
    assert.equal(await used(), 0);
  });

  it('test mode: a test key sees only test templates, a live key only live ones', async () => {
    const testKey = (await createKey(stack.baseUrl, cookie, { name: 'sandbox', mode: 'test' })).key;
    const t = await upload(mockupPsd(), { k: testKey, name: 'sandbox template' });
    assert.equal(t.status, 201, t.text);
    assert.equal((await http(stack.baseUrl, 'GET', `/api/v1/templates/${t.body.id}`, { key })).status, 404);
    assert.ok(!(await listAll()).templates.some((x: { id: string }) => x.id === t.body.id));
    const mine = await listAll(testKey);
    assert.deepEqual(
      mine.templates.map((x: { id: string }) => x.id),
      [t.body.id],
    );
    // the dashboard's session in test mode sees it too
    const s = await http(stack.baseUrl, 'GET', `/api/v1/templates/${t.body.id}`, {
      cookie,
      headers: { 'x-mockup-mode': 'test' },
    });
    assert.equal(s.status, 200);
    assert.equal((await http(stack.baseUrl, 'DELETE', `/api/v1/templates/${t.body.id}`, { key })).status, 404);
  });

  it('Idempotency-Key: the same file replays the first answer; another file with the key is 409', async () => {
    const psd = mockupPsd();
    const headers = { 'idempotency-key': `tpl-${Date.now()}` };
    const first = await upload(psd, { headers });
    const again = await upload(psd, { headers });
    assert.equal(first.status, 201, first.text);
    assert.equal(again.status, 201);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(again.body, first.body);
    const other = await upload(mockupPsd({ width: 500 }), { headers });
    assert.equal(other.status, 409);
    assert.equal(other.body.error.code, 'idempotency_conflict');
    assert.equal((await listAll()).templates.filter((x: { id: string }) => x.id === first.body.id).length, 1);
  });

  describe('hostile files: a clear 400 each, nothing stored, the worker never sees them', () => {
    // the API and worker run in this test process beside every other test file's: what counts is what these files add
    let rssBefore = 0;
    before(() => {
      rssBefore = process.memoryUsage().rss;
    });
    const nested = (n: number): RawLayer[] => [
      ...Array.from({ length: n }, (): RawLayer => ({ divider: 3 })),
      ...Array.from({ length: n }, (): RawLayer => ({ divider: 1 })),
    ];
    const box = (w: number, h: number): RawLayer => ({ top: 0, left: 0, bottom: h, right: w });
    const huge = rawPsd({ width: 10, height: 10, layers: [], composite: false });
    huge.writeUInt32BE(30000, 14);
    huge.writeUInt32BE(30000, 18);
    const bomb: RawLayer = { ...box(10, 10), channels: [{ id: 0, length: 0, data: zipChannel(20 * 1024 ** 2) }] };
    bomb.channels![0]!.length = bomb.channels![0]!.data.length;
    const cases: [string, () => Promise<Buffer> | Buffer, string, RegExp][] = [
      ['a 30000x30000 canvas', () => huge, 'canvas_too_large', /30000x30000/],
      [
        'a layer claiming 2 GB',
        () => rawPsd({ width: 100, height: 100, layers: [box(25_000, 25_000)] }),
        'layer_too_large',
        /25000x25000/,
      ],
      [
        'a channel claiming 2 GB',
        () =>
          rawPsd({
            width: 100,
            height: 100,
            layers: [{ ...box(10, 10), channels: [{ id: 0, length: 2 ** 31, data: Buffer.alloc(4) }] }],
          }),
        'truncated',
        /truncated/,
      ],
      [
        '10 000 nested groups',
        () => rawPsd({ width: 10, height: 10, layers: nested(10_000) }),
        'too_many_layers',
        /at most 2000/,
      ],
      [
        'groups nested 40 deep',
        () => rawPsd({ width: 10, height: 10, layers: nested(40) }),
        'groups_too_deep',
        /32 deep/,
      ],
      ['a truncated file', () => mockupPsd().subarray(0, 5000), 'truncated', /truncated/],
      [
        'a PNG renamed .psd',
        () =>
          sharp({ create: { width: 8, height: 8, channels: 3, background: '#f00' } })
            .png()
            .toBuffer(),
        'not_psd',
        /looks like a PNG image/,
      ],
      [
        'a ZIP bomb channel',
        () => rawPsd({ width: 100, height: 100, layers: [bomb] }),
        'too_much_pixel_data',
        /inflates/,
      ],
      [
        'a PSD without a smart object',
        () => rawPsd({ width: 50, height: 50, layers: [box(10, 10)] }),
        'no_smart_objects',
        /smart object/,
      ],
      ['a file over TEMPLATE_MAX_BYTES', () => Buffer.alloc(MAX_BYTES + 1), 'too_large', /size limit/],
    ];
    for (const [what, make, reason, message] of cases)
      it(what, async () => {
        const before = (await listAll()).templates.length;
        const res = await upload(await make());
        assert.equal(res.status, 400, res.text);
        assert.equal(res.body.error.code, 'invalid_request');
        assert.equal(res.body.error.details.reason, reason, res.text);
        assert.match(res.body.error.message, message);
        assert.equal((await listAll()).templates.length, before);
      });

    it('a PSD that passes the limits but cannot be parsed: 400 unreadable, nothing kept', async () => {
      const psd = mockupPsd();
      // the design layer's blend mode key made unknown: a structurally sound file ag-psd refuses
      const at = psd.indexOf('8BIMnorm', psd.indexOf('8BIMnorm') + 8);
      psd.write('8BIMxxxx', at, 'latin1');
      const before = (await listAll()).templates.length;
      const res = await upload(psd);
      assert.equal(res.status, 400, res.text);
      assert.equal(res.body.error.details.reason, 'unreadable');
      assert.equal((await listAll()).templates.length, before);
    });

    it('the process stayed far below 1.5 GB through all of them (grew by less than 512 MB)', () => {
      const grown = process.memoryUsage().rss - rssBefore;
      assert.ok(grown < 512 * 1024 ** 2, `rss grew by ${grown} bytes (from ${rssBefore})`);
    });
  });
});
