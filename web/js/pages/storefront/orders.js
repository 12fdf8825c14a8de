// Storefront: the stores' orders with a fulfilment form each (tracking number, carrier, URL), and the production
// queue drawn with them.
import { api } from '../../api.js';
import { announce, field, h, onSubmit, render, usd, when } from '../../dom.js';
import { productionBlock, queueTable } from './production.js';

/** @typedef {import('../../api.js').Schemas} Schemas */
/** @typedef {Schemas['StoreOrder']} StoreOrder */

/**
 * The form that sends an order's tracking to its store.
 * @param {StoreOrder} o
 * @param {() => Promise<void>} sent
 */
function fulfilForm(o, sent) {
  const number = h('input', { name: 'trackingNumber', required: true });
  const company = h('input', { name: 'trackingCompany', required: true, placeholder: 'UPS' });
  const url = h('input', { name: 'trackingUrl', type: 'url' });
  const send = h('button', { type: 'submit' }, 'Send tracking');
  const out = h('div', { 'aria-live': 'polite' });
  return h(
    'form',
    {
      class: 'fulfil',
      'aria-label': `Fulfil ${o.name}`,
      onsubmit: onSubmit(send, out, 'Sending…', async () => {
        /** @type {Schemas['FulfillmentRequest']} */
        const body = { trackingNumber: number.value, trackingCompany: company.value };
        if (url.value) body.trackingUrl = url.value;
        const r = await api('POST', `/api/storefront/orders/${encodeURIComponent(o.id)}/fulfillment`, body);
        announce(r.status === 'fulfilled' ? `${o.name} fulfilled` : `${o.name}: sending tracking`);
        await sent();
      }),
    },
    h('div', { class: 'row' }, field('Tracking number', number), field('Carrier', company), field('Tracking URL', url)),
    send,
    out,
  );
}

/**
 * An order: its items, production and tracking (or, until it is fulfilled, the form `fulfil` makes to send it).
 * @param {StoreOrder} o
 * @param {() => HTMLFormElement} fulfil
 */
export function orderCard(o, fulfil) {
  return h(
    'article',
    { class: 'card order', 'data-order-id': o.id },
    h('h3', {}, `${o.name} · ${o.shopDomain}`),
    h(
      'p',
      {},
      h('span', { class: `badge ${o.status}` }, o.status),
      ` ${usd(o.total, o.currency)} · ${o.customer.name ?? 'customer'} · ${when(o.createdAt)}`,
    ),
    h(
      'ul',
      {},
      o.lineItems.map((li) =>
        h('li', {}, `${li.quantity} × ${li.title}${li.variantTitle ? ` (${li.variantTitle})` : ''}`),
      ),
    ),
    productionBlock(o),
    o.tracking
      ? h('p', {}, `Tracking: ${o.tracking.company} ${o.tracking.number}`)
      : o.status !== 'fulfilled'
        ? fulfil()
        : null,
  );
}

/**
 * The orders and the production queue (paid, unfulfilled orders in production, oldest first). `load(quiet)` reads
 * both again; quiet (the periodic look): only when the orders changed, and not while a tracking form is being filled
 * in, so nothing typed is lost.
 */
export function ordersSections() {
  const orderList = h('div', {});
  const queueList = h('div', { class: 'table-wrap' });
  /** @type {string | null} */
  let ordersSeen = null;

  async function load(quiet = false) {
    const { orders } = await api('GET', '/api/storefront/orders');
    const seen = orders.map((o) => `${o.id}:${o.status}:${o.production?.status ?? ''}`).join(',');
    if (quiet) {
      const typing = [...orderList.querySelectorAll('form.fulfil input')].some(
        (i) => i instanceof HTMLInputElement && i.value,
      );
      if (seen === ordersSeen || typing) return;
    }
    ordersSeen = seen;
    const queue = await api('GET', '/api/storefront/production-queue');
    render(queueList, queueTable(queue.orders));
    render(
      orderList,
      orders.length === 0
        ? h('p', { class: 'muted' }, 'No orders yet.')
        : orders.map((o) => orderCard(o, () => fulfilForm(o, () => load()))),
    );
  }

  return {
    queue: h(
      'section',
      { 'aria-labelledby': 'queue-h' },
      h('h2', { id: 'queue-h' }, 'Production queue'),
      h('p', { class: 'muted' }, 'Paid orders not yet fulfilled, oldest first: what to print next.'),
      queueList,
    ),
    orders: h('section', { 'aria-labelledby': 'ord-h' }, h('h2', { id: 'ord-h' }, 'Orders'), orderList),
    load,
  };
}
