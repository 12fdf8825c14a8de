// Seed time: the fabric maps of every blank are stored next to it (and in the render cache), and the worker's
// prepared-blank cache picks them up from storage.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fabricMapKeys, PreparedBlankCache } from '../../lib/compositing';
import { ensureFabricMaps } from '../../db/seed';
import { renderBlank } from '../../lib/blanks';
import { LocalDiskStorage, type Storage } from '../../lib/storage';

describe('compositing: fabric maps at seed time', function () {
  this.timeout(60000);
  let dir: string;
  let blank: Buffer;
  const key = 'blanks/tee/f7f7f5-test-front.jpg';

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'fabric-maps-'));
    blank = (await renderBlank({ silhouette: 'tee', view: 'front', colorHex: '#F7F7F5', size: 400 })).image;
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('derives the maps once, stores them next to the blank and in the render cache, then reuses them', async () => {
    const storage: Storage = new LocalDiskStorage(path.join(dir, 'files'));
    const cache: Storage = new LocalDiskStorage(path.join(dir, 'cache'));
    await storage.put(key, blank, 'image/jpeg');
    const mk = fabricMapKeys(key);

    assert.equal(await ensureFabricMaps(storage, key, undefined, cache), true, 'derived from the stored blank');
    for (const k of [mk.shading, mk.displacement]) {
      assert.ok(await storage.exists(k), `${k} in storage`);
      assert.ok(await cache.exists(k), `${k} in the render cache`);
    }
    assert.equal(await ensureFabricMaps(storage, key, undefined, cache), false, 'present: nothing to do');

    // a fresh data directory with a warm render cache copies instead of deriving
    const fresh: Storage = new LocalDiskStorage(path.join(dir, 'files2'));
    await fresh.put(key, blank, 'image/jpeg');
    assert.equal(await ensureFabricMaps(fresh, key, blank, cache), false);
    assert.ok((await fresh.get(mk.shading))!.body.equals((await storage.get(mk.shading))!.body));

    // the worker's cache reads them from storage
    const prepared = new PreparedBlankCache({ load: async (k) => (await storage.get(k))?.body ?? null });
    const p = await prepared.get(key);
    assert.equal(p.mapsSource, 'storage');
    assert.equal(p.width, 400);
  });

  it('fails clearly when the blank itself is missing', async () => {
    const storage = new LocalDiskStorage(path.join(dir, 'empty'));
    await assert.rejects(ensureFabricMaps(storage, 'blanks/none-front.jpg'), /not in storage/);
  });
});
