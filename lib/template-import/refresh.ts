// A template's own-content outputs, made from a prepared template by this engine: the preview (a lossless PNG at full
// size), its thumbnail and its fidelity (PSNR against the composite Photoshop saved in the file). The import makes
// them first (activities/templates.ts); a template prepared again by a newer engine (prepared-store.ts) makes them
// again, so the resource never shows an older engine's picture or PSNR. docs/templates.md "Prepared data format".
import sharp from 'sharp';
import { makeThumbnailFromRaw } from '../images';
import type { Storage } from '../storage';
import type { PreparedTemplate } from '../templates/prepare';
import { psnr, renderOwnContent } from '../templates/render';
import type { RawImage } from '../templates/types';
import { templateKeys } from './types';

/** PSNR of identical images is infinite; JSON has no Infinity: a perfect match is reported as this many dB. */
export const PSNR_IDENTICAL = 100;

/** The preview: the render of the template's own content as a lossless PNG at full size, encoded for speed (zlib
 * level 1, no row filters: about 40 % less CPU than level 3, for 1.7x the bytes on the bench's noisy 3600x2700 file). */
export function encodePreview(img: RawImage): Promise<Buffer> {
  return sharp(img.data, { raw: { width: img.width, height: img.height, channels: 4 } })
    .png({ compressionLevel: 1, adaptiveFiltering: false })
    .toBuffer();
}

export type Fidelity = { psnr: number; comparedTo: 'photoshop-composite' } | null;

export function fidelityOf(own: RawImage, photoshopComposite: RawImage | null): Fidelity {
  return photoshopComposite
    ? {
        psnr: Math.min(PSNR_IDENTICAL, Math.round(psnr(own, photoshopComposite) * 100) / 100),
        comparedTo: 'photoshop-composite',
      }
    : null;
}

export interface OwnContentOutputs {
  previewKey: string;
  thumbnailKey: string;
  fidelity: Fidelity;
}

/** What a template prepared again calls (prepared-store.ts): its outputs made again; returns the keys it wrote. */
export type PreparedAgainHook = (
  templateId: string,
  prepared: PreparedTemplate,
  photoshopComposite: RawImage | null,
) => Promise<string[]>;

/**
 * Makes a template's preview, thumbnail and fidelity again with this engine after it was prepared again: the PNG and
 * thumbnail overwrite the template's own keys (the same keys and URLs; the same bytes from the same engine, so a
 * second run or a racing process writes what the first wrote), then the row's fidelity is saved by `saveOutputs`
 * (db/templates.ts refreshTemplateOutputs: one statement, a ready template of a live account only). Returns the keys
 * written, for the caller to delete if the template was deleted meanwhile.
 */
export async function refreshOwnContent(
  deps: { storage: Storage; saveOutputs: (templateId: string, outputs: OwnContentOutputs) => Promise<unknown> },
  templateId: string,
  prepared: PreparedTemplate,
  photoshopComposite: RawImage | null,
): Promise<{ keys: string[]; fidelity: Fidelity }> {
  const keys = templateKeys(templateId);
  const own = renderOwnContent(prepared);
  const encoding = Promise.all([encodePreview(own), makeThumbnailFromRaw(own)]);
  encoding.catch(() => {}); // awaited below
  const fidelity = fidelityOf(own, photoshopComposite);
  const [preview, thumb] = await encoding;
  await Promise.all([
    deps.storage.put(keys.preview, preview, 'image/png'),
    deps.storage.put(keys.thumbnail, thumb.body, thumb.mimeType),
  ]);
  await deps.saveOutputs(templateId, {
    previewKey: keys.preview,
    thumbnailKey: keys.thumbnail,
    fidelity,
  });
  return { keys: [keys.preview, keys.thumbnail], fidelity };
}

/** The hook for the prepared-template caches (the worker's and the API's), `saveOutputs` the row's update
 * (db/templates.ts refreshTemplateOutputs). docs/templates.md "Templates prepared by an older engine". */
export function outputsRefresher(
  storage: Storage,
  saveOutputs: (templateId: string, outputs: OwnContentOutputs) => Promise<unknown>,
): PreparedAgainHook {
  return async (id, prepared, composite) =>
    (await refreshOwnContent({ storage, saveOutputs }, id, prepared, composite)).keys;
}
