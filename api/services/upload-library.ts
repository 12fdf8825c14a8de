// The design library (issue 35): an account's uploads listed, read, renamed and deleted (files erased at once, the
// bytes given back to the storage quota), their latest analysis kept, and what a generate must know about a design
// URL: an upload that was deleted is refused ("design was deleted"), an upload's inks feed the contrast checks.
import type { z } from 'zod';
import {
  deleteUpload,
  getUpload,
  listUploads,
  renameUpload,
  saveUploadAnalysis,
  uploadsByKeys,
  type DesignUpload,
  type LibraryRow,
  type StoredAnalysis,
} from '../../db/upload-library';
import { ANALYSIS_VERSION, analysisToKeep } from '../../lib/analysis';
import { ownFileKey } from '../../lib/fetch';
import { preparedKey } from '../../lib/images';
import type { Logger } from '../../lib/log';
import { fileUrl } from '../../lib/storage';
import { UPLOAD_ANALYSIS_QUANTITY, uploadAnalysisWorkflowId } from '../../lib/uploads/types';
import { uploadAnalysis } from '../../workflows';
import type { AppDeps } from '../context';
import { badRequest, notFound } from '../errors';
import { busy, imageProblem } from '../http/image-body';
import type { libraryUploadResource } from '../http/upload-library-schemas';
import { createdAtAndId, cursorPage, type CursorPage } from '../pagination';

export type LibraryUpload = z.infer<typeof libraryUploadResource>;

/** Longest upload name kept; longer file names are cut (the extension kept out of it). */
export const MAX_UPLOAD_NAME = 200;

/** The name an upload takes from a file name: its base name without the extension, trimmed, at most 200 characters. */
export function nameFromFile(fileName: string | undefined): string | undefined {
  if (!fileName) return undefined;
  const base = fileName
    .split(/[\\/]/)
    .pop()!
    .replace(/\.[A-Za-z0-9]{1,5}$/, '');
  // control characters have no place in a name shown in lists and archive entries
  const clean = base.replace(/[\u0000-\u001f\u007f]/g, '').trim();
  return clean ? clean.slice(0, MAX_UPLOAD_NAME) : undefined;
}

export function presentLibraryUpload(deps: Pick<AppDeps, 'config'>, row: LibraryRow): LibraryUpload {
  return {
    id: row.id,
    url: fileUrl(deps.config, row.storageKey),
    thumbnailUrl: fileUrl(deps.config, row.thumbnailKey),
    dimensions: { width: row.width, height: row.height },
    fileSize: row.sizeBytes,
    mimeType: row.mimeType,
    name: row.name,
    createdAt: row.createdAt.toISOString(),
    analysis: row.analysis ? (row.analysis.result as LibraryUpload['analysis']) : null,
    analyzedAt: row.analyzedAt ? row.analyzedAt.toISOString() : null,
  };
}

const uploadNotFound = (id: string) => notFound(`Upload ${JSON.stringify(id)} not found`);

/** GET /uploads: a page of the account's uploads of the request's mode, newest first, `q` matching names. */
export async function uploadPage(
  deps: AppDeps,
  userId: string,
  livemode: boolean,
  q: { q?: string | undefined; cursor?: string | undefined; limit: number },
): Promise<CursorPage<LibraryRow>> {
  const scope = `uploads:${livemode ? 'live' : 'test'}:${q.q ?? ''}`;
  return cursorPage(
    { secret: deps.config.appSecret, scope, codec: createdAtAndId, invalidHint: ', with the same q' },
    { cursor: q.cursor, limit: q.limit },
    (after, limit) => listUploads(deps.sql, userId, { livemode, q: q.q, after, limit }),
  );
}

export async function readUpload(deps: AppDeps, userId: string, id: string, livemode: boolean): Promise<LibraryRow> {
  const row = await getUpload(deps.sql, userId, id, livemode);
  if (!row) throw uploadNotFound(id);
  return row;
}

export async function renameOwnUpload(
  deps: AppDeps,
  userId: string,
  id: string,
  livemode: boolean,
  name: string,
): Promise<LibraryRow> {
  const row = await renameUpload(deps.sql, userId, id, livemode, name);
  if (!row) throw uploadNotFound(id);
  return row;
}

/**
 * DELETE /uploads/{id}: the row is marked deleted and its bytes given back (one statement), then its original,
 * thumbnail and prepared levels are erased from storage before the answer, so its URL is 404 once the call returns.
 * Mockups made from it are files of their own and stay.
 */
export async function deleteOwnUpload(deps: AppDeps, userId: string, id: string, livemode: boolean): Promise<void> {
  const gone = await deleteUpload(deps.sql, userId, id, livemode);
  if (!gone) throw uploadNotFound(id);
  await Promise.all([
    deps.storage.delete(gone.storageKey),
    deps.storage.delete(gone.thumbnailKey),
    deps.storage.delete(preparedKey(gone.storageKey)),
  ]);
}

/** Analyses under way in this process, by storage key and quantity: a second ask for one waits for it. */
const analysing = new Map<string, Promise<StoredAnalysis>>();

/**
 * Analyses an upload's bytes in this process and keeps the result as its latest analysis (with its inks, for
 * contrast checks): a generate or POST /analyze that cannot wait for the worker's (startUploadAnalysis). One of the
 * same upload and quantity already under way in this process is waited for, not made twice.
 */
