// The front page's mockups (issue 39): real mockups of the sample designs on catalogue garments, rendered by this
// service's compositing engine (the live preview's path, 640 px) on the first visit that asks for them and kept in
// storage, where /files serves them. Keyed by the sample's PNG key (which hashes its drawing), the garment, the colour
// and the blanks' renderer version: a changed drawing or renderer gets new files, an unchanged one is never redrawn.
import { createHash } from 'node:crypto';
import sharp from 'sharp';
import { RENDER_VERSION } from '../../lib/blanks';
import { SAMPLES, sampleKey } from '../../lib/samples';
import { fileUrl } from '../../lib/storage';
import type { AppDeps } from '../context';
import { previewBody } from '../http/schemas';
import { cachedGarment } from './garment-cache';
import { createPreviewer, type Previewer } from './preview';

/** Which sample goes on which garment and colour (ids of db/seed/catalog.ts). */
export const SHOWCASE = [
  { sampleId: 'sunset', garmentId: 'gildan-5000-heavy-cotton-tee', color: 'White' },
  { sampleId: 'wave', garmentId: 'gildan-18500-heavy-blend-hoodie', color: 'Sport Grey' },
  { sampleId: 'bloom', garmentId: 'next-level-3600-cotton-tee', color: 'Black' },
  { sampleId: 'sunset', garmentId: 'gildan-18000-heavy-blend-crewneck', color: 'Navy' },
] as const;

export interface ShowcaseMockup {
  sampleId: string;
  sampleName: string;
  garmentId: string;
  garmentName: string;
  color: string;
  imageUrl: string;
  width: number;
  height: number;
}

type Deps = Pick<AppDeps, 'config' | 'sql' | 'storage' | 'log'>;

/** One showcase per app: the previewer (and its shrunk blanks) and the rendering in progress are shared by requests. */
export function createShowcase(deps: Deps): () => Promise<ShowcaseMockup[]> {
  let previewer: Previewer | undefined;
  let pending: Promise<ShowcaseMockup[]> | undefined;
  let done: ShowcaseMockup[] | undefined;

  async function one(entry: (typeof SHOWCASE)[number]): Promise<ShowcaseMockup | null> {
    const garment = await cachedGarment(deps, entry.garmentId);
    const color = garment?.colors.find((c) => c.name === entry.color && c.available);
    const sample = SAMPLES.find((s) => s.id === entry.sampleId);
    if (!garment || !color || !sample) return null; // a catalogue without it (an older seed): left out
    const designKey = sampleKey(sample.id);
    const id = createHash('sha256')
      .update(`${designKey}:${garment.id}:${color.hex}:${RENDER_VERSION}`)
      .digest('hex')
      .slice(0, 16);
    const key = `showcase/${sample.id}-${garment.id}-${id}.jpg`;
    let size: { width: number; height: number };
    const stored = await deps.storage.get(key);
    if (stored) {
      const meta = await sharp(stored.body).metadata();
      size = { width: meta.width ?? 0, height: meta.height ?? 0 };
    } else {
      if (!(await deps.storage.exists(designKey))) return null; // samples not seeded (SEED_ON_START off)
      previewer ??= createPreviewer(deps);
      const out = await previewer(
        previewBody.parse({
          designUrl: fileUrl(deps.config, designKey),
          garmentId: garment.id,
          garmentImageUrl: fileUrl(deps.config, color.frontKey),
          color: color.name,
          placement: { x: 50, y: 40, scale: 0.85, rotation: 0 },
        }),
      );
      await deps.storage.put(key, out.jpeg, 'image/jpeg');
      size = { width: out.width, height: out.height };
    }
    return {
      sampleId: sample.id,
      sampleName: sample.name,
      garmentId: garment.id,
      garmentName: `${garment.brand} ${garment.name}`,
      color: color.name,
      imageUrl: fileUrl(deps.config, key),
      ...size,
    };
  }

  return async () => {
    if (done) return done;
    pending ??= (async () => {
      const t0 = Date.now();
      const list: ShowcaseMockup[] = [];
      // one at a time: a first visit must not take both cores from generations under way
      for (const entry of SHOWCASE) {
        const m = await one(entry);
        if (m) list.push(m);
      }
      deps.log.info('showcase ready', { mockups: list.length, ms: Date.now() - t0 });
      return list;
    })();
    try {
      const list = await pending;
      if (list.length === SHOWCASE.length) done = list; // kept once complete; otherwise tried again next time
      return list;
    } finally {
      pending = undefined;
    }
  };
}
