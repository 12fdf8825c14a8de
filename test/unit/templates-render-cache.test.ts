// The render path's caches (issue 32's render target, docs/templates.md#render-speed): the designs' levels (mip
// pyramids) kept between renders through the engine's LevelsCache, and the design cache that holds them in the
// worker (lib/compositing/design.ts derivedCache, one bound with levels and placed designs). A render from the cache
// must be the render without it, byte for byte.
import assert from 'node:assert/strict';
import sharp from 'sharp';
import {
  configureDesignCache,
  DEFAULT_DESIGN_CACHE_BYTES,
  derivedCache,
  designCacheBytes,
} from '../../lib/compositing';
import { templateMockup } from '../../lib/template-import/render';
import {
  levelsBytes,
  parseTemplate,
  prepareTemplate,
  renderTemplateRgb,
  type DesignLevels,
  type LevelsCache,
  type RawImage,
} from '../../lib/templates';
import { benchKindTemplate, perspectiveTemplatePsd, testDesign } from '../helpers/template-psd';

/** A LevelsCache over a Map that counts what it is asked. */
function countingCache() {
  const map = new Map<string, DesignLevels>();
  const n = { get: 0, hit: 0, set: 0, bytes: 0 };
  const cache: LevelsCache = {
    get(key) {
      n.get++;
      const v = map.get(key);
      if (v) n.hit++;
      return v;
    },
    set(key, levels, bytes) {
      n.set++;
      n.bytes += bytes;
      map.set(key, levels);
    },
  };
  return { cache, map, n };
}

describe('templates: the render caches', function () {
  this.timeout(120000);
  // the default bound, emptied
  afterEach(() => configureDesignCache({ maxBytes: DEFAULT_DESIGN_CACHE_BYTES }));

  it('keeps a design’s levels between renders: a miss builds them, a hit renders the same pixels', () => {
    const p = prepareTemplate(parseTemplate(perspectiveTemplatePsd()));
    const so = p.smartObjects[0]!.id;
    const { cache, map, n } = countingCache();
    for (const [design, placement] of [
      // about its size in the smart object: levels from the design itself
      [testDesign(500, 500), { x: 50, y: 50, scale: 1, rotation: 0 }],
      // much larger than it: an integer box from the bytes, then reduced
      [testDesign(1700, 1500), { x: 45, y: 55, scale: 0.9, rotation: 15 }],
    ] as const) {
      const fill = { smartObjectId: so, design, placement, designKey: `d${design.width}` };
      const plain = renderTemplateRgb(p, [{ ...fill, designKey: undefined }], { displace: 'auto' }, undefined, cache);
      assert.equal(n.get, 0, 'a fill without a designKey is not cached');
      const miss = renderTemplateRgb(p, [fill], { displace: 'auto' }, undefined, cache);
      assert.deepEqual([n.get, n.hit, n.set], [1, 0, 1], 'the first render builds and keeps them');
      const hit = renderTemplateRgb(p, [fill], { displace: 'auto' }, undefined, cache);
      assert.deepEqual([n.get, n.hit, n.set], [2, 1, 1], 'the second finds them');
      assert.ok(miss.data.equals(plain.data), 'the same pixels as without the cache');
      assert.ok(hit.data.equals(plain.data), 'the same pixels from the cache');
      n.get = n.hit = n.set = 0;
    }
    const [key, levels] = [...map.entries()].find(([k]) => k.startsWith('d1700'))!;
    assert.match(key, /^d1700\|B\d+\|\d+x\d+$/, 'named by the design and its reduction');
    assert.ok(levels.mips.levels[0]!.w < 1700, 'reduced before it is kept');
    assert.equal(
      levelsBytes(levels),
      levels.mips.levels.reduce((s, l) => s + l.w * l.h * 16, 0),
    );
    // the same pixels shown smaller need another reduction: their own entry, not the first one's levels
    const before = map.size;
    const fill = { smartObjectId: so, design: testDesign(1700, 1500), designKey: 'd1700' };
    const smaller = { ...fill, placement: { x: 50, y: 50, scale: 0.3, rotation: 0 } };
    const cached = renderTemplateRgb(p, [smaller], {}, undefined, cache);
    assert.equal(map.size, before + 1);
    assert.ok(cached.data.equals(renderTemplateRgb(p, [{ ...smaller, designKey: undefined }]).data));
  });

  it('the design cache counts what is derived in its bound, evicts the least recently used, refuses a giant', () => {
    configureDesignCache({ maxBytes: 1000 });
    const v = (n: number) => ({ data: Buffer.alloc(n) });
    derivedCache.set('a', v(400), 400);
    derivedCache.set('b', v(400), 400);
    assert.equal(designCacheBytes(), 800);
    assert.ok(derivedCache.get('a'), 'a used: b is now the oldest');
    derivedCache.set('c', v(400), 400);
    assert.equal(derivedCache.get('b'), undefined, 'b evicted');
    assert.ok(derivedCache.get('a') && derivedCache.get('c'));
    assert.equal(designCacheBytes(), 800);
    derivedCache.set('giant', v(600), 600);
    assert.equal(derivedCache.get('giant'), undefined, 'over half the bound: not kept');
    assert.equal(designCacheBytes(), 800);
    configureDesignCache({ maxBytes: 0 });
    derivedCache.set('a', v(1), 1);
    assert.equal(derivedCache.get('a'), undefined, 'a disabled cache keeps nothing');
  });

  it('a mockup on a template: the second render of a design uses its cached levels and writes the same JPEG', async () => {
    const p = benchKindTemplate();
    const d: RawImage = testDesign(800, 640);
    const png = await sharp(d.data, { raw: { width: d.width, height: d.height, channels: 4 } })
      .png()
      .toBuffer();
    let loads = 0;
    const source = {
      id: 'uploads/test-design.png',
      load: async () => {
        loads++;
        return png;
      },
    };
    const designs = [
      { smartObjectId: p.smartObjects[0]!.id, source, placement: { x: 50, y: 50, scale: 1, rotation: 0 } },
    ];
    const opts = { displace: 'auto' as const };
    const first = await templateMockup(p, designs, opts);
    const afterFirst = designCacheBytes();
    const second = await templateMockup(p, designs, opts);
    assert.equal(designCacheBytes(), afterFirst, 'nothing new made: levels and placed design were found');
    assert.ok(second.mockup.equals(first.mockup) && second.thumbnail!.equals(first.thumbnail!));
    // what the first render kept: its levels are the largest part
    assert.ok(afterFirst > 400 * 400 * 16, `cache holds ${afterFirst} bytes`);
    // from a cold cache (nothing kept): the same JPEG
    configureDesignCache({ clear: true });
    const cold = await templateMockup(p, designs, opts);
    assert.ok(cold.mockup.equals(first.mockup));
    assert.ok(loads >= 2, 'the cold render read the design again');
    configureDesignCache({ maxBytes: 0 });
    const uncached = await templateMockup(p, designs, opts);
    assert.ok(uncached.mockup.equals(first.mockup), 'the same JPEG with the cache disabled');
    assert.equal(designCacheBytes(), 0);
  });
});