export function analyzeAndKeep(
  deps: AppDeps,
  userId: string,
  storageKey: string,
  bytes: Buffer,
  quantity = UPLOAD_ANALYSIS_QUANTITY,
): Promise<StoredAnalysis> {
  const id = `${storageKey}\n${quantity}`;
  const running = analysing.get(id);
  if (running) return running;
  const made = (async () => {
    const stored = await analysisToKeep(bytes, { quantity });
    await saveUploadAnalysis(deps.sql, userId, storageKey, stored);
    return stored;
  })().finally(() => analysing.delete(id));
  analysing.set(id, made);
  return made;
}

/** Longest POST /upload waits for its analysis workflow to start (then it answers, and the first generate analyses). */
export const UPLOAD_ANALYSIS_START_MS = 3_000;

/**
 * A new upload's analysis (issue 35), made by the worker: workflow upload-analysis-<upload id> on TEMPORAL_TASK_QUEUE
 * (workflows/upload-analysis.ts), started before the upload is answered (its first task UPLOAD_ANALYSIS_DELAY later),
 * so a crash of the API loses none and the pixel work stays out of the API process (issue 34: it raised the API's
 * resident peak by ~80 MiB). When it cannot
 * start (Temporal unreachable), the design's first generate or POST /analyze makes it instead; the upload stands.
 */
export async function startUploadAnalysis(
  deps: AppDeps,
  upload: { userId: string; uploadId: string; storageKey: string },
  log: Logger,
): Promise<void> {
  try {
    // an upload does not wait on a Temporal that cannot be reached for longer than this
    await deps.temporal.withDeadline(Date.now() + UPLOAD_ANALYSIS_START_MS, () =>
      deps.temporal.workflow.start(uploadAnalysis, {
        workflowId: uploadAnalysisWorkflowId(upload.uploadId),
        taskQueue: deps.config.temporal.taskQueue,
        args: [{ uploadId: upload.uploadId, accountId: upload.userId, storageKey: upload.storageKey }],
        searchAttributes: { AccountId: [upload.userId] },
        // after the client's burst of requests, not beside them (UPLOAD_ANALYSIS_DELAY)
        ...(deps.config.uploads.analysisDelayMs > 0 ? { startDelay: deps.config.uploads.analysisDelayMs } : {}),
      }),
    );
  } catch (err) {
    log.warn('upload analysis not started; the first generate of the design makes it', {
      uploadId: upload.uploadId,
      error: err instanceof Error ? err.message : String(err),
    });
  }
}

/** The upload of the caller stored under the key of `url` (one of our files), if any, deleted ones included. */
export type DesignInfo = DesignUpload;

/**
 * What the service knows of the designs a generate names: for each URL of one of our uploads, that upload. A URL
 * of an upload that was deleted is a 400 "design was deleted" (details name the field and the upload). URLs that
 * are not our uploads (a client's own host) map to nothing.
 */
export async function designsOf(
  deps: AppDeps,
  urls: { url: string; field: string }[],
): Promise<Map<string, DesignInfo>> {
  const keyOf = new Map<string, string>();
  for (const { url } of urls) {
    const key = ownFileKey(deps.config.publicBaseUrl, url);
    if (key && key.startsWith('uploads/')) keyOf.set(url, key);
  }
  const out = new Map<string, DesignInfo>();
  if (keyOf.size === 0) return out;
  const rows = await uploadsByKeys(deps.sql, [...new Set(keyOf.values())]);
  const byKey = new Map(rows.map((r) => [r.key, r]));
  for (const { url, field } of urls) {
    const row = byKey.get(keyOf.get(url) ?? '');
    if (!row) continue;
    if (row.deleted) throw badRequest('design was deleted', { field, uploadId: row.id });
    out.set(url, row);
  }
  return out;
}

/**
 * The design's stored analysis, made now (and kept) when the upload has none yet: the first generate of a design
 * whose background analysis has not finished pays for it once.
 */
export async function designAnalysis(deps: AppDeps, url: string, design: DesignInfo): Promise<StoredAnalysis | null> {
  if (design.analysis) return design.analysis;
  const key = ownFileKey(deps.config.publicBaseUrl, url);
  if (!key) return null;
  const obj = await deps.storage.get(key);
  if (!obj) return null;
  try {
    return await analyzeAndKeep(deps, design.userId, key, obj.body);
  } catch (err) {
    deps.log.warn('design analysis failed; no contrast check for it', {
      uploadId: design.id,
      error: err instanceof Error ? err.message : String(err),
    });
    return null;
  }
}

/**
 * POST /analyze of one of the caller's uploads (by its url): the analysis, kept as the upload's latest. Undefined
 * when the URL is not an upload of the caller (it is then analysed as any URL).
 */
export async function ownUploadAnalysis(
  deps: AppDeps,
  userId: string,
  url: string,
  quantity: number,
): Promise<LibraryUpload['analysis'] | undefined> {
  const key = ownFileKey(deps.config.publicBaseUrl, url);
  if (!key || !key.startsWith('uploads/')) return undefined;
  const [row] = await uploadsByKeys(deps.sql, [key]);
  // the original only (a thumbnail's analysis is not the design's)
  if (!row || row.userId !== userId || row.deleted || key.includes('.thumb.')) return undefined;
  // the analysis kept from the upload (or an earlier ask), when this version made it for this quantity: the same
  // bytes, the same answer
  const kept = row.analysis;
  if (kept?.version === ANALYSIS_VERSION && kept.quantity === quantity) return kept.result as LibraryUpload['analysis'];
  const obj = await deps.storage.get(key);
  if (!obj) return undefined;
  try {
    const stored = await analyzeAndKeep(deps, userId, key, obj.body, quantity);
    return stored.result as LibraryUpload['analysis'];
  } catch (err) {
    throw busy(imageProblem(err, 'The file at imageUrl is not a usable image'));
  }
}
