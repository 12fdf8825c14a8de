// Developers › Keys: create (name, optional expiry; the key shown once with Copy), the keys of the current mode with
// status, created, last use and expiry, Revoke and Delete (POST/GET /api/v1/keys, DELETE /api/v1/keys/<id>[?permanent=true]).
// The only place keys are managed (issue 39: one place per task; the old #/keys address opens Developers).
import { api } from '../../api.js';
import {
  announce,
  busy,
  copyRow,
  errorMessage,
  field,
  h,
  onSubmit,
  render,
  scrollBox,
  table,
  when,
} from '../../dom.js';
import { modeName } from '../test-mode.js';

/** @typedef {import('../../api.js').Schemas} Schemas */

/**
 * @param {HTMLButtonElement} button
 * @param {Schemas['ApiKey']} key
 * @param {boolean} permanent
 * @param {() => Promise<void>} reload
 */
async function act(button, key, permanent, reload) {
  const what = permanent ? 'Delete' : 'Revoke';
  if (!confirm(`${what} the key "${key.name}" (…${key.lastFour})? Calls with it will fail at once.`)) return;
  await busy(button, null, permanent ? 'Deleting…' : 'Revoking…', async () => {
    try {
      await api('DELETE', `/api/v1/keys/${encodeURIComponent(key.id)}${permanent ? '?permanent=true' : ''}`);
      announce(`Key "${key.name}" ${permanent ? 'deleted' : 'revoked'}`);
      await reload();
    } catch (err) {
      announce(errorMessage(err), 'error');
    }
  });
}

/**
 * The keys table of one mode (pure: data in, element out).
 * @param {Schemas['ApiKey'][]} keys
 * @param {string} mode
 * @param {(button: HTMLButtonElement, key: Schemas['ApiKey'], permanent: boolean) => void} onAction
 */
export function keysTable(keys, mode, onAction) {
  if (keys.length === 0)
    return h('p', { class: 'muted' }, `No ${mode} keys yet. Create one to call the API from your server.`);
  return table(
    { label: `${mode} keys` },
    ['Name', 'Key', 'Status', 'Created', 'Last used', 'Expires', 'Actions'],
    keys.map((k) =>
      h(
        'tr',
        { 'data-key-id': k.id },
        h('td', {}, k.name),
        h('td', {}, h('code', {}, `${k.mode === 'test' ? 'test ' : ''}…${k.lastFour}`)),
        h('td', {}, h('span', { class: `badge ${k.status}` }, k.status)),
        h('td', {}, when(k.createdAt)),
        h('td', {}, k.lastUsedAt ? when(k.lastUsedAt) : 'never'),
        h('td', {}, k.expiresAt ? when(k.expiresAt) : 'never'),
        h(
          'td',
          { class: 'actions' },
          k.status === 'active'
            ? h(
                'button',
                {
                  type: 'button',
                  'aria-label': `Revoke ${k.name}`,
                  onclick: (e) => onAction(e.currentTarget, k, false),
                },
                'Revoke',
              )
            : null,
          h(
            'button',
            {
              type: 'button',
              class: 'danger',
              'aria-label': `Delete ${k.name}`,
              onclick: (e) => onAction(e.currentTarget, k, true),
            },
            'Delete',
          ),
        ),
      ),
    ),
  );
}

/**
 * The Keys section. `onChange(keys)` hears the current mode's keys after every load (the request log's key filter).
 * @param {{ isCurrent: () => boolean, onChange: (keys: Schemas['ApiKey'][]) => void }} opts
 */
export function keysSection(opts) {
  const list = scrollBox('Keys');
  const created = h('div', { class: 'created', 'aria-live': 'polite' });

  async function load() {
    const { keys: all } = await api('GET', '/api/v1/keys');
    if (!opts.isCurrent()) return;
    const keys = all.filter((k) => k.mode === modeName());
    render(
      list,
      keysTable(keys, modeName(), (b, k, permanent) => void act(b, k, permanent, load)),
    );
    opts.onChange(keys);
  }

  const name = h('input', { name: 'name', required: true, maxlength: '100', autocomplete: 'off' });
  const days = h('input', { name: 'expiresInDays', type: 'number', min: '1', max: '365', inputmode: 'numeric' });
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Create key');
  const form = h(
    'form',
    {
      class: 'filters',
      'aria-label': 'Create a key',
      onsubmit: onSubmit(submit, created, 'Creating…', async () => {
        /** @type {Schemas['CreateKeyRequest']} */
        const body = { name: name.value, mode: modeName() };
        if (days.value) body.expiresInDays = Number(days.value);
        const res = await api('POST', '/api/v1/keys', body);
        const row = copyRow(res.key, 'Your new API key', 'new-key');
        render(
          created,
          h(
            'div',
            { class: 'notice', role: 'alert' },
            h('h3', {}, `${modeName() === 'test' ? 'Test key' : 'Key'} "${res.metadata.name}" created`),
            h('p', {}, res.warning),
            row,
          ),
        );
        form.reset();
        await load();
        row.querySelector('input')?.focus();
      }),
    },
    field('Key name', name, 'A label, e.g. the server that uses it'),
    field('Expires after (days)', days, 'Optional, 1 to 365; empty: never'),
    h('div', { class: 'field actions-end' }, submit),
  );

  const section = h(
    'section',
    { class: 'card', 'aria-labelledby': 'dev-keys' },
    h('h2', { id: 'dev-keys' }, 'Keys'),
    h(
      'p',
      { class: 'muted' },
      'Keys authenticate your server to the API (',
      h('code', {}, 'Authorization: Bearer <key>'),
      '). Keep them server-side.',
    ),
    form,
    created,
    list,
  );
  return { section, load, clearCreated: () => render(created) };
}
