// What account deletion erases besides uploads and mockups (issue 33, item 5; docs/accounts.md#deletion): the
// account's templates (source, preview, thumbnail, the prepared manifest and every buffer it names), print files, and
// the reference images a design chat job stored, rows and files. Through HTTP on the real stack; the files checked in the run's storage.
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { chatKeys } from '../../lib/chat/plan';
import { templateKeys } from '../../lib/template-import/types';
import { ownedRowCounts, printFileKey, renderJobIds, templateStored } from '../helpers/db-inspect';
import { account, GOOD_PASSWORD, http } from '../helpers/http';
import { mockupPsd } from '../helpers/psd';
import { startStack, storeDesign, workflowResultWhenStarted, type Stack } from '../helpers/stack';

describe('deletion erases templates, print files and chat references, rows and files', function () {
  this.timeout(180_000);
  let stack: Stack;
  before(async () => {
    stack = await startStack('account-deletion-files', { env: { ALLOW_PRIVATE_URLS: 'true' } });
  });
  after(async () => stack?.stop());

  it('leaves no template file, print file or chat reference, and no row of them', async () => {
    const acct = await account(stack.baseUrl);
    // a ready template
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(mockupPsd())]), 'Tee mockup.psd');
    const tpl = await http(stack.baseUrl, 'POST', '/api/v1/templates', { key: acct.key, body: form });
    assert.equal(tpl.status, 201, tpl.text);
    assert.equal(tpl.body.status, 'ready');
    const t = await templateStored(tpl.body.id);
    const manifest = JSON.parse((await stack.storage.get(t.prepared))!.body.toString('utf8')) as {
      buffers: { key: string }[];
    };
    assert.ok(manifest.buffers.length > 0);
    const templateFiles = [
      ...t.keys.filter((k): k is string => !!k),
      t.prepared,
      ...manifest.buffers.map((b) => b.key),
    ];
    for (const k of templateFiles) assert.ok(k.startsWith(templateKeys(tpl.body.id).prefix), k);

    // a generation and its print file
    const tee = (await http(stack.baseUrl, 'GET', '/api/v1/garments?category=t-shirts&limit=1', { key: acct.key })).body
      .garments[0];
    const design = await sharp({
      create: { width: 900, height: 900, channels: 4, background: { r: 30, g: 120, b: 60, alpha: 1 } },
    })
      .png()
      .toBuffer();
    const gen = await http(stack.baseUrl, 'POST', '/api/v1/generate', {
      key: acct.key,
      json: {
        designUrl: await storeDesign(stack, design),
        garmentId: tee.id,
        garmentImageUrl: tee.colors[0].imageUrl,
      },
    });
    assert.equal(gen.status, 200, gen.text);
    const pf = await http(stack.baseUrl, 'GET', `/api/v1/generations/${gen.body.id}/print-file`, { key: acct.key });
    assert.equal(pf.status, 200, pf.text);
    const printFile = await printFileKey(gen.body.id);
    assert.ok(printFile && (await stack.storage.exists(printFile)));
    for (const k of templateFiles) assert.ok(await stack.storage.exists(k), `${k} stored`);

    // a design chat job with a reference image: the normalized copy it stored, and its graphic
    const chat = await http(stack.baseUrl, 'POST', '/api/chat', {
      cookie: acct.cookie,
      json: { prompt: 'A fox badge in the style of this logo', designUrls: [await storeDesign(stack, design)] },
    });
    assert.equal(chat.status, 200, chat.text);
    const [job] = await renderJobIds(acct.userId);
    const chatFiles = [chatKeys.reference(job!, 0), chatKeys.graphic(job!, 'local', 1, 'png')];
    for (const k of chatFiles) assert.ok(await stack.storage.exists(k), `${k} stored`);

    const del = await http(stack.baseUrl, 'DELETE', '/api/auth/account', {
      cookie: acct.cookie,
      json: { password: GOOD_PASSWORD },
    });
    assert.equal(del.status, 202, del.text);
    const result = await workflowResultWhenStarted<{ rowsErased: Record<string, number> }>(
      stack.client,
      del.body.workflowId,
    );
    for (const k of [...templateFiles, printFile, ...chatFiles])
      assert.equal(await stack.storage.exists(k), false, `${k} deleted`);
    assert.equal((await fetch(pf.body.url)).status, 404);
    assert.deepEqual(
      await ownedRowCounts(acct.userId, ['templates', 'print_files']),
      { templates: 0, print_files: 0 },
      JSON.stringify(result),
    );
  });
});
