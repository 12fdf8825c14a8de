// Seeds the garment catalogue: rows for garments, colors and print zones, and a rendered blank (front and back
// view plus thumbnail) for every color. Blanks are keyed by silhouette, color and renderer version, so a
// restart renders nothing and garments that share a silhouette and color share the files.
import type { Sql } from '../client';
import type { Logger } from '../../lib/log';
import { LocalDiskStorage, type Storage } from '../../lib/storage';
import { deriveFabricMaps, fabricMapKeys } from '../../lib/compositing';
import { clearBlankCache, RENDER_VERSION, renderBlank, zonesFor, type Silhouette, type View } from '../../lib/blanks';
import { ensureSamples } from '../../lib/samples';
import { CATALOG, ZONE_NAMES, ZONE_ORDER, type CatalogGarment } from './catalog';

export interface SeedDeps {
  sql: Sql;
  storage: Storage;
  log: Logger;
  /** Optional directory of already rendered blanks (keyed like storage, renderer version included): test runs
   * start with an empty DATA_DIR each time and would otherwise render every blank again. */
  renderCacheDir?: string;
}

export function blankKeys(silhouette: Silhouette, hex: string) {
  const base = `blanks/${silhouette}/${hex.replace('#', '').toLowerCase()}-${RENDER_VERSION}`;
  return {
    front: `${base}-front.jpg`,
    back: `${base}-back.jpg`,
    thumb: `${base}-front-thumb.jpg`,
    backThumb: `${base}-back-thumb.jpg`,
  };
}

async function ensureBlanks(storage: Storage, silhouette: Silhouette, hex: string, cache?: Storage): Promise<number> {
  const keys = blankKeys(silhouette, hex);
  let rendered = 0;
  for (const view of ['front', 'back'] as const satisfies readonly View[]) {
    const key = keys[view];
    const thumbKey = view === 'front' ? keys.thumb : keys.backThumb;
    // the blank's bytes when we have them in hand, so its fabric maps need not read it back
    let image: Buffer | undefined;
    if (!((await storage.exists(key)) && (await storage.exists(thumbKey)))) {
      const cachedImage = await cache?.get(key);
      const cachedThumb = cachedImage ? await cache?.get(thumbKey) : null;
      if (cachedImage && cachedThumb) {
        await storage.put(thumbKey, cachedThumb.body, 'image/jpeg');
        await storage.put(key, cachedImage.body, 'image/jpeg');
        image = cachedImage.body;
      } else {
        const out = await renderBlank({ silhouette, view, colorHex: hex });
        if (cache) {
          await cache.put(thumbKey, out.thumbnail, 'image/jpeg');
          await cache.put(key, out.image, 'image/jpeg');
        }
        // Thumbnail first: a present full image then implies a present thumbnail.
        await storage.put(thumbKey, out.thumbnail, 'image/jpeg');
        await storage.put(key, out.image, 'image/jpeg');
        image = out.image;
        rendered++;
      }
    }
    await ensureFabricMaps(storage, key, image, cache);
  }
  return rendered;
}

/**
 * Stores the fabric maps of a stored blank (the compositing engine's shading and displacement PNGs, under
 * `fabricMapKeys(blankKey)`) unless they are there: copied from the render cache when it has them, otherwise derived
 * from the blank (`blankImage` if given, else read from storage) and put in the cache too. Returns true when derived.
 */
export async function ensureFabricMaps(
  storage: Storage,
  blankKey: string,
  blankImage?: Buffer,
  cache?: Storage,
): Promise<boolean> {
  const mapKeys = fabricMapKeys(blankKey);
  if ((await storage.exists(mapKeys.shading)) && (await storage.exists(mapKeys.displacement))) return false;
  const cachedShading = await cache?.get(mapKeys.shading);
  const cachedDisplacement = cachedShading ? await cache?.get(mapKeys.displacement) : null;
  // Displacement first: a present shading map then implies a present displacement map.
  if (cachedShading && cachedDisplacement) {
    await storage.put(mapKeys.displacement, cachedDisplacement.body, 'image/png');
    await storage.put(mapKeys.shading, cachedShading.body, 'image/png');
    return false;
  }
  const image = blankImage ?? (await storage.get(blankKey))?.body;
  if (!image) throw new Error(`cannot derive fabric maps: blank ${blankKey} is not in storage`);
  const maps = await deriveFabricMaps(image);
  if (cache) {
    await cache.put(mapKeys.displacement, maps.displacement, 'image/png');
    await cache.put(mapKeys.shading, maps.shading, 'image/png');
  }
  await storage.put(mapKeys.displacement, maps.displacement, 'image/png');
  await storage.put(mapKeys.shading, maps.shading, 'image/png');
  return true;
}

