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
import { createUserImageLoader } from '../../lib/fetch/user-images';
import { Gate } from '../../lib/gate';
import { printCostCents } from '../../lib/print/cost';
import { sourceMockupIndex, storedFileName } from '../../lib/print/make';
import { preflightPrint } from '../../lib/print/render';
import { defaultPrintSize } from '../../lib/print/sizes';
import { fileUrl } from '../../lib/storage';
import type { z } from 'zod';
import type { AppDeps } from '../context';
import { ApiError, badRequest, conflict, imageReadError, notFound } from '../errors';
import type { printFileResource, printPreflightBody, printPreflightResource } from '../http/print-schemas';
import { cachedGarment } from './garment-cache';
import { zoneOf } from './generation-jobs';

/** Print files rendered at once by one API process (each holds ~150 MB of pixels for a 12 x 16 in zone). */
export const PRINT_FILES_IN_FLIGHT = 1;
const gate = new Gate(PRINT_FILES_IN_FLIGHT);

export function presentPrintFile(deps: Pick<AppDeps, 'config'>, f: PrintFileRow): z.infer<typeof printFileResource> {
  return {
    id: f.id,
    generationId: f.generationId,
    chatJobId: f.chatJobId,
    mockupIndex: sourceMockupIndex(f.source),
    url: fileUrl(deps.config, f.storageKey),
    underbaseUrl: f.underbaseKey ? fileUrl(deps.config, f.underbaseKey) : null,
    fileName: storedFileName(f.storageKey),
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
      throw imageReadError(err, 'The design could not be read'); // a URL that cannot be read now: 503, Retry-After 2
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
    /**
     * POST /print-preflight: the print of a placement laid out and checked (the same pixels and checks as its print
     * file), nothing made or kept: the studio's warnings before Generate and its 1:1 print view.
     */
    async preflight(body: z.infer<typeof printPreflightBody>): Promise<z.infer<typeof printPreflightResource>> {
      const garment = await cachedGarment(deps, body.garmentId);
      if (!garment) throw notFound(`Garment ${JSON.stringify(body.garmentId)} not found`);
      const zone = zoneOf(garment, body.zone);
      const color = body.color ? garment.colors.find((c) => c.name === body.color) : garment.colors[0];
      if (!color)
        throw badRequest(
          `color: ${body.color} is not a colour of ${garment.name} (${garment.colors.map((c) => c.name).join(', ')})`,
          { field: 'color' },
        );
      if (body.size !== undefined && garment.sizes.length && !garment.sizes.includes(body.size))
        throw badRequest(`size: ${body.size} is not a size of ${garment.name} (${garment.sizes.join(', ')})`);
      const size = body.size ?? defaultPrintSize(garment.sizes);
      const layout = await gate
        .run(async () =>
          preflightPrint({
            design: await loadUserImage(body.designUrl),
            zone: { widthIn: Number(zone.maxWidthIn), heightIn: Number(zone.maxHeightIn) },
            size,
            placement: body.placement,
            garmentHex: color.hex,
          }),
        )
        .catch((err: unknown) => {
          throw imageReadError(err, 'Design image');
        });
      return {
        garmentId: garment.id,
        color: color.name,
        zone: zone.id,
        size,
        widthPx: layout.widthPx,
        heightPx: layout.heightPx,
        dpi: layout.dpi,
        widthIn: layout.widthIn,
        heightIn: layout.heightIn,
        designBox: layout.designBox,
        preflight: layout.preflight,
      };
    },
    /**
     * The print cost of a mockup (USD cents, lib/print/cost.ts) from its print file for the default size, made now if
     * it is not yet; null when its print has no physical size (the spec's flat rate applies). Production later prints
     * from the same file.
     */
    async printCostCents(r: PrintSourceResult): Promise<number | null> {
      if (!r.ok) {
        if (r.reason === 'no_physical_size') return null;
        throw sourceError(r);
      }
      const row = await make(r.source, chooseSize(r.source, undefined));
      return printCostCents(row.preflight.inkedAreaIn2, row.preflight.underbase);
    },
  };
}
