// The dashboard's HTTP client. Everything goes to this origin with the session cookie: Part B routes take it, and
// Part A routes accept it instead of an API key (docs/api-choices.md), so no key ever lives in the browser.

/**
 * The API's answers and requests by schema name (`Schemas['Generation']`), from the types generated from its OpenAPI
 * document (clients/typescript/src/schema.gen.ts, `npm run client:generate`; see api-paths.d.ts).
 * @typedef {import('./api-paths').Schemas} Schemas
 */

/** An answer other than 2xx (status 0: the service could not be reached). */
export class ApiError extends Error {
  /**
   * @param {number} status
   * @param {any} body the answer's body as parsed (an error envelope, usually)
   */
  constructor(status, body) {
    // Part A: {error: {code, message, details}}; Part B: {error: string, ...}
    const e = body?.error;
    const message =
      typeof e === 'string' ? e : (e?.message ?? (status ? `Request failed (HTTP ${status})` : 'Network error'));
    super(message);
    this.status = status;
    this.code = typeof e === 'object' ? e?.code : undefined;
    this.details = typeof e === 'object' ? e?.details : body;
    this.body = body;
  }
}

/**
 * @param {Response} res
 * @returns {Promise<any>} JSON, a Blob (images) or text
 */
async function parse(res) {
  const type = res.headers.get('content-type') ?? '';
  if (type.includes('json')) return res.json();
  if (type.startsWith('image/')) return res.blob();
  return res.text();
}

/**
 * A new Idempotency-Key (a UUID v4): one per user action, so that the same action sent twice is done once.
 * crypto.randomUUID needs a secure context; getRandomValues works everywhere.
 */
export function newIdempotencyKey() {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const hex = [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * X-Tokens-Remaining is the balance when the server began an answer, so answers arriving out of order (a slow print
 * check sent before Generate, answered after it) would show an older balance last. Each request is numbered when it
 * is sent, and a balance is shown only if its request was sent after the one whose balance is showing.
 */
let requestsSent = 0;
let balanceFrom = 0;

/**
 * @param {string | null} header the answer's X-Tokens-Remaining
 * @param {number} sentAs the request's number
 */
function reportTokens(header, sentAs) {
  if (header === null || sentAs < balanceFrom) return;
  balanceFrom = sentAs;
  document.dispatchEvent(new CustomEvent('tokens', { detail: Number(header) }));
}

/**
 * @typedef {object} ApiOptions
 * @property {Record<string, string>} [headers]
 * @property {AbortSignal} [signal]
 * @property {boolean} [withResponse] answer `{data, res}` instead of the data
 */

/**
 * fetch + JSON, throwing ApiError for any non-2xx answer. Typed by path and method from the OpenAPI document
 * (api-paths.d.ts): `path` is a concrete path (`/api/v1/generations/${id}`) of one of its routes, `body` that route's
 * request and the answer its 2xx response, so a wrong path, method or field fails `tsc -p web/tsconfig.json`.
 * @template {import('./api-paths').Path} P
 * @template {import('./api-paths').MethodOf<P>} M
 * @template {ApiOptions} [O={}]
 * @param {M} method
 * @param {P} path
 * @param {import('./api-paths').RequestBody<M, P>} [body] JSON
 * @param {O} [opts]
 * @returns {Promise<O extends { withResponse: true }
 *   ? { data: import('./api-paths').Answer<M, P>, res: Response }
 *   : import('./api-paths').Answer<M, P>>}
 */
export async function api(method, path, body, opts = /** @type {O} */ ({})) {
  /** @type {Record<string, string>} */
  const headers = { accept: 'application/json', ...(opts.headers ?? {}) };
  /** @type {BodyInit | undefined} */
  let payload;
  if (body !== undefined) {
    headers['content-type'] = 'application/json';
    payload = JSON.stringify(body);
  }
  let res;
  const sentAs = ++requestsSent;
  try {
    res = await fetch(path, { method, headers, body: payload, credentials: 'same-origin', signal: opts.signal });
  } catch (err) {
    if (err instanceof Error && err.name === 'AbortError') throw err;
    throw new ApiError(0, { error: 'Cannot reach the service: check your connection and try again' });
  }
  const data = res.status === 204 ? null : await parse(res);
  if (!res.ok) throw new ApiError(res.status, data);
  reportTokens(res.headers.get('x-tokens-remaining'), sentAs);
  return /** @type {any} */ (opts.withResponse ? { data, res } : data);
}

/**
 * A file sent as multipart (its `file` field) with progress events (fetch has none for request bodies): a design to
 * POST /api/v1/upload, a template to POST /api/v1/templates. Resolves the answer, typed by the path as api()'s are.
 * @template {'/api/v1/upload' | '/api/v1/templates'} P
 * @param {P} path
 * @param {File} file
 * @param {(fraction: number) => void} onProgress
 * @returns {Promise<import('./api-paths').Answer<'POST', P>>}
 */
export function uploadWithProgress(path, file, onProgress) {
  return new Promise((resolve, reject) => {
    const sentAs = ++requestsSent;
    const xhr = new XMLHttpRequest();
    xhr.open('POST', path);
    xhr.responseType = 'json';
    xhr.setRequestHeader('accept', 'application/json');
    xhr.upload.addEventListener('progress', (e) => {
      if (e.lengthComputable) onProgress(e.loaded / e.total);
    });
    xhr.addEventListener('load', () => {
      if (xhr.status >= 200 && xhr.status < 300) {
        reportTokens(xhr.getResponseHeader('x-tokens-remaining'), sentAs);
        resolve(xhr.response);
      } else reject(new ApiError(xhr.status, xhr.response));
    });
    xhr.addEventListener('error', () => reject(new ApiError(0, { error: 'Upload failed: network error' })));
    const form = new FormData();
    form.append('file', file);
    xhr.send(form);
  });
}

/**
 * Every garment, following the cursor.
 * @returns {Promise<Schemas['Garment'][]>}
 */
export async function allGarments() {
  /** @type {Schemas['Garment'][]} */
  const out = [];
  /** @type {string | undefined} */
  let cursor;
  for (let page = 0; page < 20; page++) {
    const q = new URLSearchParams({ limit: '100', ...(cursor ? { cursor } : {}) });
    const data = await api('GET', `/api/v1/garments?${q}`);
    out.push(...data.garments);
    if (!data.pagination.hasMore || !data.pagination.nextCursor) break;
    cursor = data.pagination.nextCursor;
  }
  return out;
}
