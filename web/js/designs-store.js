// The designs this browser uploaded, per account (the API has no "list my uploads" route: an upload is a URL).
// Kept in localStorage so the studio can offer them; the newest first, at most 50.
import { session } from './state.js';

/**
 * A design remembered by this browser.
 * @typedef {object} StoredDesign
 * @property {string} id
 * @property {string} url
 * @property {string} thumbnailUrl
 * @property {{ width: number, height: number }} dimensions
 * @property {string} name
 * @property {import('./api.js').Schemas['Analysis'] | null} analysis
 * @property {string} createdAt ISO 8601
 */

const key = () => `designs:${session.user?.id ?? 'anonymous'}`;

/** @returns {StoredDesign[]} */
export function listDesigns() {
  try {
    const list = JSON.parse(localStorage.getItem(key()) ?? '[]');
    return Array.isArray(list) ? list : [];
  } catch {
    return [];
  }
}

/**
 * @param {import('./api.js').Schemas['Upload']} upload
 * @param {string} name
 * @param {import('./api.js').Schemas['Analysis'] | null} [analysis]
 */
export function saveDesign(upload, name, analysis) {
  const list = listDesigns().filter((d) => d.id !== upload.id);
  list.unshift({
    id: upload.id,
    url: upload.url,
    thumbnailUrl: upload.thumbnailUrl,
    dimensions: upload.dimensions,
    name,
    analysis: analysis ?? null,
    createdAt: new Date().toISOString(),
  });
  localStorage.setItem(key(), JSON.stringify(list.slice(0, 50)));
}

/**
 * @param {string} id
 * @param {import('./api.js').Schemas['Analysis']} analysis
 */
export function updateAnalysis(id, analysis) {
  const list = listDesigns().map((d) => (d.id === id ? { ...d, analysis } : d));
  localStorage.setItem(key(), JSON.stringify(list));
}

/** @param {string} id */
export function forgetDesign(id) {
  localStorage.setItem(key(), JSON.stringify(listDesigns().filter((d) => d.id !== id)));
}
