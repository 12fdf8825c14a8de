import { assertValidKey } from './types';

/**
 * The storage key behind a URL of one of our own files (`<PUBLIC_BASE_URL>/files/<key>`), or null for any other
 * URL. Our own files are read from storage directly, never fetched over HTTP (no SSRF exposure, no self-calls).
 */
export function ownFileKey(publicBaseUrl: string, url: string): string | null {
  const prefix = `${publicBaseUrl}/files/`;
  if (!url.startsWith(prefix)) return null;
  const rest = url.slice(prefix.length).split(/[?#]/)[0]!;
  let key: string;
  try {
    key = decodeURIComponent(rest);
    assertValidKey(key);
  } catch {
    return null;
  }
  return key;
}
