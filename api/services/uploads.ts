// Upload use case: inspect the image from its bytes, answer the account's earlier upload of the same bytes if there
// is one, decode it strictly into the design levels the worker composites from (lib/images/design-levels.ts) and a
// thumbnail, reserve their bytes against the account's storage quota, store the files, record the row.
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
  preparedBytes,
  preparedKey,
  prepareDesignLevels,
} from '../../lib/images';
import { timeId } from '../../lib/ids';
import { fileUrl } from '../../lib/storage';
import { insertUpload, releaseStorage, reserveStorage, uploadPrecheck, type UploadRow } from '../../db/uploads';
import type { Logger } from '../../lib/log';
import type { AppDeps } from '../context';
import { ApiError } from '../errors';
import { imageProblem } from '../http/image-body';
import { startUploadAnalysis } from './upload-library';

/** The upload resource (spec "Upload"). */
export type UploadResource = z.infer<typeof uploadResource>;

export interface StoredUpload {
  upload: UploadResource;
  /** false: the account had uploaded the same bytes before, and this is that upload (nothing was stored) */
  created: boolean;
}

const mib = (n: number) => `${(n / 1024 ** 2).toFixed(1)} MiB`;

/** 413 storage_quota_exceeded: the upload would take the account's stored bytes past STORAGE_QUOTA_BYTES. */
export function storageQuotaExceeded(usedBytes: number, requiredBytes: number, limitBytes: number): ApiError {
  return new ApiError(
    413,
    'storage_quota_exceeded',
    `Storage quota exceeded: this upload needs ${mib(requiredBytes)} (image, thumbnail and prepared levels) and the ` +
      `account stores ${mib(usedBytes)} of its ${mib(limitBytes)}`,
    { usedBytes, requiredBytes, limitBytes },
  );
}

/** The name of an upload sent without one (JSON without `name`, a multipart file without a file name). */
export const UNTITLED = 'Untitled';

function present(deps: AppDeps, row: Omit<UploadRow, 'createdAt'>): UploadResource {
  return {
    id: row.id,
    url: fileUrl(deps.config, row.storageKey),
    thumbnailUrl: fileUrl(deps.config, row.thumbnailKey),
    dimensions: { width: row.width, height: row.height },
    fileSize: row.sizeBytes,
    mimeType: row.mimeType as UploadResource['mimeType'],
  };
}

/**
 * Stores an upload for the account, or returns its earlier upload of the same bytes. The bytes it stores (original,
 * thumbnail, prepared levels) are reserved against the account's quota before anything is written, and given back
 * if storing fails. A new upload's analysis workflow is started (POST /upload and the MCP tool upload_design alike).
 */
export async function storeUpload(
  deps: AppDeps,
  userId: string,
  bytes: Buffer,
  opts: { name?: string | undefined; livemode?: boolean; log?: Logger } = {},
): Promise<StoredUpload> {
  const livemode = opts.livemode !== false;
  const limit = deps.config.uploads.quotaBytes;
  let info;
  try {
    info = inspectImage(bytes); // format from magic bytes, pixel bombs refused from the header
  } catch (err) {
    throw imageProblem(err);
  }
  // WebCrypto hashes on the libuv pool, so 10 MB is not hashed on the event loop.
  const sha256 = Buffer.from(await webcrypto.subtle.digest('SHA-256', bytes));
  const pre = await uploadPrecheck(deps.sql, userId, sha256, livemode);
  if (pre.existing) return { upload: present(deps, pre.existing), created: false };
  // The original and its prepared levels (their size follows from the header) already pass the quota: refused
  // before decoding anything.
  const atLeast = bytes.length + preparedBytes(info);
  if (pre.usedBytes + atLeast > limit) throw storageQuotaExceeded(pre.usedBytes, atLeast, limit);

  let thumb;
  let dims;
  let prepared: Buffer | null = null;
  try {
    const meta = await decoding(() => openImage(bytes).metadata());
    // As displayed: EXIF rotation applied, like the thumbnail and every browser.
    const upright = { width: meta.autoOrient?.width ?? info.width, height: meta.autoOrient?.height ?? info.height };
    dims = upright;
    // Every pixel is decoded, strictly (truncated or corrupt data fails here), into the design levels the worker
    // composites from: stored beside the upload, they spare the design's first generations the decode
    // (lib/images/design-levels.ts). The thumbnail is made from the smallest. Designs too small for any level
    // are decoded for the thumbnail alone.
    // Each level is its own pipeline from the bytes, which libvips decodes in strips: no full-size decode is held
    // (issue 34: one held 28.8 MB of a 2400x3000 design outside V8's heap through the answer).
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

  const total = bytes.length + thumb.body.length + (prepared?.length ?? 0);
  const reserved = await reserveStorage(deps.sql, userId, total, limit);
  if (!reserved.ok) throw storageQuotaExceeded(reserved.usedBytes, total, limit);

  const id = timeId('upl');
  const key = `uploads/${id}.${info.ext}`;
  const thumbKey = `uploads/${id}.thumb.${thumb.ext}`;
  const row: Omit<UploadRow, 'createdAt'> = {
    id,
    name: opts.name ?? UNTITLED,
    storageKey: key,
    thumbnailKey: thumbKey,
    mimeType: info.mimeType,
    sizeBytes: bytes.length,
    width: dims.width,
    height: dims.height,
  };
  // Files without their row belong to no one, and a reservation without them counts for nothing: both undone.
  const undo = () =>
    Promise.allSettled([
      deps.storage.delete(key),
      deps.storage.delete(thumbKey),
      ...(prepared ? [deps.storage.delete(preparedKey(key))] : []),
      releaseStorage(deps.sql, userId, total),
    ]);
  let recorded;
  try {
    // every write settled before anything is undone, so no file lands after its delete
    const puts = await Promise.allSettled([
      deps.storage.put(key, bytes, info.mimeType),
      deps.storage.put(thumbKey, thumb.body, thumb.mimeType),
      ...(prepared ? [deps.storage.put(preparedKey(key), prepared, 'application/octet-stream')] : []),
    ]);
    const failed = puts.find((p) => p.status === 'rejected');
    if (failed) throw failed.reason;
    recorded = await insertUpload(deps.sql, {
      ...row,
      userId,
      sha256,
      thumbnailBytes: thumb.body.length,
      levelsBytes: prepared?.length ?? 0,
      livemode,
    });
  } catch (err) {
    await undo();
    throw err;
  }
  if (!recorded.inserted) {
    // An identical upload of the account got there first: that one is the upload.
    await undo();
    return { upload: present(deps, recorded.existing), created: false };
  }
  // its analysis is the worker's (workflow upload-analysis-<id>), started before the answer so that no crash loses it
  await startUploadAnalysis(deps, { userId, uploadId: id, storageKey: key }, opts.log ?? deps.log);
  return { upload: present(deps, row), created: true };
}
