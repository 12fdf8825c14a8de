// A template's preview and thumbnail made again (lib/template-import/refresh.ts, docs/templates.md "New picture, new
// URL"): stored under keys named by their bytes, so a changed picture gets a new key (and URL) and the same picture
// keeps its key; the files the row named before are deleted once the row names the new ones, and what was written is
// deleted when the row refused the update (the template deleted, its account being deleted).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { LocalDiskStorage } from '../../lib/storage';
import { refreshOwnContent, type SaveOutputs } from '../../lib/template-import/refresh';
import { templateKeys } from '../../lib/template-import/types';
import { parseTemplate, prepareTemplate } from '../../lib/templates';
import { perspectiveTemplatePsd } from '../helpers/template-psd';

describe('a template’s preview and thumbnail made again (refreshOwnContent)', () => {
  let dir: string;
  let disk: LocalDiskStorage;
  const prepared = prepareTemplate(parseTemplate(perspectiveTemplatePsd()));
  const keyPattern = (id: string) => ({
    preview: new RegExp(`^templates/${id}/preview-[0-9a-f]{16}\\.png$`),
    thumbnail: new RegExp(`^templates/${id}/thumbnail-[0-9a-f]{16}\\.webp$`),
  });

  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'templates-refresh-'));
    disk = new LocalDiskStorage(dir);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('stores them under their digests, names them in the row, deletes the old files; the same picture again keeps its keys', async () => {
    const id = 'tpl_refresh_a';
    const old = templateKeys(id);
    await disk.put(old.preview, Buffer.from('old png'), 'image/png');
    await disk.put(old.thumbnail, Buffer.from('old webp'), 'image/webp');
    let row = { previewKey: old.preview as string | null, thumbnailKey: old.thumbnail as string | null };
    const saved: Parameters<SaveOutputs>[1][] = [];
    const saveOutputs: SaveOutputs = async (_id, o) => {
      saved.push(o);
      const before = row;
      row = { previewKey: o.previewKey, thumbnailKey: o.thumbnailKey };
      return before;
    };
    const first = await refreshOwnContent({ storage: disk, saveOutputs }, id, prepared, null);
    assert.equal(saved.length, 1);
    assert.match(saved[0]!.previewKey, keyPattern(id).preview);
    assert.match(saved[0]!.thumbnailKey, keyPattern(id).thumbnail);
    assert.deepEqual(first.keys, [saved[0]!.previewKey, saved[0]!.thumbnailKey]);
    for (const k of first.keys) assert.ok(await disk.exists(k), `${k} stored`);
    assert.equal(await disk.exists(old.preview), false, 'the old preview deleted');
    assert.equal(await disk.exists(old.thumbnail), false, 'the old thumbnail deleted');

    // the same engine again (a retry, another process): the same keys, nothing deleted
    const second = await refreshOwnContent({ storage: disk, saveOutputs }, id, prepared, null);
    assert.deepEqual(second.keys, first.keys);
    for (const k of first.keys) assert.ok(await disk.exists(k), `${k} kept`);
  });

  it('deletes what it wrote when the row refused the update', async () => {
    const id = 'tpl_refresh_b';
    const { keys } = await refreshOwnContent({ storage: disk, saveOutputs: async () => undefined }, id, prepared, null);
    assert.equal(keys.length, 2);
    for (const k of keys) assert.equal(await disk.exists(k), false, `${k} deleted`);
  });
});
