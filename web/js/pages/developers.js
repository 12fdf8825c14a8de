// Page: Developers (#/developers). The Test mode switch (test keys and test history, docs/test-mode.md), the API
// keys of the current mode, the request log per key with filters (GET /api/v1/requests), and each generation's
// callback deliveries with their attempts and a Resend button (POST /api/v1/generations/<id>/deliveries).
import { api } from '../api.js';
import { announce, errorBox, field, h, heading, render, when } from '../dom.js';
import { mcpSection } from './developers-mcp.js';
import { isTestMode, modeHeaders, setTestMode } from './test-mode.js';

/**
 * @typedef {{ id: string, name: string, lastFour: string, status: string, mode: 'live' | 'test', createdAt: string }} ApiKey
 * @typedef {{ id: string, status: string, createdAt: string, livemode: boolean, garmentId: string, color: string }} Generation
 * @typedef {{ number: number, statusCode: number | null, durationMs: number, error: string | null, attemptedAt: string }} Attempt
 * @typedef {{ id: string, event: string, url: string, status: string, trigger: string, createdAt: string, attempts: Attempt[] }} Delivery
 * @typedef {{ id: string, createdAt: string, method: string, route: string, status: number, durationMs: number, requestId: string, errorCode: string | null, keyId: string | null }} RequestEntry
 * @typedef {{ isCurrent: () => boolean }} PageContext
 */

