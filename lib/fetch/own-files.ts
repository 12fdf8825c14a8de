// URLs of the service's own files (`${PUBLIC_BASE_URL}/files/<key>`, e.g. an upload's `url`) are read straight from
// storage: no network round trip to ourselves, and no need to allow our own (often private) address.
import { assertValidKey, type Storage } from '../storage/types';
import { UrlFetchError } from './errors';
import { guardedFetch, type GuardedFetchOptions } from './guarded-fetch';

/**
 * The storage key when `url` points at one of our files, else null. Matching is on the parsed URL (origin and
 * path prefix), so `https://evil.example/?u=<our url>` or a look-alike host never matches. Query and fragment are
 * ignored, as the /files route ignores them. A URL under /files/ whose key is not a valid storage key gives '' (ours,
 * but it cannot exist).
 */
export function ownFileKey(publicBaseUrl: string, url: string): string | null {
  let u: URL;
  let base: URL;
  try {
    u = new URL(url);
    base = new URL(`${publicBaseUrl.replace(/\/+$/, '')}/files/`);
  } catch {
    return null;
  }
  if (u.origin !== base.origin || !u.pathname.startsWith(base.pathname) || u.username || u.password) return null;
  let key: string;
  try {
    key = decodeURIComponent(u.pathname.slice(base.pathname.length));
    assertValidKey(key);
  } catch {
    return '';
  }
  return key;
}

export interface UserUrlDeps {
  config: { publicBaseUrl: string; allowPrivateUrls: boolean };
  storage: Storage;
}

export interface UserUrlContent {
  body: Buffer;
  /** 'storage' for our own files, 'network' for everything fetched. */
  source: 'storage' | 'network';
  contentType?: string;
}

/**
 * Reads a user-supplied URL: our own files from storage, anything else through guardedFetch with the address
 * policy of the configuration. Throws UrlFetchError (reason 'not_found' for an own-file URL with no file).
 */
export async function readUserUrl(
  deps: UserUrlDeps,
  url: string,
  opts: Omit<GuardedFetchOptions, 'allowPrivate'>,
): Promise<UserUrlContent> {
  const key = ownFileKey(deps.config.publicBaseUrl, url);
  if (key !== null) {
    const obj = key ? await deps.storage.get(key) : null;
    if (!obj) throw new UrlFetchError('not_found', 'There is no file at this URL of the service', { key });
    if (obj.body.length > opts.maxBytes) {
      throw new UrlFetchError(
        'too_large',
        `The file is larger than the ${Math.round((opts.maxBytes / (1024 * 1024)) * 10) / 10} MB limit`,
        { maxBytes: opts.maxBytes },
      );
    }
    return { body: obj.body, source: 'storage', contentType: obj.contentType };
  }
  const res = await guardedFetch(url, { ...opts, allowPrivate: deps.config.allowPrivateUrls });
  const ct = res.headers['content-type'];
  return { body: res.body, source: 'network', contentType: typeof ct === 'string' ? ct : undefined };
}
