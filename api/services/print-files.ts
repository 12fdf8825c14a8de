// Print files (issue 36): GET /api/v1/generations/<id>/print-file and GET /api/chat/jobs/<id>/print-file. The file
// for a garment size is made once (lib/print, db/print-files.ts) and kept; later calls answer the record. Making one
// is image work of about a second: at most PRINT_FILES_IN_FLIGHT at once per API process, the rest wait in turn.
import {
  chatPrintSource,
  printFileFor,
  type PrintFileRow,
  type PrintSource,
  type PrintSourceResult,
} from '../../db/print-files';
import { isBadInput } from '../../lib/errors';
import { UrlFetchError } from '../../lib/fetch';
import { createUserImageLoader } from '../../lib/fetch/user-images';
import { Gate } from '../../lib/gate';
import { defaultPrintSize } from '../../lib/print/sizes';
import { fileUrl } from '../../lib/storage';
import type { z } from 'zod';
import type { AppDeps } from '../context';
import { ApiError, badRequest, conflict, notFound } from '../errors';
import type { printFileResource } from '../http/print-schemas';

/** Print files rendered at once by one API process (each holds ~150 MB of pixels for a 12 x 16 in zone). */
export const PRINT_FILES_IN_FLIGHT = 1;
const gate = new Gate(PRINT_FILES_IN_FLIGHT);

export function presentPrintFile(deps: Pick<AppDeps, 'config'>, f: PrintFileRow): z.infer<typeof printFileResource> {
  const [, , index] = f.source.split(':');
  return {
    id: f.id,
    generationId: f.generationId,
    chatJobId: f.chatJobId,
    mockupIndex: f.chatJobId ? Number(index) : null,
    url: fileUrl(deps.config, f.storageKey),
    underbaseUrl: f.underbaseKey ? fileUrl(deps.config, f.underbaseKey) : null,
    fileName: f.storageKey.slice(f.storageKey.lastIndexOf('/') + 1),
    size: f.size,
    color: f.color,
    zone: f.zone,
    widthPx: f.widthPx,
    heightPx: f.heightPx,
    dpi: f.dpi,
    widthIn: f.widthIn,
    heightIn: f.heightIn,
    designBox: f.designBox,
    preflight: f.preflight,
    createdAt: f.createdAt.toISOString(),
  };
}

/** A source that cannot be printed, as the API's error (Part A codes; Part B routes take its message). */
export function sourceError(r: Exclude<PrintSourceResult, { ok: true }>): ApiError {
  return r.reason === 'not_found' ? notFound(r.message) : conflict(r.message);
}

/** The size asked (one of the garment's), or the default print size. */
export function chooseSize(s: PrintSource, size: string | undefined): string {
  if (size === undefined) return defaultPrintSize(s.sizes);
  if (s.sizes.length && !s.sizes.includes(size))
    throw badRequest(`size: ${size} is not a size of ${s.garmentName} (${s.sizes.join(', ')})`);
  return size;
}

export function createPrintFiles(deps: Pick<AppDeps, 'config' | 'sql' | 'storage'>) {
  const loadUserImage = createUserImageLoader(deps);
  const make = async (s: PrintSource, size: string) => {
    try {
      return (await gate.run(() => printFileFor({ ...deps, loadUserImage }, s, size))).row;
    } catch (err) {
      if (isBadInput(err)) throw conflict(`The design cannot be printed: ${(err as Error).message}`);
      if (err instanceof UrlFetchError || (err as Error)?.cause instanceof UrlFetchError)
        throw new ApiError(
          503,
          'service_unavailable',
          `The design could not be read: ${(err as Error).message}; try again`,
          {
            retryAfter: 2,
          },
          { 'Retry-After': '2' },
        );
      throw err;
    }
  };
  return {
    /** The generation's print file (the caller has checked the generation is the user's, in the request's mode). */
    async forGeneration(r: PrintSourceResult, size: string | undefined) {
      if (!r.ok) throw sourceError(r);
      return presentPrintFile(deps, await make(r.source, chooseSize(r.source, size)));
    },
    async forChatMockup(userId: string, jobId: string, mockupIndex: number, size: string | undefined) {
      const r = await chatPrintSource(deps.sql, jobId, mockupIndex, userId);
      if (!r.ok) throw sourceError(r);
      return presentPrintFile(deps, await make(r.source, chooseSize(r.source, size)));
    },
  };
}