async function upsertGarment(sql: Sql, g: CatalogGarment, sortOrder: number): Promise<void> {
  const zones = zonesFor(g.silhouette);
  await sql.begin(async (tx) => {
    await tx`
      insert into garments (id, name, brand, category, base_price, sizes, silhouette, sort_order)
      values (${g.id}, ${g.name}, ${g.brand}, ${g.category}, ${g.basePrice}, ${g.sizes}, ${g.silhouette}, ${sortOrder})
      on conflict (id) do update set name = excluded.name, brand = excluded.brand, category = excluded.category,
        base_price = excluded.base_price, sizes = excluded.sizes, silhouette = excluded.silhouette, sort_order = excluded.sort_order`;
    await tx`delete from garment_colors where garment_id = ${g.id}`;
    for (const [i, c] of g.colors.entries()) {
      const keys = blankKeys(g.silhouette, c.hex);
      await tx`
        insert into garment_colors (garment_id, name, hex, available, sort_order, front_key, back_key, thumb_key)
        values (${g.id}, ${c.name}, ${c.hex}, ${c.available ?? true}, ${i}, ${keys.front}, ${keys.back}, ${keys.thumb})`;
    }
    await tx`delete from print_zones where garment_id = ${g.id}`;
    for (const [i, zoneId] of ZONE_ORDER.entries()) {
      const z = zones[zoneId];
      if (!z) continue;
      await tx`
        insert into print_zones (garment_id, zone_id, name, view, max_width_in, max_height_in, rect_x, rect_y, rect_w, rect_h, sort_order)
        values (${g.id}, ${zoneId}, ${ZONE_NAMES[zoneId]!}, ${z.view}, ${z.maxWidthIn}, ${z.maxHeightIn},
                ${z.rect.x}, ${z.rect.y}, ${z.rect.width}, ${z.rect.height}, ${i})`;
    }
  });
}

/** Idempotent: safe on every start. Garments no longer in the catalogue are left alone (generations refer to them). */
export async function seed(deps: SeedDeps): Promise<{ garments: number; blanksRendered: number }> {
  const started = Date.now();
  // Shift existing sort orders out of the way so reordering the catalogue cannot collide on the unique index.
  await deps.sql`update garments set sort_order = sort_order + 100000 where sort_order < 100000`;
  let blanksRendered = 0;
  const cache = deps.renderCacheDir ? new LocalDiskStorage(deps.renderCacheDir) : undefined;
  const pairs = new Map<string, { silhouette: Silhouette; hex: string }>();
  for (const g of CATALOG)
    for (const c of g.colors) pairs.set(`${g.silhouette}:${c.hex}`, { silhouette: g.silhouette, hex: c.hex });
  // Two renders at a time: each is CPU-bound in libvips and the machine has two cores.
  const queue = [...pairs.values()];
  await Promise.all(
    [0, 1].map(async () => {
      for (let p = queue.shift(); p; p = queue.shift())
        blanksRendered += await ensureBlanks(deps.storage, p.silhouette, p.hex, cache);
    }),
  );
  // The renderer keeps silhouette templates (~20 MB each) in memory; the seeding process has no further use for them.
  clearBlankCache();
  for (const [i, g] of CATALOG.entries()) await upsertGarment(deps.sql, g, i + 1);
  // the sample designs (lib/samples): the dashboard's "Try a sample" and the front page's mockups
  const samplesRendered = await ensureSamples(deps.storage);
  deps.log.info('seeded garment catalogue', {
    garments: CATALOG.length,
    blanksRendered,
    samplesRendered,
    ms: Date.now() - started,
  });
  return { garments: CATALOG.length, blanksRendered };
}
