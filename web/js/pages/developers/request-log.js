// Developers › Request log (GET /api/v1/requests, the shared pager): filters Key (each key of the mode, or the
// dashboard's session), Status (2xx…5xx) and Route, side by side on a wide screen.
import { api } from '../../api.js';
import { announce, errorMessage, field, h, pagedTable, render, when } from '../../dom.js';
import { modeHeaders } from '../test-mode.js';

/** @typedef {import('../../api.js').Schemas} Schemas */

export const ROUTES = [
  '/api/v1/upload',
  '/api/v1/analyze',
  '/api/v1/garments',
  '/api/v1/garments/:garmentId',
  '/api/v1/generate',
  '/api/v1/generate/batch',
  '/api/v1/preview',
  '/api/v1/generations',
  '/api/v1/generations/:generationId',
  '/api/v1/generations/:generationId/deliveries',
  '/api/v1/requests',
];

/**
 * One logged request as a table row (pure).
 * @param {Schemas['RequestLogEntry']} r
 * @param {(keyId: string | null) => string} keyLabel
 */
export function requestRow(r, keyLabel) {
  return h(
    'tr',
    { 'data-status': String(r.status) },
    h('td', {}, when(r.createdAt)),
    h('td', {}, keyLabel(r.keyId)),
    h('td', {}, r.method),
    h('td', {}, h('code', {}, r.route)),
    h('td', {}, String(r.status)),
    h('td', {}, `${r.durationMs} ms`),
    h('td', {}, r.errorCode ?? ''),
    h('td', {}, h('code', {}, r.requestId)),
  );
}

/** @param {{ isCurrent: () => boolean }} ctx */
export function requestLogSection(ctx) {
  /** @type {Schemas['ApiKey'][]} */
  let keys = [];
  const keySelect = h('select', { name: 'keyId' });
  const statusSelect = h(
    'select',
    { name: 'status' },
    h('option', { value: '' }, 'Any status'),
    ['2xx', '3xx', '4xx', '5xx'].map((s) => h('option', { value: s }, s)),
  );
  const routeSelect = h(
    'select',
    { name: 'route' },
    h('option', { value: '' }, 'Any route'),
    ROUTES.map((r) => h('option', { value: r }, r)),
  );
  const keyLabel = (/** @type {string | null} */ id) =>
    id === null ? 'dashboard' : (keys.find((k) => k.id === id)?.name ?? id);
  const log = pagedTable({
    label: () => 'Request log',
    columns: ['Time', 'Key', 'Method', 'Route', 'Status', 'Duration', 'Error', 'Request id'],
    empty: () => 'No requests match.',
    isCurrent: ctx.isCurrent,
    row: (r) => requestRow(r, keyLabel),
    fetchPage: async (cursor) => {
      const q = new URLSearchParams({ limit: '50' });
      if (keySelect.value) q.set('keyId', keySelect.value);
      if (statusSelect.value) q.set('status', statusSelect.value);
      if (routeSelect.value) q.set('route', routeSelect.value);
      if (cursor) q.set('cursor', cursor);
      const page = await api('GET', `/api/v1/requests?${q}`, undefined, { headers: modeHeaders() });
      return { items: page.requests, pagination: page.pagination };
    },
  });
  const reload = () => log.reload().catch((err) => announce(errorMessage(err), 'error'));
  for (const s of [keySelect, statusSelect, routeSelect]) s.addEventListener('change', reload);

  const section = h(
    'section',
    { class: 'card', 'aria-labelledby': 'dev-log' },
    h('h2', { id: 'dev-log' }, 'Request log'),
    h(
      'div',
      { class: 'filters' },
      field('Key', keySelect),
      field('Status', statusSelect),
      field('Route', routeSelect),
      h('div', { class: 'field actions-end' }, h('button', { type: 'button', onclick: reload }, 'Refresh')),
    ),
    log.element,
  );
  return {
    section,
    load: () => log.reload(),
    /** The mode's keys changed: the Key filter offers them (keeping the choice when it is still there). */
    /** @param {Schemas['ApiKey'][]} next */
    setKeys(next) {
      keys = next;
      const chosen = keySelect.value;
      render(
        keySelect,
        h('option', { value: '' }, 'All keys'),
        keys.map((k) => h('option', { value: k.id }, `${k.name} (…${k.lastFour})`)),
        h('option', { value: 'session' }, 'Dashboard (session)'),
      );
      if ([...keySelect.options].some((o) => o.value === chosen)) keySelect.value = chosen;
    },
  };
}
