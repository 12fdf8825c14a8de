// The built-in sample designs (issue 39): three designs drawn for this project as SVG (./*.svg, the project's own
// work: ./LICENSE.md), rendered to transparent PNGs when the stack is seeded and kept in storage, where /files serves
// them. A person with no print-ready file tries the service with them (the dashboard's "Try a sample"), the front
// page's mockups are rendered from them, and the README's quick tour and the examples upload them.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import type { Storage } from '../storage/types';

export interface Sample {
  id: string;
  name: string;
  description: string;
}

export const SAMPLES: readonly Sample[] = [
  { id: 'sunset', name: 'Retro sunset', description: 'A striped sun setting behind mountains, in five flat colours.' },
  { id: 'wave', name: 'Ocean wave', description: 'A curling wave and moon in a round badge, in blues and cream.' },
  { id: 'bloom', name: 'Geometric bloom', description: 'An eight-fold flower of leaves and petals, in warm tones.' },
];

export const SAMPLE_LICENCE =
  "Drawn for this project by its developers (no third-party art): the project's own work, free to use for trying the service.";

/** Side of the rendered PNG, in pixels: 6 in at 300 dpi, enough for a chest print. */
export const SAMPLE_SIDE = 1800;

/** The sample's SVG source. */
export function sampleSvg(id: string): Buffer {
  if (!SAMPLES.some((s) => s.id === id)) throw new Error(`no sample design ${JSON.stringify(id)}`);
  return readFileSync(path.join(__dirname, `${id}.svg`));
}

/** Storage key of the sample's PNG: named by a hash of its SVG and the render settings, so a changed drawing gets a new key. */
export function sampleKey(id: string): string {
  const hash = createHash('sha256').update(sampleSvg(id)).update(`:${SAMPLE_SIDE}`).digest('hex').slice(0, 12);
  return `samples/${id}-${hash}.png`;
}

/** The sample as a PNG of SAMPLE_SIDE × SAMPLE_SIDE px with a transparent background (librsvg through sharp). */
export async function renderSample(id: string): Promise<Buffer> {
  return sharp(sampleSvg(id), { density: (72 * SAMPLE_SIDE) / 600 })
    .resize(SAMPLE_SIDE, SAMPLE_SIDE, { fit: 'contain', background: { r: 0, g: 0, b: 0, alpha: 0 } })
    .png({ compressionLevel: 9 })
    .toBuffer();
}

/** Renders and stores every sample that storage lacks; idempotent (the seed runs it on every start). Returns how many were rendered. */
export async function ensureSamples(storage: Storage): Promise<number> {
  let rendered = 0;
  for (const s of SAMPLES) {
    const key = sampleKey(s.id);
    if (await storage.exists(key)) continue;
    await storage.put(key, await renderSample(s.id), 'image/png');
    rendered++;
  }
  return rendered;
}
