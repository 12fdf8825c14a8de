// Page 7: storefront (issue 14, preview). Connect a Shopify store (OAuth: the shop's authorize page sends the
// browser back to /storefront?connected=<id>, i.e. #/storefront?connected=<id>), the connections with a link to each
// store's admin, publish a generation or a design-chat mockup as a product, the products, and the orders with a
// fulfilment form. Shopify's app URL sends a signed-out merchant here as #/storefront?shop=<shop> (after signing in):
// the shop is filled in. This module puts the sections of ./storefront/ together: connections.js, publish.js,
// products.js, orders.js (with production.js).
import { api } from '../api.js';
import { announce, h, heading, render } from '../dom.js';
import { connectForm, connectionsSection } from './storefront/connections.js';
import { ordersSections } from './storefront/orders.js';
import { productsSection } from './storefront/products.js';
import { publishSection } from './storefront/publish.js';

/** @typedef {import('../api.js').Schemas} Schemas */

/** How often the orders are read again while the page is shown. */
const ORDER_POLL_MS = 3000;

/** @type {import('../types').Page} */
export async function storefrontPage(main, ctx) {
  const connected = ctx.params.get('connected');
  const chatJobId = ctx.params.get('chatJobId');
  const chatIndex = ctx.params.get('mockupIndex');
  const chatPick =
    chatJobId && /^\d{1,2}$/.test(chatIndex ?? '') ? { jobId: chatJobId, index: Number(chatIndex) } : null;

  /** @type {Schemas['Generation'][]} */
  let generations = [];
  const products = productsSection();
  const publish = publishSection({ chatPick, published: products.load });
  const connections = connectionsSection((list) => publish.fill(list, generations));
  const orders = ordersSections();

  render(
    main,
    heading('Storefront'),
    h('p', { class: 'lead' }, 'Sell your mockups in your Shopify store (preview).'),
    connected ? h('p', { class: 'notice', role: 'status' }, 'Store connected.') : null,
    connections.element,
    connectForm(ctx.params.get('shop')),
    publish.note,
    publish.form,
    products.element,
    orders.queue,
    orders.orders,
  );
  const gens = await api('GET', '/api/v1/generations?limit=50');
  generations = gens.generations.filter((g) => g.status === 'completed');
  await Promise.all([connections.load(), products.load(), orders.load()]);
  if (connected) announce('Store connected');
  // Orders arrive by webhook at any time (a test order placed in the store's own tab, say): look again every few
  // seconds while this page is shown. Without this the page showed only the orders present when it was drawn; the
  // old browser test's "reload" (a goto to the URL the page was already on) did not redraw it, which is why it saw no
  // order for 90 s in two of four CI runs although the order was stored (docs/storefront.md).
  const poll = setInterval(() => {
    if (!ctx.isCurrent() || !main.isConnected) return clearInterval(poll);
    if (document.hidden) return;
    orders.load(true).catch(() => {});
  }, ORDER_POLL_MS);
}
