// A template's own-content outputs, made from a prepared template by this engine: the preview (a lossless PNG at full
// size), its thumbnail and its fidelity (PSNR against the composite Photoshop saved in the file). The import makes
// them first (activities/templates.ts); a template prepared again by a newer engine (prepared-store.ts) makes them
// again, so the resource never shows an older engine's picture or PSNR. docs/templates.md "Prepared data format".
import { createHash } from 'node:crypto';
import sharp from 'sharp';
import { makeThumbnailFromRaw, type Thumbnail } from '../images';
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

/** What a key's digest is made of: the first 16 hex digits (64 bits) of the bytes' SHA-256. */
const digestOf = (body: Buffer) => createHash('sha256').update(body).digest('hex').slice(0, 16);

/**
 * Stores a template's preview and thumbnail under keys named by a digest of their bytes (templateKeys previewOf,
 * thumbnailOf): the same picture keeps its key (an import or refresh run twice, two processes racing, write the same
 * key with the same bytes), a different one gets a new key and so a new URL (/files serves every key as immutable).
 */
export async function storeOwnContent(
  storage: Storage,
  templateId: string,
  preview: Buffer,
  thumb: Thumbnail,
): Promise<{ previewKey: string; thumbnailKey: string }> {
  const keys = templateKeys(templateId);
  const previewKey = keys.previewOf(digestOf(preview));
  const thumbnailKey = keys.thumbnailOf(digestOf(thumb.body));
  await Promise.all([
    storage.put(previewKey, preview, 'image/png'),
    storage.put(thumbnailKey, thumb.body, thumb.mimeType),
  ]);
  return { previewKey, thumbnailKey };
}

/** The row's update (db/templates.ts refreshTemplateOutputs): the keys it named before, or undefined when it wrote
 * nothing (the template deleted, or its account's deletion begun). */
export type SaveOutputs = (
  templateId: string,
  outputs: OwnContentOutputs,
) => Promise<{ previewKey: string | null; thumbnailKey: string | null } | undefined>;

/**
 * Makes a template's preview, thumbnail and fidelity again with this engine after it was prepared again: the PNG and
 * thumbnail stored under their digests' keys (storeOwnContent: a changed picture gets a new URL), then the row's keys
 * and fidelity saved by `saveOutputs` (db/templates.ts refreshTemplateOutputs: one statement, a ready template of a
 * live account only), then the files the row named before and no longer names deleted; if the row was not updated,
 * the files just written are deleted instead. Returns the keys written, for the caller to delete if the template was
 * deleted meanwhile.
 */
export async function refreshOwnContent(
  deps: { storage: Storage; saveOutputs: SaveOutputs },
  templateId: string,
  prepared: PreparedTemplate,
  photoshopComposite: RawImage | null,
): Promise<{ keys: string[]; fidelity: Fidelity }> {
  const own = renderOwnContent(prepared);
  const encoding = Promise.all([encodePreview(own), makeThumbnailFromRaw(own)]);
  encoding.catch(() => {}); // awaited below
  const fidelity = fidelityOf(own, photoshopComposite);
  const [preview, thumb] = await encoding;
  const stored = await storeOwnContent(deps.storage, templateId, preview, thumb);
  const written = [stored.previewKey, stored.thumbnailKey];
  const before = await deps.saveOutputs(templateId, { ...stored, fidelity });
  const unused = before ? [before.previewKey, before.thumbnailKey] : written;
  await Promise.allSettled(
    unused.filter((k): k is string => !!k && (!before || !written.includes(k))).map((k) => deps.storage.delete(k)),
  );
  return { keys: written, fidelity };
}

/** The hook for the prepared-template caches (the worker's and the API's), `saveOutputs` the row's update
 * (db/templates.ts refreshTemplateOutputs). docs/templates.md "Templates prepared by an older engine". */
export function outputsRefresher(storage: Storage, saveOutputs: SaveOutputs): PreparedAgainHook {
  return async (id, prepared, composite) =>
    (await refreshOwnContent({ storage, saveOutputs }, id, prepared, composite)).keys;
}
