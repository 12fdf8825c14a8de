// The account's designs, from the server's library (GET /api/v1/uploads): the same list in every browser. Nothing
// about designs is kept in this browser.
import { api } from './api.js';

/** @typedef {import('./api.js').Schemas['LibraryUpload']} LibraryUpload */

/** At most this many designs are listed (100 per page). */
const MAX_PAGES = 10;

/**
 * The account's designs, newest first (every page, up to 1000).
 * @param {{ q?: string }} [opts] only names containing q
 * @returns {Promise<LibraryUpload[]>}
 */
export async function listDesigns(opts = {}) {
  /** @type {LibraryUpload[]} */
  const out = [];
  /** @type {string | undefined} */
  let cursor;
  for (let page = 0; page < MAX_PAGES; page++) {
    const q = new URLSearchParams({ limit: '100', ...(opts.q ? { q: opts.q } : {}), ...(cursor ? { cursor } : {}) });
    const data = await api('GET', `/api/v1/uploads?${q}`);
    out.push(...data.uploads);
    if (!data.pagination.hasMore || !data.pagination.nextCursor) break;
    cursor = data.pagination.nextCursor;
  }
  return out;
}

/**
 * @param {string} id
 * @param {string} name
 * @returns {Promise<LibraryUpload>}
 */
export function renameDesign(id, name) {
  return api('PATCH', `/api/v1/uploads/${encodeURIComponent(id)}`, { name });
}

/**
 * Deletes the design: its files are erased at once; mockups made from it stay.
 * @param {string} id
 */
export async function deleteDesign(id) {
  await api('DELETE', `/api/v1/uploads/${encodeURIComponent(id)}`);
}
