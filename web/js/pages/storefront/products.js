// Storefront: the products published to the connected stores, with their per-unit economics.
import { api } from '../../api.js';
import { h, render, table, usd, when } from '../../dom.js';

/** @typedef {import('../../api.js').Schemas['PublishedProduct']} PublishedProduct */

/** @param {PublishedProduct[]} products */
export function productsTable(products) {
  if (products.length === 0) return h('p', { class: 'muted' }, 'Nothing published yet.');
  return table(
    { caption: 'Published products' },
    ['Title', 'Status', 'From', 'Price', 'Cost', 'Margin', 'Sizes', 'Published'],
    products.map((p) =>
      h(
        'tr',
        {},
        h('td', {}, p.adminUrl ? h('a', { href: p.adminUrl, target: '_blank', rel: 'noopener' }, p.title) : p.title),
        h('td', {}, h('span', { class: `badge ${p.status}` }, p.status), p.error ? ` ${p.error}` : ''),
        h('td', {}, p.source === 'chat' ? `Design chat, mockup ${(p.mockupIndex ?? 0) + 1}` : 'Generation'),
        h('td', {}, usd(p.price)),
        h('td', {}, p.costs ? usd(p.costs.total) : '—'),
        h('td', { class: p.margin < 0 ? 'loss' : undefined }, p.margin !== undefined ? usd(p.margin) : '—'),
        h('td', {}, p.sizes.join(', ')),
        h('td', {}, when(p.publishedAt)),
      ),
    ),
  );
}

/** The products section; `load()` reads them again. */
export function productsSection() {
  const list = h('div', { class: 'table-wrap' });
  return {
    element: h('section', { 'aria-labelledby': 'prod-h' }, h('h2', { id: 'prod-h' }, 'Products'), list),
    load: async () => {
      const { products } = await api('GET', '/api/storefront/products');
      render(list, productsTable(products));
    },
  };
}
