// The warnings a generate's items get before they are charged (issue 35): low_contrast for a design of the library
// on a garment colour its ink hardly shows on. The design's inks come from its stored analysis (made after its
// upload, or now on its first generate); designs that are not uploads of this service get no contrast check.
import type { GarmentRow } from '../../db/garments';
import { addGenerationWarnings } from '../../db/generation-warnings';
import { lowContrastWarning } from '../../lib/generation/contrast-warning';
import type { GenerationWarning } from '../../lib/generation/warnings';
import type { AppDeps } from '../context';
import { darkColor } from '../../lib/analysis/contrast';
import { fileUrl } from '../../lib/storage';
import { notFound } from '../errors';
import { cachedGarment } from './garment-cache';
import { designAnalysis, designsOf, readUpload, type DesignInfo } from './upload-library';

/** One item to check: its design URL, its garment and the name of its colour ('custom': a client's own photo). */
export interface WarnedItem {
  id: string;
  designUrl: string;
  garment: GarmentRow;
  color: string;
}

/** The warnings of each item (by id); items without any are absent. */
export async function itemWarnings(
  deps: AppDeps,
  designs: Map<string, DesignInfo>,
  items: WarnedItem[],
): Promise<Map<string, GenerationWarning[]>> {
  const analyses = new Map<string, Awaited<ReturnType<typeof designAnalysis>>>();
  await Promise.all(
    [...new Set(items.map((i) => i.designUrl))].map(async (url) => {
      const d = designs.get(url);
      if (d) analyses.set(url, await designAnalysis(deps, url, d));
    }),
  );
  const out = new Map<string, GenerationWarning[]>();
  for (const item of items) {
    const a = analyses.get(item.designUrl);
    const color = item.garment.colors.find((c) => c.name === item.color);
    if (!a || !color) continue;
    const w = lowContrastWarning(a, color);
    if (w) out.set(item.id, [w]);
  }
  return out;
}

/** Stores the warnings of charged generations (before their workflows start, so every read shows them). */
export function recordWarnings(deps: AppDeps, warnings: Map<string, GenerationWarning[]>): Promise<void> {
  return addGenerationWarnings(
    deps.sql,
    [...warnings].map(([id, w]) => ({ id, warnings: w })),
  );
}

/**
 * The design checks of a generate before it is charged: a design URL of a deleted upload is a 400 "design was
 * deleted" (field designUrl); each item hard to see on its colour gets its low_contrast warning.
 */
export async function checkDesigns(deps: AppDeps, items: WarnedItem[]): Promise<Map<string, GenerationWarning[]>> {
  const urls = [...new Set(items.map((i) => i.designUrl))].map((url) => ({ url, field: 'designUrl' }));
  return itemWarnings(deps, await designsOf(deps, urls), items);
}

/**
 * GET /uploads/{id}/contrast?garmentId=: for each colour of the garment, whether the design's ink shows on it (the
 * low_contrast warning a generate would carry, or null) and whether the colour is dark (it takes a darkDesignUrl).
 * The studio shows it before Generate; the Bulk flow before confirming.
 */
export async function garmentContrast(
  deps: AppDeps,
  userId: string,
  uploadId: string,
  livemode: boolean,
  garmentId: string,
) {
  const upload = await readUpload(deps, userId, uploadId, livemode);
  const garment = await cachedGarment(deps, garmentId);
  if (!garment) throw notFound(`Garment ${JSON.stringify(garmentId)} not found`);
  const url = fileUrl(deps.config, upload.storageKey);
  const design = (await designsOf(deps, [{ url, field: 'id' }])).get(url);
  const analysis = design ? await designAnalysis(deps, url, design) : null;
  return {
    uploadId: upload.id,
    garmentId: garment.id,
    analysed: analysis !== null,
    colors: garment.colors.map((c) => ({
      name: c.name,
      hex: c.hex,
      available: c.available,
      dark: darkColor(c.hex),
      warning: analysis ? lowContrastWarning(analysis, c) : null,
    })),
  };
}
