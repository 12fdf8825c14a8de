// What never goes into a span attribute or a log line (docs/security.md#traces-and-logs): the query string of a
// dashboard path (the account mails' links carry one-time tokens: /reset-password?token=…), and any query parameter
// whose name says token, secret, key, signature, password, code or credential. Pure: used by the tracing SDK's span
// processor (lib/tracing-sdk.ts) and by whatever logs a URL.

/** Query parameters whose value is a credential, whatever the path. */
export const SECRET_PARAM = /token|secret|key|sig|password|passwd|code|credential|auth|session|hmac|state/i;

/** Paths whose query strings are kept (minus secret-like parameters); every other path's query is dropped whole. */
const API_PATH = /^\/(api|files)\//;

export const REDACTED = 'REDACTED';

/**
 * A URL (absolute, or a path with a query) with its secrets replaced: the whole query of a path outside /api/ and
 * /files/ (the dashboard's pages) on this service, and every secret-like parameter elsewhere.
 */
export function redactUrl(value: string, opts: { ownPaths: boolean } = { ownPaths: true }): string {
  const q = value.indexOf('?');
  if (q < 0) return value;
  const hash = value.indexOf('#', q);
  const head = value.slice(0, q);
  const query = value.slice(q + 1, hash < 0 ? undefined : hash);
  if (opts.ownPaths) {
    let path = head;
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(head)) {
      try {
        path = new URL(head).pathname;
      } catch {
        path = '/';
      }
    }
    if (!API_PATH.test(path)) return `${head}?${REDACTED}`;
  }
  return `${head}?${redactQuery(query)}`;
}

/** A raw query string (without `?`) with the value of each secret-like parameter replaced. */
export function redactQuery(query: string): string {
  return query
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = eq < 0 ? pair : pair.slice(0, eq);
      let decoded = name;
      try {
        decoded = decodeURIComponent(name);
      } catch {
        // a malformed name is judged as it is
      }
      return eq >= 0 && SECRET_PARAM.test(decoded) ? `${name}=${REDACTED}` : pair;
    })
    .join('&');
}

/** Span attributes that may hold a URL or a query (old and current HTTP semantic conventions). */
const URL_ATTRIBUTES = new Set(['http.target', 'http.url', 'url.full', 'url.query', 'http.request.header.referer']);

/**
 * The attributes with every URL redacted. Incoming requests (`server`) are this service's paths (dashboard queries
 * dropped whole); outgoing ones keep their query minus secret-like parameters. `url.query` is a bare query string.
 */
export function redactAttributes(
  attributes: Record<string, unknown>,
  kind: 'server' | 'client' | 'other',
): Record<string, unknown> | null {
  let changed: Record<string, unknown> | null = null;
  for (const [k, v] of Object.entries(attributes)) {
    if (!URL_ATTRIBUTES.has(k) || typeof v !== 'string') continue;
    let next: string;
    if (k === 'url.query') {
      const path = typeof attributes['url.path'] === 'string' ? attributes['url.path'] : '/';
      next = kind === 'server' && !API_PATH.test(path) ? REDACTED : redactQuery(v.startsWith('?') ? v.slice(1) : v);
    } else next = redactUrl(v, { ownPaths: kind === 'server' });
    if (next !== v) (changed ??= {})[k] = next;
  }
  return changed;
}

const QUERY_PAIR = /([?&])([^=&\s"\\#?]+)=([^&\s"\\#]*)/g;

/** A log line (JSON text) with the value of every secret-like query parameter in it replaced. */
export function redactLogLine(line: string): string {
  if (!line.includes('?')) return line;
  return line.replace(QUERY_PAIR, (all, sep: string, name: string) =>
    SECRET_PARAM.test(name) ? `${sep}${name}=${REDACTED}` : all,
  );
}
