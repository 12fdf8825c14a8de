// A design chat job's reference images: the thread's previous graphic (what "make it blue" edits) first, then the
// request's `images` and `designUrls`, each made what the providers get: upright, at most REFERENCE_LONG_SIDE px on
// its long side, PNG. Reading them (storage, the SSRF-guarded loader) is the caller's; this only shapes the bytes.
import sharp from 'sharp';
import { BadInputError } from '../errors';

/** References are sent to the providers at most this large (long side, px). */
export const REFERENCE_LONG_SIDE = 1536;
/** Decoding bound of one reference (pixels), as for uploads. */
const MAX_REFERENCE_PIXELS = 40_000_000;

/** Where each reference comes from, in the order the providers see them. */
export type ReferenceSource = { kind: 'stored'; key: string } | { kind: 'url'; url: string };

export function referenceSources(previousGraphicKey: string | null, urls: readonly string[]): ReferenceSource[] {
  return [
    ...(previousGraphicKey ? [{ kind: 'stored' as const, key: previousGraphicKey }] : []),
    ...urls.map((url) => ({ kind: 'url' as const, url })),
  ];
}

/** The reference at `position` (0-based) as the providers get it; BadInputError when it cannot be decoded. */
export async function normalizeReference(raw: Buffer, position: number): Promise<Buffer> {
  try {
    return await sharp(raw, { failOn: 'error', limitInputPixels: MAX_REFERENCE_PIXELS })
      .rotate()
      .resize(REFERENCE_LONG_SIDE, REFERENCE_LONG_SIDE, { fit: 'inside', withoutEnlargement: true })
      .png({ compressionLevel: 4 })
      .toBuffer();
  } catch (err) {
    throw new BadInputError(`Reference image ${position + 1} cannot be read: ${(err as Error).message}`);
  }
}
