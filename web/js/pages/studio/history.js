// The studio's history: generations, newest first, with "Load more" and each one's webhook deliveries on demand.
import { api } from '../../api.js';
import { busy, errorBox, h, pager, render, when } from '../../dom.js';

/** @typedef {import('../../api.js').Schemas} Schemas */

/**
 * A generation's webhook deliveries, each with its attempts.
 * @param {Schemas['Delivery'][]} ds
 */
export function deliveryList(ds) {
  if (ds.length === 0) return h('p', { class: 'muted' }, 'No callback: this generation had no webhookUrl.');
  return ds.map((d) =>
    h(
      'div',
      { class: 'delivery' },
      h('p', {}, h('span', { class: `badge ${d.status}` }, d.status), ` ${d.event} to `, h('code', {}, d.url)),
      h(
        'ol',
        {},
        d.attempts.map((a) =>
          h(
            'li',
            {},
            `${when(a.attemptedAt)}: ${a.statusCode ?? 'no answer'} in ${a.durationMs} ms${a.error ? ` (${a.error})` : ''}`,
          ),
        ),
      ),
    ),
  );
}

/**
 * One generation of the history; `show` is its "Webhook deliveries" button, `deliveries` where they are drawn.
 * @param {Schemas['Generation']} g
 * @param {HTMLButtonElement} show
 * @param {HTMLElement} deliveries
 */
export function historyItem(g, show, deliveries) {
  return h(
    'article',
    { class: 'history-item', 'data-generation-id': g.id },
    g.thumbnailUrl
      ? h(
          'a',
          { href: g.mockupUrl, target: '_blank', rel: 'noopener' },
          h('img', { src: g.thumbnailUrl, alt: `Mockup ${g.id}`, loading: 'lazy' }),
        )
      : h('div', { class: 'thumb-placeholder', 'aria-hidden': 'true' }),
    h(
      'div',
      {},
      h('p', {}, h('span', { class: `badge ${g.status}` }, g.status), ' ', h('code', {}, g.id)),
      h('p', { class: 'muted' }, `${g.garmentId}, ${g.color}, ${g.zone} · ${when(g.createdAt)}`),
      g.error ? h('p', { class: 'error' }, g.error) : null,
      h(
        'p',
        {},
        g.mockupUrl ? h('a', { href: g.mockupUrl, download: `${g.id}.jpg` }, 'Download') : null,
        g.mockupUrl ? ' · ' : null,
        show,
      ),
      deliveries,
    ),
  );
}

/** @param {Schemas['Generation']} g */
function row(g) {
  const deliveries = h('div', { class: 'deliveries' });
  const show = h('button', { type: 'button', class: 'link' }, 'Webhook deliveries');
  show.addEventListener('click', () =>
    busy(show, deliveries, 'Loading…', async () => {
      try {
        const { deliveries: ds } = await api('GET', `/api/v1/generations/${encodeURIComponent(g.id)}/deliveries`);
        render(deliveries, deliveryList(ds));
      } catch (err) {
        render(deliveries, errorBox(err));
      }
    }),
  );
  return historyItem(g, show, deliveries);
}

/**
 * The history section; `reload()` reads it again from the newest (after a generation).
 * @param {import('../../types').PageContext} ctx
 */
export function historySection(ctx) {
  const list = h('div', { class: 'history-list' });
  const { more, reload } = pager({
    isCurrent: ctx.isCurrent,
    fetchPage: async (cursor) => {
      const q = new URLSearchParams({ limit: '10', ...(cursor ? { cursor } : {}) });
      const page = await api('GET', `/api/v1/generations?${q}`);
      return { items: page.generations, pagination: page.pagination };
    },
    show: (generations, reset) => {
      if (reset) render(list);
      if (reset && generations.length === 0) list.append(h('p', { class: 'muted' }, 'No generations yet.'));
      for (const g of generations) list.append(row(g));
    },
  });
  const section = h(
    'section',
    { class: 'history', 'aria-labelledby': 'history-h' },
    h('h2', { id: 'history-h' }, 'History'),
    list,
    more,
  );
  const load = () => reload().catch((err) => render(list, errorBox(err)));
  void load();
  return { section, reload: load };
}
