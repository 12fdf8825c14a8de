// Fingerprints of the garment blanks: SHA-256 of every catalogue blank as the seed stores it (front and back JPEG,
// their thumbnails, their fabric maps), of each silhouette's garment mask and of the drawings and print zones they
// are rendered from. For refactoring the renderer (lib/blanks/) without changing a byte:
//   node --import tsx scripts/blank-hashes.ts --write   record them in test/fixtures/blank-hashes.json
//   node --import tsx scripts/blank-hashes.ts           compare with the recorded ones (exit 1 on any difference)
// test/unit/blank-hashes.test.ts checks the drawings, the zones and a sample of renders against the same file.
// A change of the look is recorded with --write together with a new RENDER_VERSION (lib/blanks/index.ts).
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { CATALOG } from '../db/seed/catalog';
import { clearBlankCache, garmentMask, renderBlank, zonesFor, RENDER_VERSION, SILHOUETTES, VIEWS } from '../lib/blanks';
import { geometry } from '../lib/blanks/silhouettes';
import { deriveFabricMaps } from '../lib/compositing';
import type { Silhouette, View } from '../lib/blanks/geometry';

export const BLANK_HASHES_FILE = path.join(__dirname, '../test/fixtures/blank-hashes.json');

export interface BlankHashes {
  renderVersion: string;
  /** `silhouette:view` -> hash of the drawing (geometry() as JSON: every coordinate, exactly) */
  geometry: Record<string, string>;
  /** silhouette -> hash of zonesFor() as JSON */
  zones: Record<string, string>;
  /** `silhouette:view` -> hash of the 2000 px garment mask */
  masks: Record<string, string>;
  /** `silhouette/hex/view` -> hashes of what the seed stores for that blank */
  blanks: Record<string, { image: string; thumbnail: string; shading: string; displacement: string }>;
}

export const sha256 = (data: Buffer | string): string => createHash('sha256').update(data).digest('hex');

export const geometryHash = (s: Silhouette, view: View): string => sha256(JSON.stringify(geometry(s, view)));
export const zonesHash = (s: Silhouette): string => sha256(JSON.stringify(zonesFor(s)));

/** Each silhouette and colour of the catalogue once (garments that share both share the files). */
export function catalogueBlanks(): { silhouette: Silhouette; hex: string }[] {
  const seen = new Map<string, { silhouette: Silhouette; hex: string }>();
  for (const g of CATALOG)
    for (const c of g.colors)
      seen.set(`${g.silhouette}/${c.hex.toLowerCase()}`, { silhouette: g.silhouette, hex: c.hex });
  return [...seen.values()];
}

export async function blankHash(silhouette: Silhouette, hex: string, view: View) {
  const out = await renderBlank({ silhouette, view, colorHex: hex });
  const maps = await deriveFabricMaps(out.image);
  return {
    image: sha256(out.image),
    thumbnail: sha256(out.thumbnail),
    shading: sha256(maps.shading),
    displacement: sha256(maps.displacement),
  };
}

export const blankKey = (silhouette: Silhouette, hex: string, view: View) =>
  `${silhouette}/${hex.replace('#', '').toLowerCase()}/${view}`;

async function computeAll(say: (m: string) => void): Promise<BlankHashes> {
  const h: BlankHashes = { renderVersion: RENDER_VERSION, geometry: {}, zones: {}, masks: {}, blanks: {} };
  for (const s of SILHOUETTES) {
    h.zones[s] = zonesHash(s);
    for (const view of VIEWS) {
      h.geometry[`${s}:${view}`] = geometryHash(s, view);
      h.masks[`${s}:${view}`] = sha256((await garmentMask(s, view)).data);
    }
  }
  const blanks = catalogueBlanks();
  // one silhouette and view at a time, so each template is built once
  for (const s of SILHOUETTES) {
    for (const view of VIEWS) {
      for (const b of blanks.filter((x) => x.silhouette === s))
        h.blanks[blankKey(s, b.hex, view)] = await blankHash(s, b.hex, view);
      say(`${s} ${view}: ${blanks.filter((x) => x.silhouette === s).length} colours`);
    }
    clearBlankCache();
  }
  return h;
}

async function main(): Promise<number> {
  const say = (m: string) => process.stderr.write(`[blank-hashes] ${m}\n`);
  const now = await computeAll(say);
  if (process.argv.includes('--write')) {
    writeFileSync(BLANK_HASHES_FILE, JSON.stringify(now, null, 2) + '\n');
    say(`wrote ${Object.keys(now.blanks).length} blanks to ${path.relative(process.cwd(), BLANK_HASHES_FILE)}`);
    return 0;
  }
  const recorded = JSON.parse(readFileSync(BLANK_HASHES_FILE, 'utf8')) as BlankHashes;
  const diffs: string[] = [];
  const compare = (what: string, a: unknown, b: unknown) => {
    if (JSON.stringify(a) !== JSON.stringify(b)) diffs.push(what);
  };
  compare('renderVersion', recorded.renderVersion, now.renderVersion);
  for (const k of ['geometry', 'zones', 'masks', 'blanks'] as const) {
    const keys = new Set([...Object.keys(recorded[k]), ...Object.keys(now[k])]);
    for (const key of keys) compare(`${k} ${key}`, recorded[k][key], now[k][key]);
  }
  for (const d of diffs) say(`differs: ${d}`);
  say(diffs.length ? `${diffs.length} differences` : `all ${Object.keys(now.blanks).length} blanks identical`);
  return diffs.length ? 1 : 0;
}

if (require.main === module) {
  main().then(
    (code) => process.exit(code),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
