// One outbound webhook POST, through the same SSRF guard as every user-supplied URL (lib/fetch): http(s) only,
// every resolved address vetted (no private, loopback, link-local or metadata addresses unless ALLOW_PRIVATE_URLS),
// the socket pinned to the vetted addresses, one deadline for the whole exchange. Redirects are not followed for
// POST: a 3xx is just a non-2xx answer, so a redirect can neither lead past the guard nor count as delivered.
import { guardedFetch, isUrlFetchError, type UrlFetchReason } from '../fetch';

export const WEBHOOK_USER_AGENT = 'ApparelMockup-Webhooks/1.0';

/** Not read: the status decides (discardBody), so a slow, huge or endless body changes nothing. */
const MAX_RESPONSE_BYTES = 1024 * 1024;

export type PostOutcome =
  | { kind: 'response'; statusCode: number }
  /** The guard refused the URL: retrying cannot help. */
  | { kind: 'refused'; error: string }
  /** Timeout, DNS or connection failure: worth retrying. */
  | { kind: 'error'; error: string };

export interface PostOptions {
  url: string;
  body: string;
  /** Lower-case names: the guard merges them over its defaults (user-agent) and sets content-length itself. */
  headers: Record<string, string>;
  /** Budget for the whole exchange: DNS, connect, sending, the answer. */
  timeoutMs: number;
  allowPrivateUrls: boolean;
}

/** Refusals of the URL itself: the same URL is refused again on every retry. */
const REFUSED: ReadonlySet<UrlFetchReason> = new Set([
  'invalid_url',
  'unsupported_protocol',
  'credentials_in_url',
  'blocked_address',
]);

export async function postWebhook(opts: PostOptions): Promise<PostOutcome> {
  try {
    const res = await guardedFetch(opts.url, {
      method: 'POST',
      headers: opts.headers,
      body: opts.body,
      timeoutMs: opts.timeoutMs,
      maxBytes: MAX_RESPONSE_BYTES,
      discardBody: true,
      allowPrivate: opts.allowPrivateUrls,
      // Every status is an answer to record; the caller decides what counts as delivered.
      acceptStatus: () => true,
    });
    return { kind: 'response', statusCode: res.status };
  } catch (err) {
    if (!isUrlFetchError(err)) return { kind: 'error', error: err instanceof Error ? err.message : String(err) };
    if (REFUSED.has(err.reason)) return { kind: 'refused', error: `URL refused: ${err.message}` };
    if (err.reason === 'timeout') return { kind: 'error', error: `timed out after ${opts.timeoutMs} ms` };
    return { kind: 'error', error: err.message };
  }
}
