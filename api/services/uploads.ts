// Upload use case: inspect the image from its bytes, decode it strictly into the design levels the worker
// composites from (lib/images/design-levels.ts) and a thumbnail, store the files, record the row.
import type { z } from 'zod';
import type { uploadResource } from '../http/resources';
import { webcrypto } from 'node:crypto';
import {
  decoding,
  encodePrepared,
  inspectImage,
  makeThumbnail,
  makeThumbnailFromRaw,
  MAX_INPUT_PIXELS,
  openImage,
  preparedKey,
  prepareDesignLevels,
} from '../../lib/images';
import { timeId } from '../../lib/ids';
import { fileUrl } from '../../lib/storage';
import type { AppDeps } from '../context';
import { imageProblem } from '../http/image-body';

interface Stored {
  key: string;
  thumbKey: string;
}

/** The upload resource (spec "Upload"). */
export type UploadResource = z.infer<typeof uploadResource>;

export async function storeUpload(deps: AppDeps, userId: string, bytes: Buffer): Promise<UploadResource> {
  let info;
  let thumb;
  let dims;
  let prepared: Buffer | null = null;
  try {
    info = inspectImage(bytes); // format from magic bytes, pixel bombs refused from the header
    const meta = await decoding(() => openImage(bytes).metadata());
    // As displayed: EXIF rotation applied, like the thumbnail and every browser.
    const upright = { width: meta.autoOrient?.width ?? info.width, height: meta.autoOrient?.height ?? info.height };
    dims = upright;
    // Every pixel is decoded, strictly (truncated or corrupt data fails here), into the design levels the worker
    // composites from: stored beside the upload, they spare the design's first generations the decode
    // (lib/images/design-levels.ts). The thumbnail is made from the smallest. Designs too small for any level
    // are decoded for the thumbnail alone.
    const levels = await decoding(() =>
      prepareDesignLevels(bytes, upright, { limitInputPixels: MAX_INPUT_PIXELS, failOn: 'warning' }),
    );
    if (levels) {
      prepared = encodePrepared(levels);
      thumb = await makeThumbnailFromRaw([...levels.levels.values()].at(-1)!);
    } else {
      thumb = await makeThumbnail(bytes);
    }
  } catch (err) {
    throw imageProblem(err);
  }

  const id = timeId('upl');
  const stored: Stored = { key: `uploads/${id}.${info.ext}`, thumbKey: `uploads/${id}.thumb.${thumb.ext}` };
  // WebCrypto hashes on the libuv pool, so 10 MB is not hashed on the event loop.
  const sha256 = Buffer.from(await webcrypto.subtle.digest('SHA-256', bytes));
  await Promise.all([
    deps.storage.put(stored.key, bytes, info.mimeType),
    deps.storage.put(stored.thumbKey, thumb.body, thumb.mimeType),
    ...(prepared ? [deps.storage.put(preparedKey(stored.key), prepared, 'application/octet-stream')] : []),
  ]);
  try {
    await deps.sql`
      insert into uploads (id, user_id, storage_key, thumbnail_key, mime_type, size_bytes, width, height, sha256)
      values (${id}, ${userId}, ${stored.key}, ${stored.thumbKey}, ${info.mimeType}, ${bytes.length}, ${dims.width}, ${dims.height}, ${sha256})`;
  } catch (err) {
    // Without its row the upload belongs to no one: do not leave the files behind.
    await Promise.allSettled([
      deps.storage.delete(stored.key),
      deps.storage.delete(stored.thumbKey),
      deps.storage.delete(preparedKey(stored.key)),
    ]);
    throw err;
  }
  return {
    id,
    url: fileUrl(deps.config, stored.key),
    thumbnailUrl: fileUrl(deps.config, stored.thumbKey),
    dimensions: dims,
    fileSize: bytes.length,
    mimeType: info.mimeType,
  };
}
