// Page 2: API keys (POST/GET /api/v1/keys, DELETE /api/v1/keys/<id>[?permanent=true]) and the webhook signing
// secret (GET /api/v1/webhooks/secret, POST …/rotate). The full key is shown once, with a copy button.
import { api } from '../api.js';
import { announce, busy, errorBox, errorMessage, field, h, heading, render, when } from '../dom.js';

/** @typedef {import('../api.js').Schemas} Schemas */

/**
 * @param {string} text
 * @param {HTMLButtonElement} button
 */
async function copy(text, button) {
  try {
    await navigator.clipboard.writeText(text);
    announce('Copied to the clipboard');
    button.textContent = 'Copied';
    setTimeout(() => (button.textContent = 'Copy'), 2000);
  } catch {
    // No clipboard permission (an insecure origin, a denied prompt): select the text so Ctrl+C works.
    const target = button.previousElementSibling;
    if (target instanceof HTMLInputElement) {
      target.focus();
      target.select();
    }
    announce('Select the key and copy it with your keyboard', 'error');
  }
}

/** @type {import('../types').Page} */
export async function keysPage(main, ctx) {
  const list = h('div', { class: 'table-wrap' });
  const created = h('div', { class: 'created', 'aria-live': 'polite' });

  async function load() {
    /** @type {Schemas['ApiKeyList']} */
    const { keys } = await api('GET', '/api/v1/keys');
    if (!ctx.isCurrent()) return;
    if (keys.length === 0) {
      render(list, h('p', { class: 'muted' }, 'No keys yet. Create one to call the API from your server.'));
      return;
    }
    render(
      list,
      h(
        'table',
        {},
        h('caption', { class: 'sr-only' }, 'Your API keys'),
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            ['Name', 'Key', 'Status', 'Created', 'Last used', 'Expires', 'Actions'].map((t) =>
              h('th', { scope: 'col' }, t),
            ),
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
              h('td', {}, h('code', {}, `…${k.lastFour}`)),
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
                        onclick: (e) => act(e.currentTarget, k, false),
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
                    onclick: (e) => act(e.currentTarget, k, true),
                  },
                  'Delete',
                ),
              ),
            ),
          ),
        ),
      ),
    );
  }

  /**
   * @param {HTMLButtonElement} button
   * @param {Schemas['ApiKey']} key
   * @param {boolean} permanent
   */
  async function act(button, key, permanent) {
    const what = permanent ? 'Delete' : 'Revoke';
    if (!confirm(`${what} the key "${key.name}" (…${key.lastFour})? Calls with it will fail at once.`)) return;
    await busy(button, null, permanent ? 'Deleting…' : 'Revoking…', async () => {
      try {
        await api('DELETE', `/api/v1/keys/${encodeURIComponent(key.id)}${permanent ? '?permanent=true' : ''}`);
        announce(`Key "${key.name}" ${permanent ? 'deleted' : 'revoked'}`);
        await load();
      } catch (err) {
        announce(errorMessage(err), 'error');
      }
    });
  }

  const name = h('input', { name: 'name', required: true, maxlength: '100', autocomplete: 'off' });
  const days = h('input', { name: 'expiresInDays', type: 'number', min: '1', max: '365', inputmode: 'numeric' });
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Create key');
  const form = h(
    'form',
    {
      class: 'card',
      onsubmit: async (e) => {
        e.preventDefault();
        render(created);
        await busy(submit, created, 'Creating…', async () => {
          try {
            /** @type {Schemas['CreateKeyRequest']} */
            const body = { name: name.value };
            if (days.value) body.expiresInDays = Number(days.value);
            /** @type {Schemas['ApiKeyCreated']} */
            const res = await api('POST', '/api/v1/keys', body);
            const keyBox = h('input', {
              class: 'secret',
              readonly: true,
              value: res.key,
              'aria-label': 'Your new API key',
              onfocus: (ev) => ev.currentTarget.select(),
            });
            const copyButton = h(
              'button',
              { type: 'button', onclick: (ev) => copy(res.key, ev.currentTarget) },
              'Copy',
            );
            render(
              created,
              h(
                'div',
                { class: 'notice', role: 'alert' },
                h('h2', {}, `Key "${res.metadata.name}" created`),
                h('p', {}, res.warning),
                h('div', { class: 'copy-row' }, keyBox, copyButton),
              ),
            );
            form.reset();
            await load();
            keyBox.focus();
          } catch (err) {
            render(created, errorBox(err));
          }
        });
      },
    },
    h('h2', {}, 'Create a key'),
    h(
      'div',
      { class: 'row' },
      field('Name', name, 'A label, e.g. the server that uses it'),
      field('Expires after (days)', days, 'Optional, 1 to 365; empty: never'),
    ),
    submit,
  );

  // The signing secret of generation callbacks: shown on demand, rotatable.
  const secretOut = h('div', { class: 'secret-out' });
  const reveal = h('button', { type: 'button' }, 'Show signing secret');
  const rotate = h('button', { type: 'button' }, 'Rotate');
  /** @param {Schemas['WebhookSecret']} s */
  const showSecret = (s) =>
    render(
      secretOut,
      h(
        'div',
        { class: 'copy-row' },
        h('input', { class: 'secret', readonly: true, value: s.secret, 'aria-label': 'Webhook signing secret' }),
        h('button', { type: 'button', onclick: (ev) => copy(s.secret, ev.currentTarget) }, 'Copy'),
      ),
      s.previousSecretExpiresAt
        ? h('p', { class: 'muted' }, `The previous secret also signs until ${when(s.previousSecretExpiresAt)}.`)
        : null,
    );
  reveal.addEventListener('click', () =>
    busy(reveal, secretOut, 'Loading…', async () => {
      try {
        showSecret(await api('GET', '/api/v1/webhooks/secret'));
      } catch (err) {
        render(secretOut, errorBox(err));
      }
    }),
  );
  rotate.addEventListener('click', () => {
    if (!confirm('Rotate the signing secret? The old one keeps signing for a grace period (24 hours by default).'))
      return;
    return busy(rotate, secretOut, 'Rotating…', async () => {
      try {
        showSecret(await api('POST', '/api/v1/webhooks/secret/rotate'));
        announce('Signing secret rotated');
      } catch (err) {
        render(secretOut, errorBox(err));
      }
    });
  });

  render(
    main,
    heading('API keys'),
    h(
      'p',
      { class: 'lead' },
      'Keys authenticate your server to the API (',
      h('code', {}, 'Authorization: Bearer <key>'),
      '). Keep them server-side. See the ',
      h('a', { href: '/docs' }, 'API reference'),
      '.',
    ),
    form,
    created,
    h('section', { 'aria-labelledby': 'keys-h' }, h('h2', { id: 'keys-h' }, 'Your keys'), list),
    h(
      'section',
      { class: 'card', 'aria-labelledby': 'secret-h' },
      h('h2', { id: 'secret-h' }, 'Webhook signing secret'),
      h(
        'p',
        {},
        'Generation callbacks are signed with it (header X-Mockup-Signature). How to verify: ',
        h('a', { href: '/docs' }, 'API reference'),
        '.',
      ),
      h('div', { class: 'buttons' }, reveal, rotate),
      secretOut,
    ),
  );
  await load();
}
