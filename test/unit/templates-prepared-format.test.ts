// The prepared data's format (lib/templates/serialize.ts PREPARED_FORMAT, docs/templates.md#the-import-durably): the
// engine's prepared output is byte-stable, its digests on corpus files are recorded for the current format number (so
// a change to prepare fails here until the number is bumped), and a template stored in an older format (or none) is
// prepared again from its source by the first render that reads it (lib/template-import/prepared-store.ts): the render
// equals a fresh import's, the manifest is rewritten in the current format and the old buffers are deleted.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { BadInputError } from '../../lib/errors';
import { LocalDiskStorage, type Storage } from '../../lib/storage';
import { createPreparedTemplateCache, storePrepared } from '../../lib/template-import/prepared-store';
import { templateMockup, type TemplateDesignSource } from '../../lib/template-import/render';
import { templateKeys } from '../../lib/template-import/types';
import { parseTemplate, prepareTemplate, serializePrepared } from '../../lib/templates';
import { PREPARED_FORMAT } from '../../lib/templates/serialize';
import { testDesign } from '../helpers/template-psd';
import { clippedTemplatePsd, gradient } from '../helpers/template-stack';

const CORPUS = path.join(__dirname, '..', 'fixtures', 'templates');
const CLIPPED = 'clippedTemplatePsd (synthetic)';
/** A corpus file, or the synthetic print clipped to a garment below it (test/helpers/template-stack.ts). */
const corpus = (f: string) =>
  f === CLIPPED
    ? clippedTemplatePsd(gradient(400, 300, [240, 40, 40], [40, 40, 240]))
    : readFileSync(path.join(CORPUS, f));

/** sha256 of serializePrepared's output: its meta as JSON, then each buffer's name and bytes in order. */
function digest(file: Buffer): string {
  const { meta, buffers } = serializePrepared(prepareTemplate(parseTemplate(file)));
  const h = createHash('sha256').update(JSON.stringify(meta));
  for (const [name, body] of Object.entries(buffers)) h.update(name).update(body);
  return h.digest('hex');
}

/** The digests of prepare's output for PREPARED_FORMAT: a clipping group, group fill (pass-through), a smart object
 * in perspective, smart objects with warps, and a smart object clipped to a layer below it. */
const RECORDED = {
  format: 3,
  digests: {
    'layers-clipping-mask-psd-tools.psd': '387c9900ca0b87beb0da68c8639ee8f659d942a14f49e697a20654b647124ef3',
    'layers-passthrough_fill_blendmode-psd-tools.psd':
      '522c50ffab79c76164e46ff61d729aa100ce06db71edc4e003e63de59ce75aa7',
    'perspective-ag-psd-placed-transform.psd': '7a52ab754b1a54a49e08cee4cbd425d55ad47dff8e278cdb8fd6ceee1c741a9a',
    'smart-objects-ag-psd.psd': 'fbdc29c82d3f120a584cb5feeaf6a811b8b04a80cec478de6a8c0857c7ffeb45',
    [CLIPPED]: '74288900be39dd8a870ac7eca00464f3a1dd79fe2472b121c5fe60a8fbf98cde',
  } as Record<string, string>,
};

interface Manifest {
  format?: number;
  meta: { format?: unknown; template: unknown };
  buffers: { name: string; key: string; bytes: number }[];
}

/** A storage that counts the puts of each key. */
function counting(storage: Storage) {
  const puts = new Map<string, number>();
  const s: Storage = Object.assign(Object.create(storage) as Storage, {
    put: (key: string, body: Buffer, type: string) => {
      puts.set(key, (puts.get(key) ?? 0) + 1);
      return storage.put(key, body, type);
    },
  });
  return { storage: s, puts };
}

