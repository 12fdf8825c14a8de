// Reading the images a generation or a preview names: designs (any URL) and blanks (our own, or a client's blank
// photo). Used by the worker's generation activities and by the API's synchronous preview.
import { ACCEPTED_LIST, describeUnsupported, detectFormat, inspectImage, isImageError } from '../images';
import type { Config } from '../config';
import type { Storage } from '../storage';
import { BadInputError } from '../errors';
import { UrlFetchError, type UrlFetchReason } from './errors';
import { readUserUrl } from './own-files';

/** Designs and blanks larger than this are refused (uploads are capped at 10 MB; foreign URLs get some room). */
export const MAX_REMOTE_IMAGE_BYTES = 25 * 1024 * 1024;
const FETCH_TIMEOUT_MS = 20_000;

// Failures that depend on the remote side's state and may pass on a retry; every other reason is the input's fault.
const TRANSIENT: ReadonlySet<UrlFetchReason> = new Set(['timeout', 'network_error', 'dns_failed']);

export function createUserImageLoader(deps: { config: Config; storage: Storage }, opts: { maxBytes?: number } = {}) {
  const maxBytes = opts.maxBytes ?? MAX_REMOTE_IMAGE_BYTES;
  return async function loadUserImage(url: string, signal?: AbortSignal): Promise<Buffer> {
    let body: Buffer;
    try {
      ({ body } = await readUserUrl(deps, url, {
        maxBytes,
        timeoutMs: FETCH_TIMEOUT_MS,
        signal,
      }));
    } catch (err) {
      if (err instanceof UrlFetchError) {
        const status = typeof err.details.status === 'number' ? err.details.status : undefined;
        // A 5xx or 429 from the host is its temporary trouble; a 4xx is a wrong URL.
        const transient =
          TRANSIENT.has(err.reason) ||
          (err.reason === 'http_status' && (status === undefined || status >= 500 || status === 429));
        const message = `Could not read ${url}: ${err.message}`;
        // anything else is an input no retry can fix: the workflow fails the work at once instead of retrying
        if (transient) throw new Error(message, { cause: err });
        throw new BadInputError(message);
      }
      throw err;
    }
    if (!detectFormat(body))
      throw new BadInputError(`${url} is not an image (${describeUnsupported(body)}); expected ${ACCEPTED_LIST}`);
    try {
      // Dimensions from the header, before anything decodes it: a pixel bomb is refused here.
      inspectImage(body, { maxBytes });
    } catch (err) {
      if (isImageError(err)) throw new BadInputError(`${url}: ${err.message}`);
      throw err;
    }
    return body;
  };
}
