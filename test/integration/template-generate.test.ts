// Generating on a template through HTTP on the real stack (issue 32, docs/templates.md): POST /generate with
// templateId (one design in a smart object, or designs[] for several) is one generation, one token, the same
// workflow; POST /preview renders the same picture smaller; the errors (unknown template, not ready, a smart object it
// does not have) charge nothing. Checked against the composite Photoshop saved in corpus files: rendered with its
// own embedded content as the design, a template gives back Photoshop's picture.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { grantTokens, tokenBalance } from '../../db/ledger';
import { templateKeys } from '../../lib/template-import/types';
import { parseTemplate, prepareTemplate, psnr, renderOwnContent, type RawImage } from '../../lib/templates';
import { PREPARED_FORMAT } from '../../lib/templates/serialize';
import * as inspect from '../helpers/db-inspect';
import { account, createKey, http } from '../helpers/http';
import { mockupPsd } from '../helpers/psd';
import { startCallbackReceiver } from '../helpers/receiver';
import { startStack, storeDesign, type Stack } from '../helpers/stack';
import { perspectiveTemplatePsd, PERSPECTIVE_QUAD, testDesign } from '../helpers/template-psd';
import { gradient, overlappingTemplatePsd, stripes } from '../helpers/template-stack';

const CORPUS = path.join(__dirname, '..', 'fixtures', 'templates');

const png = (img: RawImage) =>
  sharp(img.data, { raw: { width: img.width, height: img.height, channels: 4 } })
    .png()
    .toBuffer();

async function rgba(jpeg: Buffer): Promise<RawImage> {
  const { data, info } = await sharp(jpeg).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, data };
}

/** Mean absolute difference per channel over a rectangle of two same-sized RGBA images. */
function diffIn(a: RawImage, b: RawImage, x0: number, y0: number, x1: number, y1: number): number {
  let sum = 0;
  let n = 0;
  for (let y = y0; y < y1; y++)
    for (let x = x0; x < x1; x++)
      for (let c = 0; c < 3; c++) {
        const i = (y * a.width + x) * 4 + c;
        sum += Math.abs(a.data[i]! - b.data[i]!);
        n++;
      }
  return sum / n;
}

/** Whether a point lies inside a convex quad (corners in order). */
function inside(q: number[][], x: number, y: number): boolean {
  let sign = 0;
  for (let i = 0; i < 4; i++) {
    const [ax, ay] = q[i]!;
    const [bx, by] = q[(i + 1) % 4]!;
    const s = Math.sign((bx! - ax!) * (y - ay!) - (by! - ay!) * (x - ax!));
    if (s !== 0 && sign !== 0 && s !== sign) return false;
    if (s !== 0) sign = s;
  }
  return true;
}

