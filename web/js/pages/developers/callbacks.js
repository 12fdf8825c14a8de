// Developers › Callbacks: the webhook signing secret (show, copy, rotate: GET /api/v1/webhooks/secret, POST …/rotate)
// and the current mode's generations (GET /api/v1/generations, the shared pager), each with its callback deliveries
// and their attempts (GET …/deliveries) and Resend (POST …/deliveries).
import { api } from '../../api.js';
import { announce, busy, copyRow, errorBox, errorMessage, h, pagedTable, render, when } from '../../dom.js';
import { modeHeaders, modeName } from '../test-mode.js';

/** @typedef {import('../../api.js').Schemas} Schemas */

/**
 * One generation's deliveries (pure).
 * @param {string} id
 * @param {Schemas['Delivery'][]} deliveries
 * @param {() => void} onResend
 */
export function deliveriesView(id, deliveries, onResend) {
  if (deliveries.length === 0) return h('p', { class: 'muted' }, 'No callbacks: the generation had no webhookUrl.');
  return [
    h(
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
    h('button', { type: 'button', 'aria-label': `Resend callback of ${id}`, onclick: onResend }, 'Resend'),
  ];
}

/**
 * @param {string} id
 * @param {HTMLElement} box
 */
async function showDeliveries(id, box) {
  try {
    const { deliveries } = await api('GET', `/api/v1/generations/${id}/deliveries`, undefined, {
      headers: modeHeaders(),
    });
    render(
      box,
      deliveriesView(id, deliveries, async () => {
        try {
          await api('POST', `/api/v1/generations/${id}/deliveries`, {}, { headers: modeHeaders() });
          announce('Callback resent');
          await showDeliveries(id, box);
        } catch (err) {
          announce(errorMessage(err), 'error');
        }
      }),
    );
  } catch (err) {
    render(box, errorBox(err));
  }
}

/** @param {Schemas['Generation']} g */
function generationRow(g) {
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
        { type: 'button', 'aria-label': `Deliveries of ${g.id}`, onclick: () => showDeliveries(g.id, detail) },
        'Deliveries',
      ),
      detail,
    ),
  );
}

/** The signing secret card. */
function signingSecret() {
  const out = h('div', { class: 'secret-out' });
  const reveal = h('button', { type: 'button' }, 'Show signing secret');
  const rotate = h('button', { type: 'button' }, 'Rotate');
  /** @param {Schemas['WebhookSecret']} s */
  const show = (s) =>
    render(
      out,
      copyRow(s.secret, 'Webhook signing secret'),
      s.previousSecretExpiresAt
        ? h('p', { class: 'muted' }, `The previous secret also signs until ${when(s.previousSecretExpiresAt)}.`)
        : null,
    );
  reveal.addEventListener('click', () =>
    busy(reveal, out, 'Loading…', async () => {
      try {
        show(await api('GET', '/api/v1/webhooks/secret'));
      } catch (err) {
        render(out, errorBox(err));
      }
    }),
  );
  rotate.addEventListener('click', () => {
    if (!confirm('Rotate the signing secret? The old one keeps signing for a grace period (24 hours by default).'))
      return;
    return busy(rotate, out, 'Rotating…', async () => {
      try {
        show(await api('POST', '/api/v1/webhooks/secret/rotate'));
        announce('Signing secret rotated');
      } catch (err) {
        render(out, errorBox(err));
      }
    });
  });
  return h(
    'div',
    { class: 'stack' },
    h(
      'p',
      {},
      'Generation callbacks are signed with this secret (header ',
      h('code', {}, 'X-Mockup-Signature'),
      '); how to verify: ',
      h('a', { href: '/docs' }, 'API reference'),
      '.',
    ),
    h('div', { class: 'buttons' }, reveal, rotate),
    out,
  );
}

/** @param {{ isCurrent: () => boolean }} ctx */
export function callbacksSection(ctx) {
  const label = h('span');
  const history = pagedTable({
    label: () => `${modeName()} generations`,
    columns: ['Generation', 'Status', 'Created', 'Callbacks'],
    empty: () => `No ${modeName()} generations yet.`,
    isCurrent: ctx.isCurrent,
    row: generationRow,
    fetchPage: async (cursor) => {
      const q = new URLSearchParams({ limit: '20', ...(cursor ? { cursor } : {}) });
      const page = await api('GET', `/api/v1/generations?${q}`, undefined, { headers: modeHeaders() });
      return { items: page.generations, pagination: page.pagination };
    },
  });
  const section = h(
    'section',
    { class: 'card', 'aria-labelledby': 'dev-history' },
    h('h2', { id: 'dev-history' }, 'Callbacks and history'),
    signingSecret(),
    h('h3', {}, label),
    history.element,
  );
  return {
    section,
    load: () => {
      label.textContent = `Your ${modeName()} generations`;
      return history.reload();
    },
  };
}