const ROUTES = [
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
 * @param {HTMLElement} main
 * @param {PageContext} ctx
 */
export async function developersPage(main, ctx) {
  const keysBox = h('div', { class: 'table-wrap' });
  const historyBox = h('div', { class: 'table-wrap' });
  const logBox = h('div', { class: 'table-wrap' });
  const keySelect = /** @type {HTMLSelectElement} */ (h('select', { name: 'keyId' }));
  const statusSelect = /** @type {HTMLSelectElement} */ (
    h(
      'select',
      { name: 'status' },
      h('option', { value: '' }, 'Any status'),
      ['2xx', '3xx', '4xx', '5xx'].map((s) => h('option', { value: s }, s)),
    )
  );
  const routeSelect = /** @type {HTMLSelectElement} */ (
    h(
      'select',
      { name: 'route' },
      h('option', { value: '' }, 'Any route'),
      ROUTES.map((r) => h('option', { value: r }, r)),
    )
  );
  const toggle = /** @type {HTMLInputElement} */ (
    h('input', { type: 'checkbox', role: 'switch', name: 'testMode', checked: isTestMode() })
  );
  const banner = h('p', { class: 'muted', 'aria-live': 'polite' });
  const keyName = /** @type {HTMLInputElement} */ (h('input', { name: 'name', required: true, maxlength: '100' }));
  const createdBox = h('div', { class: 'created', 'aria-live': 'polite' });

  /** @type {ApiKey[]} */
  let keys = [];

  const modeName = () => (isTestMode() ? 'test' : 'live');

  async function loadKeys() {
    const all = /** @type {{ keys: ApiKey[] }} */ (await api('GET', '/api/v1/keys')).keys;
    if (!ctx.isCurrent()) return;
    keys = all.filter((k) => k.mode === modeName());
    render(
      keysBox,
      keys.length === 0
        ? h('p', { class: 'muted' }, `No ${modeName()} keys yet.`)
        : h(
            'table',
            { 'aria-label': `${modeName()} keys` },
            h(
              'thead',
              {},
              h(
                'tr',
                {},
                ['Name', 'Key', 'Status', 'Created'].map((t) => h('th', { scope: 'col' }, t)),
              ),
            ),
            h(
              'tbody',
              {},
              keys.map((k) =>
                h(
                  'tr',
                  { 'data-key-id': k.id },
                  h('td', {}, k.name),
                  h('td', {}, h('code', {}, `${k.mode === 'test' ? 'test ' : ''}…${k.lastFour}`)),
                  h('td', {}, h('span', { class: `badge ${k.status}` }, k.status)),
                  h('td', {}, when(k.createdAt)),
                ),
              ),
            ),
          ),
    );
    const chosen = keySelect.value;
    render(
      keySelect,
      h('option', { value: '' }, 'All keys'),
      keys.map((k) => h('option', { value: k.id }, `${k.name} (…${k.lastFour})`)),
      h('option', { value: 'session' }, 'Dashboard (session)'),
    );
    if ([...keySelect.options].some((o) => o.value === chosen)) keySelect.value = chosen;
  }

  async function loadHistory() {
    const { generations } = /** @type {{ generations: Generation[] }} */ (
      await api('GET', '/api/v1/generations?limit=20', undefined, { headers: modeHeaders() })
    );
    if (!ctx.isCurrent()) return;
    render(
      historyBox,
      generations.length === 0
        ? h('p', { class: 'muted' }, `No ${modeName()} generations yet.`)
        : h(
            'table',
            { 'aria-label': `${modeName()} generations` },
            h(
              'thead',
              {},
              h(
                'tr',
                {},
                ['Generation', 'Status', 'Created', 'Callbacks'].map((t) => h('th', { scope: 'col' }, t)),
              ),
            ),
            h(
              'tbody',
              {},
              generations.map((g) => {
                const detail = h('div', { class: 'deliveries' });
                return h(
                  'tr',
                  { 'data-generation-id': g.id },
                  h('td', {}, h('code', {}, g.id)),
                  h('td', {}, h('span', { class: `badge ${g.status}` }, g.status)),
                  h('td', {}, when(g.createdAt)),
                  h(
                    'td',
                    {},
                    h(
                      'button',
                      {
                        type: 'button',
                        'aria-label': `Deliveries of ${g.id}`,
                        onclick: () => showDeliveries(g.id, detail),
                      },
                      'Deliveries',
                    ),
                    detail,
                  ),
                );
              }),
            ),
          ),
    );
  }

  /**
   * @param {string} id
   * @param {HTMLElement} box
   */
  async function showDeliveries(id, box) {
    try {
      const { deliveries } = /** @type {{ deliveries: Delivery[] }} */ (
        await api('GET', `/api/v1/generations/${id}/deliveries`, undefined, { headers: modeHeaders() })
      );
      render(
        box,
        deliveries.length === 0
          ? h('p', { class: 'muted' }, 'No callbacks: the generation had no webhookUrl.')
          : h(
              'ul',
              { class: 'delivery-list', 'aria-label': `Deliveries of ${id}` },
              deliveries.map((d) =>
                h(
                  'li',
                  { 'data-delivery-id': d.id },
                  h('span', { class: `badge ${d.status}` }, d.status),
                  ` ${d.trigger === 'resend' ? 'Resend' : 'Callback'} to ${d.url}: `,
                  d.attempts.length === 0
                    ? 'no attempt yet'
                    : d.attempts.map((a) =>
                        h(
                          'span',
                          { class: 'attempt', title: a.error ?? '' },
                          `#${a.number} ${a.statusCode === null ? 'no answer' : `HTTP ${a.statusCode}`} `,
                        ),
                      ),
                ),
              ),
            ),
        deliveries.length === 0
          ? null
          : h(
              'button',
              { type: 'button', 'aria-label': `Resend callback of ${id}`, onclick: () => resend(id, box) },
              'Resend',
            ),
      );
    } catch (err) {
      render(box, errorBox(err));
    }
  }

  /**
   * @param {string} id
   * @param {HTMLElement} box
   */
  async function resend(id, box) {
    try {
      await api('POST', `/api/v1/generations/${id}/deliveries`, {}, { headers: modeHeaders() });
      announce('Callback resent');
      await showDeliveries(id, box);
    } catch (err) {
      announce(/** @type {Error} */ (err).message, 'error');
    }
  }

  async function loadLog() {
    const q = new URLSearchParams({ limit: '50' });
    if (keySelect.value) q.set('keyId', keySelect.value);
    if (statusSelect.value) q.set('status', statusSelect.value);
    if (routeSelect.value) q.set('route', routeSelect.value);
    const { requests } = /** @type {{ requests: RequestEntry[] }} */ (
      await api('GET', `/api/v1/requests?${q}`, undefined, { headers: modeHeaders() })
    );
    if (!ctx.isCurrent()) return;
    const keyLabel = (/** @type {string | null} */ id) =>
      id === null ? 'dashboard' : (keys.find((k) => k.id === id)?.name ?? id);
    render(
      logBox,
      requests.length === 0
        ? h('p', { class: 'muted' }, 'No requests match.')
        : h(
            'table',
            { 'aria-label': 'Request log' },
            h(
              'thead',
              {},
              h(
                'tr',
                {},
                ['Time', 'Key', 'Method', 'Route', 'Status', 'Duration', 'Error', 'Request id'].map((t) =>
                  h('th', { scope: 'col' }, t),
                ),
              ),
            ),
            h(
              'tbody',
              {},
              requests.map((r) =>
                h(
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
                ),
              ),
            ),
          ),
    );
  }

  async function loadAll() {
    banner.textContent = isTestMode()
      ? 'Test mode: test keys spend no tokens, their mockups carry a TEST watermark, and only test data is shown.'
      : 'Live mode: live keys and live data.';
    await loadKeys();
    await Promise.all([loadHistory(), loadLog()]);
  }

  toggle.addEventListener('change', async () => {
    setTestMode(toggle.checked);
    announce(toggle.checked ? 'Test mode on' : 'Test mode off');
    await loadAll().catch((err) => announce(err.message, 'error'));
  });
  for (const s of [keySelect, statusSelect, routeSelect])
    s.addEventListener('change', () => loadLog().catch((err) => announce(err.message, 'error')));

  const createForm = h(
    'form',
    {
      class: 'inline-form',
      onsubmit: async (/** @type {SubmitEvent} */ e) => {
        e.preventDefault();
        try {
          const res = /** @type {{ key: string }} */ (
            await api('POST', '/api/v1/keys', { name: keyName.value, mode: modeName() })
          );
          render(
            createdBox,
            h('p', {}, `Your new ${modeName()} key (shown once): `, h('code', { class: 'new-key' }, res.key)),
          );
          keyName.value = '';
          await loadKeys();
        } catch (err) {
          render(createdBox, errorBox(err));
        }
      },
    },
    field('Key name', keyName),
    h('button', { type: 'submit' }, 'Create key'),
  );

  render(
    main,
    heading('Developers'),
    h('label', { class: 'switch' }, toggle, ' Test mode'),
    banner,
    h(
      'section',
      { 'aria-labelledby': 'dev-keys' },
      h('h2', { id: 'dev-keys' }, 'Keys'),
      createForm,
      createdBox,
      keysBox,
    ),
    h(
      'section',
      { 'aria-labelledby': 'dev-history' },
      h('h2', { id: 'dev-history' }, 'History and callbacks'),
      historyBox,
    ),
    h(
      'section',
      { 'aria-labelledby': 'dev-log' },
      h('h2', { id: 'dev-log' }, 'Request log'),
      h(
        'div',
        { class: 'filters' },
        field('Key', keySelect),
        field('Status', statusSelect),
        field('Route', routeSelect),
        h(
          'button',
          { type: 'button', onclick: () => loadLog().catch((err) => announce(err.message, 'error')) },
          'Refresh',
        ),
      ),
      logBox,
    ),
    mcpSection({ onKeyCreated: loadKeys }),
  );
  await loadAll();
}