describe('generate on a template (POST /api/v1/generate and /preview with templateId)', () => {
  let stack: Stack;
  let key: string;
  let cookie: string;
  let userId: string;
  let designUrl: string;
  const ids: Record<string, string> = {};

  async function importTemplate(bytes: Buffer, filename: string, k = key): Promise<string> {
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(bytes)]), filename);
    const res = await http(stack.baseUrl, 'POST', '/api/v1/templates', { key: k, body: form });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.status, 'ready', res.text);
    return res.body.id as string;
  }

  const generate = (json: Record<string, unknown>, opts: { k?: string; headers?: Record<string, string> } = {}) =>
    http(stack.baseUrl, 'POST', '/api/v1/generate', { key: opts.k ?? key, json, headers: opts.headers });

  const fetchImage = async (url: string) => Buffer.from(await (await fetch(url)).arrayBuffer());

  before(async () => {
    // the callback receiver listens on 127.0.0.1
    stack = await startStack('template-generate', { env: { ALLOW_PRIVATE_URLS: 'true' } });
    ({ key, cookie, userId } = await account(stack.baseUrl));
    designUrl = await storeDesign(stack, await png(testDesign(600, 600)));
    ids.perspective = await importTemplate(perspectiveTemplatePsd(), 'Card on a wall.psd');
    ids.corpus = await importTemplate(
      readFileSync(path.join(CORPUS, 'perspective-ag-psd-placed-transform.psd')),
      'p.psd',
    );
    ids.two = await importTemplate(readFileSync(path.join(CORPUS, 'smart-objects-ag-psd.psd')), 'two.psd');
  });
  after(async () => stack?.stop());

  it('one design in the smart object: 200, one token, the generation resource with templateId and designs', async () => {
    const before = await tokenBalance(stack.sql, userId);
    const res = await generate({ templateId: ids.perspective, designUrl });
    assert.equal(res.status, 200, res.text);
    const g = res.body;
    assert.equal(g.status, 'completed', g.error);
    assert.equal(g.templateId, ids.perspective);
    assert.deepEqual(g.designs, [
      { smartObjectId: '1', designUrl, placement: { x: 50, y: 50, scale: 1, rotation: 0 } },
    ]);
    assert.equal(g.designUrl, designUrl);
    assert.equal(g.garmentId, undefined);
    assert.equal(g.zone, undefined);
    assert.equal(g.tokensUsed, 1);
    assert.equal(g.livemode, true);
    assert.equal(await tokenBalance(stack.sql, userId), before - 1);
    assert.equal(res.headers.get('x-tokens-remaining'), String(before - 1));
    // one debit, keyed by the generation id, as for a garment
    assert.deepEqual(await inspect.debitAmounts(g.id), [1]);
    const again = await http(stack.baseUrl, 'GET', `/api/v1/generations/${g.id}`, { key });
    assert.deepEqual(again.body, g);

    // the mockup: the template's size; the design inside the smart object's quad, everything outside it unchanged
    const mockup = await rgba(await fetchImage(g.mockupUrl));
    assert.deepEqual([mockup.width, mockup.height], [800, 600]);
    const t = (await http(stack.baseUrl, 'GET', `/api/v1/templates/${ids.perspective}`, { key })).body;
    const preview = await rgba(
      await sharp(await fetchImage(t.previewUrl))
        .jpeg({ quality: 100 })
        .toBuffer(),
    );
    assert.ok(diffIn(mockup, preview, 0, 0, 200, 600) < 3, 'left of the quad: as the template');
    assert.ok(diffIn(mockup, preview, 600, 0, 800, 600) < 3, 'right of the quad: as the template');
    assert.ok(diffIn(mockup, preview, 330, 230, 460, 350) > 40, 'inside the quad: the design');
    // the design's yellow disc is centered in the quad, under the multiply shadow (darker than the design's yellow)
    const q = PERSPECTIVE_QUAD.map((p) => [...p]);
    let yellow = 0;
    let outside = 0;
    let red = 0;
    for (let y = 0; y < 600; y += 2)
      for (let x = 0; x < 800; x += 2) {
        const i = (y * 800 + x) * 4;
        const [r, gg, b] = [mockup.data[i]!, mockup.data[i + 1]!, mockup.data[i + 2]!];
        if (r > 150 && gg > 110 && b < 60 && r - b > 120) {
          yellow++;
          red += r;
          if (!inside(q, x, y)) outside++;
        }
      }
    assert.ok(yellow > 500, `the disc is drawn (${yellow})`);
    assert.equal(outside, 0, 'nothing of the design lands outside the quad');
    assert.ok(red / yellow < 240, `the multiply shadow above the design darkens it (red ${red / yellow} < 250)`);
  });

  it('checked against Photoshop: a corpus template given its own embedded content renders as its composite', async () => {
    for (const [name, file, min] of [
      ['corpus', 'perspective-ag-psd-placed-transform.psd', 35],
      ['two', 'smart-objects-ag-psd.psd', 30],
    ] as const) {
      const parsed = parseTemplate(readFileSync(path.join(CORPUS, file)));
      assert.ok(parsed.photoshopComposite, `${file} carries Photoshop's composite`);
      const designs = await Promise.all(
        parsed.smart.map(async (s) => ({
          smartObjectId: s.info.id,
          designUrl: await storeDesign(stack, await png(s.content!)),
        })),
      );
      const res = await generate({ templateId: ids[name], designs });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.status, 'completed', res.body.error);
      assert.equal(res.body.designs.length, parsed.smart.length);
      const mockup = await rgba(await fetchImage(res.body.mockupUrl));
      const db = psnr(mockup, parsed.photoshopComposite!);
      assert.ok(db >= min, `${file}: ${db.toFixed(1)} dB against Photoshop's composite (at least ${min})`);
    }
  });

  it('designs[]: several smart objects in one generation and one token; each lands in its own', async () => {
    const red = await storeDesign(
      stack,
      await sharp({ create: { width: 300, height: 300, channels: 4, background: '#e01010' } })
        .png()
        .toBuffer(),
    );
    const t = (await http(stack.baseUrl, 'GET', `/api/v1/templates/${ids.two}`, { key })).body;
    assert.equal(t.smartObjects.length, 2);
    const before = await tokenBalance(stack.sql, userId);
    const only1 = await generate({ templateId: ids.two, designUrl: red, smartObjectId: '1' });
    const only2 = await generate({ templateId: ids.two, designs: [{ smartObjectId: '2', designUrl: red }] });
    const both = await generate({
      templateId: ids.two,
      designs: [
        { smartObjectId: '1', designUrl: red },
        { smartObjectId: '2', designUrl: red, placement: { x: 50, y: 50, scale: 0.5, rotation: 0 } },
      ],
    });
    for (const r of [only1, only2, both]) assert.equal(r.body.status, 'completed', r.text);
    assert.equal(await tokenBalance(stack.sql, userId), before - 3);
    assert.deepEqual(both.body.designs[1].placement, { x: 50, y: 50, scale: 0.5, rotation: 0 });
    // the two smart objects overlap: count red pixels where only one of them lies
    const [q1, q2] = t.smartObjects.map((s: { quad: number[][] }) => s.quad) as number[][][];
    const redOnly = (img: RawImage, q: number[][], other: number[][]) => {
      let n = 0;
      for (let y = 0; y < img.height; y++)
        for (let x = 0; x < img.width; x++) {
          if (!inside(q, x + 0.5, y + 0.5) || inside(other, x + 0.5, y + 0.5)) continue;
          const i = (y * img.width + x) * 4;
          if (img.data[i]! > 180 && img.data[i + 1]! < 80 && img.data[i + 2]! < 80) n++;
        }
      return n;
    };
    const [m1, m2, mb] = await Promise.all(
      [only1, only2, both].map(async (r) => rgba(await fetchImage(r.body.mockupUrl))),
    );
    const counts = [m1!, m2!, mb!].map((m) => [redOnly(m, q1!, q2!), redOnly(m, q2!, q1!)]);
    const msg = JSON.stringify(counts);
    assert.ok(counts[0]![0]! > 1000 && counts[0]![1]! < 20, `smart object 1 only ${msg}`);
    assert.ok(counts[1]![0]! < 20 && counts[1]![1]! > 1000, `smart object 2 only ${msg}`);
    // both: the first fills its own; the second's design at scale 0.5 stays in the middle half of its smart object
    assert.ok(counts[2]![0]! > 1000 && counts[2]![1]! < 20, `both ${msg}`);
    const mid =
      (Math.round((q2![0]![1]! + q2![2]![1]!) / 2) * mb!.width + Math.round((q2![0]![0]! + q2![2]![0]!) / 2)) * 4;
    assert.ok(mb!.data[mid]! > 180 && mb!.data[mid + 1]! < 80, 'the middle of smart object 2 is red');
  });

  it('designs[] on smart objects that overlap: filled in layer order, with the layers between them', async () => {
    const grey = stripes(100, 100, [128, 128, 128], [128, 128, 128]);
    // smooth designs: the service resizes a design to its smart object with sharp, and the mockup is a JPEG
    const a = gradient(100, 100, [220, 30, 40], [250, 200, 20]);
    const b = gradient(100, 100, [30, 60, 220], [20, 200, 160]);
    const id = await importTemplate(overlappingTemplatePsd(grey, grey), 'overlap.psd');
    const [ua, ub] = await Promise.all([a, b].map(async (d) => storeDesign(stack, await png(d))));
    const res = await generate({
      templateId: id,
      displace: 'off',
      designs: [
        { smartObjectId: '2', designUrl: ub },
        { smartObjectId: '1', designUrl: ua },
      ],
    });
    assert.equal(res.body.status, 'completed', res.text);
    const mockup = await rgba(await fetchImage(res.body.mockupUrl));
    // the oracle: the template written with the designs as its smart objects' content
    const want = renderOwnContent(prepareTemplate(parseTemplate(overlappingTemplatePsd(a, b))));
    const db = psnr(mockup, want);
    // (drawn from the flattened backdrop, each smart object's own content kept where the other is: 29.5 dB)
    assert.ok(db >= 34, `${db.toFixed(1)} dB of the template drawn with the designs as content (JPEG)`);
  });

  it('POST /generate/batch with template items: one token each, as POST /generate renders them, beside garment items', async () => {
    await grantTokens(stack.sql, { userId, source: 'payg_purchase', amount: 20, reference: `batch:${userId}` });
    const garment = (await http(stack.baseUrl, 'GET', '/api/v1/garments?limit=1', { key })).body.garments[0];
    const batch = (json: unknown) => http(stack.baseUrl, 'POST', '/api/v1/generate/batch', { key, json });
    const before = await tokenBalance(stack.sql, userId);
    // refused before anything is charged: an unknown template, a smart object it lacks, a garment field beside it
    const unknown = await batch({ designUrl, items: [{ templateId: 'tpl_1_nope' }] });
    assert.equal(unknown.status, 404, unknown.text);
    assert.match(unknown.body.error.message, /items\[0\]/);
    const badSo = await batch({
      designUrl,
      items: [
        { garmentId: garment.id, color: garment.colors[0].name },
        { templateId: ids.two, smartObjectId: '9' },
      ],
    });
    assert.equal(badSo.status, 400, badSo.text);
    assert.equal(badSo.body.error.details.field, 'items.1.smartObjectId');
    const mixed = await batch({ designUrl, items: [{ templateId: ids.two, color: 'White' }] });
    assert.equal(mixed.status, 400, mixed.text);
    assert.match(mixed.text, /items\.0\.color/);
    assert.equal(await tokenBalance(stack.sql, userId), before);

    const res = await batch({
      designUrl,
      items: [
        { templateId: ids.perspective },
        { templateId: ids.two, smartObjectId: '2', placement: { scale: 0.5 }, displace: 'off' },
        { garmentId: garment.id, color: garment.colors[0].name },
      ],
    });
    assert.equal(res.status, 200, res.text);
    const [onTpl, onTwo, onGarment] = res.body.generations;
    for (const g of res.body.generations) assert.equal(g.status, 'completed', g.error);
    assert.equal(await tokenBalance(stack.sql, userId), before - 3);
    for (const g of res.body.generations) {
      assert.equal((await inspect.debitAmounts(g.id)).length, 1, g.id);
    }
    assert.equal(onTpl.templateId, ids.perspective);
    assert.deepEqual(onTpl.designs, [
      { smartObjectId: '1', designUrl, placement: { x: 50, y: 50, scale: 1, rotation: 0 } },
    ]);
    assert.equal(onTwo.templateId, ids.two);
    assert.deepEqual(onTwo.designs[0].placement, { x: 50, y: 50, scale: 0.5, rotation: 0 });
    assert.equal(onGarment.garmentId, garment.id);
    assert.deepEqual(onGarment.placement, { x: 50, y: 35, scale: 0.8, rotation: 0 });
    // the same picture as the single generate of the same design on the template
    const single = await generate({ templateId: ids.perspective, designUrl });
    assert.equal(single.body.status, 'completed', single.text);
    const [a, b] = await Promise.all([onTpl, single.body].map(async (g) => rgba(await fetchImage(g.mockupUrl))));
    assert.ok(a!.data.equals(b!.data), 'a batch item on a template renders as POST /generate does');
  });

  it('webhooks: a generation on a template sends generation.completed to its webhookUrl, like any generation', async () => {
    const receiver = await startCallbackReceiver();
    try {
      const res = await generate({ templateId: ids.perspective, designUrl, webhookUrl: receiver.url });
      assert.equal(res.status, 200, res.text);
      const hit = await receiver.waitFor(res.body.id);
      const payload = JSON.parse(hit.body.toString('utf8'));
      assert.equal(payload.event, 'generation.completed');
      assert.equal(payload.data.id, res.body.id);
      assert.equal(payload.data.mockupUrl, res.body.mockupUrl);
      assert.equal(payload.data.tokensUsed, 1);
      assert.ok(
        Object.keys(hit.headers).some((k) => k.endsWith('signature')),
        'signed',
      );
    } finally {
      await receiver.close();
    }
  });

  it('POST /preview on a template: the generation picture at 640 px, free', async () => {
    const before = await tokenBalance(stack.sql, userId);
    const res = await fetch(`${stack.baseUrl}/api/v1/preview`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ templateId: ids.perspective, designUrl }),
    });
    assert.equal(res.status, 200, await res.clone().text());
    assert.equal(res.headers.get('content-type'), 'image/jpeg');
    assert.equal(res.headers.get('x-preview-size'), '640x480');
    const jpeg = Buffer.from(await res.arrayBuffer());
    const gen = await generate({ templateId: ids.perspective, designUrl });
    const small = await rgba(
      await sharp(await fetchImage(gen.body.mockupUrl))
        .resize(640, 480)
        .jpeg()
        .toBuffer(),
    );
    const preview = await rgba(jpeg);
    assert.ok(diffIn(preview, small, 0, 0, 640, 480) < 4, 'the same picture as the generation, smaller');
    assert.equal(await tokenBalance(stack.sql, userId), before - 1, 'only the generation is charged');
    // the dashboard's session works too
    const s = await http(stack.baseUrl, 'POST', '/api/v1/preview', {
      cookie,
      json: { templateId: ids.two, designs: [{ smartObjectId: '2', designUrl }] },
    });
    assert.equal(s.status, 200, s.text);
  });

  type Resource = { previewUrl: string; thumbnailUrl: string; fidelity: { psnr: number; comparedTo: string } };
  const resource = async (id: string) =>
    (await http(stack.baseUrl, 'GET', `/api/v1/templates/${id}`, { key })).body as Resource;

  /** What an engine before digests in the keys left: another picture and thumbnail under preview.png and
   * thumbnail.webp, named by the row, and another PSNR. Returns the resource as it was then. */
  const makeOldOutputs = async (id: string): Promise<Resource> => {
    const keys = templateKeys(id);
    const grey = { create: { width: 8, height: 8, channels: 4 as const, background: '#777' } };
    await stack.storage.put(keys.preview, await sharp(grey).png().toBuffer(), 'image/png');
    await stack.storage.put(keys.thumbnail, await sharp(grey).webp().toBuffer(), 'image/webp');
    await inspect.setTemplateOutputs(id, {
      previewKey: keys.preview,
      thumbnailKey: keys.thumbnail,
      fidelity: { psnr: 12.34, comparedTo: 'photoshop-composite' },
    });
    const t = await resource(id);
    assert.equal(t.fidelity.psnr, 12.34);
    // an old template's files are still served under their old names
    assert.ok(t.previewUrl.endsWith(`/files/${keys.preview}`), t.previewUrl);
    const old = await fetch(t.previewUrl);
    assert.equal(old.status, 200);
    assert.equal((await sharp(Buffer.from(await old.arrayBuffer())).metadata()).width, 8);
    return t;
  };

  /** The stale template's preview, thumbnail and fidelity made again: a fresh import's, under new URLs (the picture
   * changed: a cache in front of /files must not serve the old one), the old files deleted. */
  const assertFreshOutputs = async (id: string, fresh: { id: string; t: Resource }, old: Resource) => {
    const t = await resource(id);
    assert.deepEqual(t.fidelity, fresh.t.fidelity, 'the fidelity made again by this engine');
    assert.notEqual(t.fidelity.psnr, 12.34);
    assert.notEqual(t.previewUrl, old.previewUrl, 'a new picture, a new preview URL');
    assert.notEqual(t.thumbnailUrl, old.thumbnailUrl, 'a new picture, a new thumbnail URL');
    // named by their bytes: the same names as the fresh import's
    assert.equal(t.previewUrl, fresh.t.previewUrl.replace(fresh.id, id));
    assert.equal(t.thumbnailUrl, fresh.t.thumbnailUrl.replace(fresh.id, id));
    assert.ok((await fetchImage(t.previewUrl)).equals(await fetchImage(fresh.t.previewUrl)), 'a fresh preview');
    assert.ok((await fetchImage(t.thumbnailUrl)).equals(await fetchImage(fresh.t.thumbnailUrl)), 'a fresh thumbnail');
    assert.equal((await fetch(old.previewUrl)).status, 404, 'the old preview deleted');
    assert.equal((await fetch(old.thumbnailUrl)).status, 404, 'the old thumbnail deleted');
  };

  /** What an engine before formats left: no format, its buffers under prepared-<n>.bin and (here) every byte 40.
   * Returns the old buffers' keys. */
  const makeStale = async (id: string) => {
    const key = templateKeys(id).prepared;
    const m = JSON.parse((await stack.storage.get(key))!.body.toString('utf8'));
    for (const [n, b] of m.buffers.entries()) {
      const body = (await stack.storage.get(b.key))!.body.fill(40);
      await stack.storage.delete(b.key);
      b.key = `templates/${id}/prepared-${n}.bin`;
      await stack.storage.put(b.key, body, 'application/octet-stream');
    }
    delete m.format;
    m.meta.format = 'templates-prepared-v1';
    await stack.storage.put(key, Buffer.from(JSON.stringify(m)), 'application/json');
    return m.buffers.map((b: { key: string }) => b.key) as string[];
  };

  const assertPreparedAgain = async (id: string, oldKeys: string[]) => {
    const m = JSON.parse((await stack.storage.get(templateKeys(id).prepared))!.body.toString('utf8'));
    assert.equal(m.format, PREPARED_FORMAT, 'the manifest rewritten in the current format');
    for (const k of oldKeys) assert.equal(await stack.storage.exists(k), false, `${k} deleted`);
  };

  it('a template prepared by an older engine: its first preview (two at once) prepares it again from its source (a fresh import’s picture, the manifest rewritten) and makes its preview, thumbnail and fidelity again under new URLs; 409 when the source is gone', async () => {
    const bytes = readFileSync(path.join(CORPUS, 'perspective-ag-psd-placed-transform.psd'));
    const [stale, fresh, gone] = [
      await importTemplate(bytes, 'stale.psd'),
      await importTemplate(bytes, 'fresh.psd'),
      await importTemplate(bytes, 'gone.psd'),
    ];
    const freshT = await resource(fresh);
    const oldKeys = await makeStale(stale);
    const old = await makeOldOutputs(stale);
    const preview = async (id: string) => {
      const res = await fetch(`${stack.baseUrl}/api/v1/preview`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ templateId: id, designUrl }),
      });
      return { status: res.status, bytes: Buffer.from(await res.arrayBuffer()) };
    };
    // two previews racing on the stale template: both answer the fresh picture, the outputs made again
    const [a, a2] = await Promise.all([preview(stale), preview(stale)]);
    const b = await preview(fresh);
    assert.equal(a2.status, 200, a2.bytes.toString());
    assert.ok(a.bytes.equals(a2.bytes));
    assert.equal(a.status, 200, a.bytes.toString());
    assert.equal(b.status, 200, b.bytes.toString());
    assert.ok(a.bytes.equals(b.bytes), 'the same JPEG as a fresh import’s');
    await assertPreparedAgain(stale, oldKeys);
    await assertFreshOutputs(stale, { id: fresh, t: freshT }, old);

    await makeStale(gone);
    await stack.storage.delete(templateKeys(gone).source);
    const c = await preview(gone);
    assert.equal(c.status, 409, c.bytes.toString());
    assert.match(
      JSON.parse(c.bytes.toString()).error.message,
      /prepared by an older engine and its source file is no longer in storage/,
    );
  });

  it('a template prepared by an older engine, first rendered by a worker that has not seen it: POST /generate prepares it again in the worker (a fresh import’s mockup, the manifest rewritten) and makes its preview, thumbnail and fidelity again under new URLs', async () => {
    const bytes = readFileSync(path.join(CORPUS, 'perspective-ag-psd-placed-transform.psd'));
    const [stale, fresh] = [await importTemplate(bytes, 'stale-w.psd'), await importTemplate(bytes, 'fresh-w.psd')];
    const freshT = await resource(fresh);
    // an import names its preview and thumbnail by their bytes
    assert.match(freshT.previewUrl, new RegExp(`/files/templates/${fresh}/preview-[0-9a-f]{16}\\.png$`));
    assert.match(freshT.thumbnailUrl, new RegExp(`/files/templates/${fresh}/thumbnail-[0-9a-f]{16}\\.webp$`));
    const oldKeys = await makeStale(stale);
    const old = await makeOldOutputs(stale);
    // The worker that imported it keeps the prepared template in memory: a worker started again (a new process, its
    // cache empty) reads the stale manifest on the first render. The API renders nothing here (no preview).
    await stack.stopWorker();
    await stack.startWorker();
    const [a, b] = [await generate({ templateId: stale, designUrl }), await generate({ templateId: fresh, designUrl })];
    assert.equal(a.status, 200, a.text);
    assert.equal(a.body.status, 'completed', a.body.error);
    assert.equal(b.body.status, 'completed', b.body.error);
    assert.ok(
      (await fetchImage(a.body.mockupUrl)).equals(await fetchImage(b.body.mockupUrl)),
      'the same mockup as a fresh import’s',
    );
    await assertPreparedAgain(stale, oldKeys);
    await assertFreshOutputs(stale, { id: fresh, t: freshT }, old);
  });

  it('errors, none charged: unknown template 404, not ready 409, failed 409, unknown smart object 400, bad bodies 400', async () => {
    const before = await tokenBalance(stack.sql, userId);
    const unknown = await generate({ templateId: 'tpl_1_nope', designUrl });
    assert.equal(unknown.status, 404, unknown.text);
    assert.equal(unknown.body.error.code, 'not_found');
    assert.match(unknown.body.error.message, /Template "tpl_1_nope" not found/);

    for (const [status, error] of [
      ['processing', null],
      ['failed', 'The file is not a PSD'],
    ] as const) {
      const id = `tpl_${Date.now()}_${status}`;
      await inspect.insertTemplate({ id, userId, status, error });
      const res = await generate({ templateId: id, designUrl });
      assert.equal(res.status, 409, res.text);
      assert.equal(res.body.error.code, 'conflict');
      assert.match(res.body.error.message, status === 'processing' ? /still being imported/ : /failed to import/);
      const p = await http(stack.baseUrl, 'POST', '/api/v1/preview', { key, json: { templateId: id, designUrl } });
      assert.equal(p.status, 409, p.text);
    }

    const badSo = await generate({ templateId: ids.perspective, designUrl, smartObjectId: '7' });
    assert.equal(badSo.status, 400, badSo.text);
    assert.equal(badSo.body.error.details.field, 'smartObjectId');
    assert.match(badSo.body.error.message, /has no smart object "7"; it has: 1 \("Your design here"\)/);
    const badItem = await generate({ templateId: ids.two, designs: [{ smartObjectId: '9', designUrl }] });
    assert.equal(badItem.status, 400);
    assert.equal(badItem.body.error.details.field, 'designs.0.smartObjectId');
    const pBad = await http(stack.baseUrl, 'POST', '/api/v1/preview', {
      key,
      json: { templateId: ids.perspective, designUrl, smartObjectId: '7' },
    });
    assert.equal(pBad.status, 400);

    for (const [what, body, field] of [
      ['neither designUrl nor designs', { templateId: ids.perspective }, 'designUrl'],
      ['both', { templateId: ids.perspective, designUrl, designs: [{ smartObjectId: '1', designUrl }] }, 'designUrl'],
      [
        'twice the same',
        {
          templateId: ids.two,
          designs: [
            { smartObjectId: '1', designUrl },
            { smartObjectId: '1', designUrl },
          ],
        },
        'designs.1.smartObjectId',
      ],
      ['a garment field', { templateId: ids.perspective, designUrl, garmentId: 'x' }, '(root)'],
      [
        'placement out of range',
        { templateId: ids.perspective, designUrl, placement: { scale: 3 } },
        'placement.scale',
      ],
      ['displace unknown', { templateId: ids.perspective, designUrl, displace: 'on' }, 'displace'],
    ] as const) {
      const res = await generate(body);
      assert.equal(res.status, 400, `${what}: ${res.text}`);
      assert.equal(res.body.error.details.issues[0].field, field, what);
    }
    // a test key does not see live templates
    const testKey = (await createKey(stack.baseUrl, cookie, { name: 'sandbox', mode: 'test' })).key;
    const cross = await generate({ templateId: ids.perspective, designUrl }, { k: testKey });
    assert.equal(cross.status, 404);
    assert.equal(await tokenBalance(stack.sql, userId), before, 'nothing charged');
  });

  it('test mode: a test template, no token, TEST watermark; Idempotency-Key replays without a second charge', async () => {
    const testKey = (await createKey(stack.baseUrl, cookie, { name: 'sandbox 2', mode: 'test' })).key;
    const tid = await importTemplate(mockupPsd(), 'Tee.psd', testKey);
    const before = await tokenBalance(stack.sql, userId);
    const res = await generate({ templateId: tid, designUrl }, { k: testKey });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.livemode, false);
    assert.equal(res.body.tokensUsed, 0);
    assert.equal(await tokenBalance(stack.sql, userId), before);

    const headers = { 'idempotency-key': `tpl-${Date.now()}` };
    const a = await generate({ templateId: ids.perspective, designUrl }, { headers });
    const b = await generate({ templateId: ids.perspective, designUrl }, { headers });
    assert.equal(a.status, 200, a.text);
    assert.equal(b.body.id, a.body.id);
    assert.equal(b.headers.get('idempotent-replayed'), 'true');
    assert.equal(await tokenBalance(stack.sql, userId), before - 1);
  });
});