describe('templates: the prepared data’s format', function () {
  this.timeout(120000);
  let dir: string;
  let disk: LocalDiskStorage;
  let png: Buffer;
  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'prepared-format-'));
    disk = new LocalDiskStorage(dir);
    const d = testDesign(300, 300);
    png = await sharp(d.data, { raw: { width: d.width, height: d.height, channels: 4 } })
      .png()
      .toBuffer();
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('prepares byte for byte the same output twice', () => {
    for (const f of Object.keys(RECORDED.digests)) assert.equal(digest(corpus(f)), digest(corpus(f)), f);
  });

  it('records the digests of prepare’s output for the current PREPARED_FORMAT', () => {
    const actual = Object.fromEntries(Object.keys(RECORDED.digests).map((f) => [f, digest(corpus(f))]));
    const bump = `prepare's output changed: bump PREPARED_FORMAT and record the new digests`;
    assert.equal(PREPARED_FORMAT, RECORDED.format, `${bump} (recorded for format ${RECORDED.format})`);
    assert.deepEqual(actual, RECORDED.digests, `${bump}: ${JSON.stringify(actual, null, 2)}`);
  });

  /** Imports `file` as template `id` the way the import stores it: the source, then the prepared data. */
  async function imported(id: string, file: string) {
    const bytes = corpus(file);
    await disk.put(templateKeys(id).source, bytes, 'application/octet-stream');
    const prepared = prepareTemplate(parseTemplate(bytes));
    return { prepared, stored: await storePrepared(disk, id, prepared) };
  }

  /** Rewrites a stored manifest as an older engine left it: format `format` (none when undefined), its buffers under
   * the old keys (prepared-<n>.bin) and visibly different (every byte 40). */
  async function makeStale(id: string, format: number | undefined): Promise<string[]> {
    const key = templateKeys(id).prepared;
    const m = JSON.parse((await disk.get(key))!.body.toString('utf8')) as Manifest;
    const oldKeys: string[] = [];
    for (const [n, b] of m.buffers.entries()) {
      const body = (await disk.get(b.key))!.body.fill(40);
      await disk.delete(b.key);
      b.key = `templates/${id}/prepared-${n}.bin`;
      await disk.put(b.key, body, 'application/octet-stream');
      oldKeys.push(b.key);
    }
    const old: Manifest = { ...m, meta: { ...m.meta, format: 'templates-prepared-v1' } };
    if (format === undefined) delete old.format;
    else old.format = format;
    await disk.put(key, Buffer.from(JSON.stringify(old)), 'application/json');
    return oldKeys;
  }

  const designsOf = (smartObjects: { id: string }[]): TemplateDesignSource[] =>
    smartObjects.map((so, i) => ({
      smartObjectId: so.id,
      source: { id: `design-${i}`, load: async () => png },
      placement: { x: 50, y: 50, scale: 0.8, rotation: 10 * i },
    }));
  const render = async (p: Awaited<ReturnType<typeof imported>>['prepared']) =>
    (await templateMockup(p, designsOf(p.smartObjects), { displace: 'auto' })).mockup;

  for (const [file, format] of [
    ['perspective-ag-psd-placed-transform.psd', undefined],
    ['layers-clipping-mask-psd-tools.psd', 1],
  ] as const)
    it(`prepares a template stored in format ${format ?? '(none)'} again on its first render (${file})`, async () => {
      const id = `tpl_stale${format ?? 0}`;
      const fresh = await imported(id, file);
      const expected = await render(
        await createPreparedTemplateCache(disk, 1 << 30).get(fresh.stored.key), // a fresh import's, read back
      );
      const oldKeys = await makeStale(id, format);
      const { storage, puts } = counting(disk);
      const cache = createPreparedTemplateCache(storage, 1 << 30);
      // concurrent renders of the template prepare it once
      const got = await Promise.all([cache.get(fresh.stored.key), cache.get(fresh.stored.key)]);
      assert.equal(got[0], got[1]);
      assert.equal(puts.get(fresh.stored.key), 1, 'the manifest written once');
      assert.ok((await render(got[0]!)).equals(expected), 'renders as a fresh import');
      const m = JSON.parse((await disk.get(fresh.stored.key))!.body.toString('utf8')) as Manifest;
      assert.equal(m.format, PREPARED_FORMAT, 'the manifest rewritten in the current format');
      assert.deepEqual(
        m.buffers.map((b) => b.key),
        fresh.stored.keys.slice(1),
      );
      for (const k of oldKeys) assert.equal(await disk.exists(k), false, `${k} deleted`);
      // read back by another process: the current format, no preparing again
      const again = counting(disk);
      const back = await createPreparedTemplateCache(again.storage, 1 << 30).get(fresh.stored.key);
      assert.equal(again.puts.size, 0);
      assert.ok((await render(back)).equals(expected));
    });

  it('fails a stale template whose source is gone, rendering nothing stale', async () => {
    const id = 'tpl_nosource';
    const { stored } = await imported(id, 'layers-clipping-mask-psd-tools.psd');
    await makeStale(id, 1);
    await disk.delete(templateKeys(id).source);
    const before = (await disk.get(stored.key))!.body;
    await assert.rejects(
      createPreparedTemplateCache(disk, 1 << 30).get(stored.key),
      (err: Error) =>
        err instanceof BadInputError &&
        /Template tpl_nosource was prepared by an older engine and its source file is no longer in storage/.test(
          err.message,
        ),
    );
    assert.ok((await disk.get(stored.key))!.body.equals(before), 'the manifest left as it was');
  });

  it('prepares a newer format’s template for itself, leaving storage to the newer engine', async () => {
    const id = 'tpl_newer';
    const fresh = await imported(id, 'perspective-ag-psd-placed-transform.psd');
    const expected = await render(fresh.prepared);
    await makeStale(id, PREPARED_FORMAT + 1);
    const before = (await disk.get(fresh.stored.key))!.body;
    const { storage, puts } = counting(disk);
    const p = await createPreparedTemplateCache(storage, 1 << 30).get(fresh.stored.key);
    assert.ok((await render(p)).equals(expected));
    assert.equal(puts.size, 0, 'nothing written');
    assert.ok((await disk.get(fresh.stored.key))!.body.equals(before));
  });
});
