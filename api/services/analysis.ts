// Analysis use case (POST /analyze): the image from the body or from a user URL (through the SSRF guard), analyzed
// on the analysis pool (lib/analysis). Image problems become 400 invalid_request; a full pool becomes 503.
import { analyzeImage } from '../../lib/analysis';
import { isUrlFetchError, readUserUrl } from '../../lib/fetch';
import { MAX_IMAGE_BYTES } from '../../lib/images';
import type { AppDeps } from '../context';
import { badInputFrom, badRequest } from '../errors';
import { busy, imageProblem } from '../http/image-body';
import type { analysisResource } from '../http/resources';
import type { z } from 'zod';

type Analysis = z.infer<typeof analysisResource>;

/** Whole exchange with a remote imageUrl, redirects included. */
export const IMAGE_FETCH_TIMEOUT_MS = 10_000;

/** Analyzes image bytes; `context` prefixes the message when the bytes are not a usable image. */
export async function analyzeBytes(bytes: Buffer, quantity: number, context: string): Promise<Analysis> {
  try {
    return await analyzeImage(bytes, { quantity });
  } catch (err) {
    throw busy(imageProblem(err, context));
  }
}

/**
 * Reads an image from a user URL (SSRF-guarded, 10 MB, 10 s); a URL that cannot be fetched is a 400 naming `field`.
 * Also the MCP tool upload_design's `imageUrl` (api/mcp).
 */
export async function readImageUrl(deps: AppDeps, url: string, field = 'imageUrl'): Promise<Buffer> {
  try {
    const { body } = await readUserUrl(deps, url, {
      maxBytes: MAX_IMAGE_BYTES,
      timeoutMs: IMAGE_FETCH_TIMEOUT_MS,
      headers: { accept: 'image/png,image/jpeg,image/webp,image/gif;q=0.9,*/*;q=0.1' },
    });
    return body;
  } catch (err) {
    throw isUrlFetchError(err) ? badInputFrom(err, field) : err;
  }
}

/** Fetches a user URL (SSRF-guarded, 10 MB, 10 s) and analyzes it. */
export async function analyzeUrl(deps: AppDeps, url: string, quantity: number): Promise<Analysis> {
  const bytes = await readImageUrl(deps, url);
  return analyzeBytes(bytes, quantity, 'The file at imageUrl is not a usable image');
}

/**
 * The spec leaves "both supplied" open; guessing which one the client meant would use the wrong image. So exactly
 * one of imageUrl and imageData (POST /analyze; the MCP tools analyze_design and upload_design).
 */
export function oneImageSource(body: { imageUrl?: string | undefined; imageData?: string | undefined }): void {
  if (body.imageUrl !== undefined && body.imageData !== undefined)
    throw badRequest('Supply either imageUrl or imageData, not both');
  if (body.imageUrl === undefined && body.imageData === undefined)
    throw badRequest('imageUrl or imageData is required');
}
