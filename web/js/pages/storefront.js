// Page 7: storefront (issue 14, preview). Connect a Shopify store (OAuth: the shop's authorize page sends the
// browser back to /storefront?connected=<id>, i.e. #/storefront?connected=<id>), the connections with a link to each
// store's admin, publish a generation or a design-chat mockup as a product, the products, and the orders with a
// fulfilment form. Shopify's app URL sends a signed-out merchant here as #/storefront?shop=<shop> (after signing in):
// the shop is filled in.
import { api } from '../api.js';
import { announce, busy, errorBox, errorMessage, field, h, heading, render, usd, when } from '../dom.js';
import { productionBlock, queueTable } from './storefront-production.js';

/** @typedef {import('../api.js').Schemas} Schemas */

/** @type {import('../types').Page} */
export async function storefrontPage(main, ctx) {
  const connected = ctx.params.get('connected');
  const fromShopify = ctx.params.get('shop');
  const connList = h('div', {});
  const productList = h('div', { class: 'table-wrap' });
  const orderList = h('div', {});
  const queueList = h('div', { class: 'table-wrap' });
  const publishOut = h('div', { 'aria-live': 'polite' });
  const connectOut = h('div', { 'aria-live': 'polite' });
  /** @type {Schemas['StoreConnection'][]} */
  let connections = [];

  // ---------------------------------------------------------------- connect
  const shop = h('input', {
    name: 'shop',
    required: true,
    placeholder: 'your-store.myshopify.com',
    pattern: '[a-z0-9][a-z0-9\\-]*\\.myshopify\\.com',
    autocomplete: 'off',
    value: fromShopify ?? '',
  });
  const connect = h('button', { type: 'submit', class: 'primary' }, 'Connect');
  const connectForm = h(
    'form',
    {
      class: 'card',
      onsubmit: (e) => {
        e.preventDefault();
        return busy(connect, connectOut, 'Starting…', async () => {
          try {
            const { url } = await api('POST', '/api/storefront/connect/install', {
              shop: shop.value.trim().toLowerCase(),
            });
            render(
              connectOut,
              h(
                'p',
                { class: 'notice' },
                'Approve the app in your store: ',
                h('a', { href: url, class: 'button primary', id: 'authorize-link' }, `Open ${shop.value.trim()}`),
                h('small', { class: 'muted' }, ' You come back here when it is done.'),
              ),
            );
          } catch (err) {
            render(connectOut, errorBox(err));
          }
        });
      },
    },
    h('h2', {}, 'Connect a Shopify store'),
    fromShopify
      ? h('p', { class: 'notice', role: 'status' }, `Shopify sent you here to connect ${fromShopify}: press Connect.`)
      : null,
    field('Shop domain', shop, 'The store’s myshopify.com address.'),
    connect,
    connectOut,
  );

  async function loadConnections() {
    connections = (await api('GET', '/api/storefront/connect')).connections;
    render(
      connList,
      connections.length === 0
        ? h('p', { class: 'muted' }, 'No store connected.')
        : h(
            'ul',
            { class: 'plain' },
            connections.map((c) =>
              h(
                'li',
                { class: 'connection' },
                h('strong', {}, c.shopName ?? c.shopDomain),
                ` ${c.shopDomain} `,
                h('span', { class: `badge ${c.status}` }, c.status),
                c.installedAt ? h('small', { class: 'muted' }, ` since ${when(c.installedAt)}`) : null,
                c.status === 'active' && c.adminUrl
                  ? h(
                      'a',
                      { href: c.adminUrl, target: '_blank', rel: 'noopener', class: 'button' },
                      `Open store ${c.shopDomain}`,
                    )
                  : null,
                c.status === 'active'
                  ? h(
                      'button',
                      {
                        type: 'button',
                        class: 'link',
                        'aria-label': `Disconnect ${c.shopDomain}`,
                        onclick: (e) => {
                          if (!confirm(`Disconnect ${c.shopDomain}? Publishing to it stops until you connect again.`))
                            return;
                          return busy(e.currentTarget, null, 'Disconnecting…', async () => {
                            try {
                              const out = await api('DELETE', `/api/storefront/connect/${encodeURIComponent(c.id)}`);
                              // the shop could not be asked to remove our webhooks: say so (they go at the next disconnect)
                              const left = out?.webhooks?.notRemoved?.length ?? 0;
                              announce(
                                left
                                  ? `${c.shopDomain} disconnected. The shop could not be reached to remove its order notifications; they are removed the next time you disconnect it (or uninstall the app in Shopify).`
                                  : `${c.shopDomain} disconnected`,
                              );
                              await loadConnections();
                            } catch (err) {
                              announce(errorMessage(err), 'error');
                            }
                          });
                        },
                      },
                      'Disconnect',
                    )
                  : null,
              ),
            ),
          ),
    );
    fillPublishForm();
  }

  // ---------------------------------------------------------------- publish
  // The mockup comes from a generation (option value = its id) or a design-chat job (value chat:<jobId>:<index>;
  // the chat page's "Publish to store" opens #/storefront?chatJobId=…&mockupIndex=… with it chosen). Choosing one
  // asks GET /api/storefront/costs for its unit costs; the margin follows the price as it is typed.
  const chatJobId = ctx.params.get('chatJobId');
  const chatIndex = ctx.params.get('mockupIndex');
  const chatPick =
    chatJobId && /^\d{1,2}$/.test(chatIndex ?? '') ? { jobId: chatJobId, index: Number(chatIndex) } : null;
  const genSelect = h('select', { name: 'generationId', required: true, onchange: () => loadEstimate() });
  const connSelect = h('select', { name: 'connectionId', required: true });
  const title = h('input', { name: 'title', required: true, maxlength: '255' });
  const price = h('input', {
    name: 'price',
    type: 'number',
    min: '0.01',
    step: '0.01',
    value: '59.99',
    oninput: () => showEconomics(),
  });
  const sizes = h('input', { name: 'sizes', placeholder: 'S, M, L, XL' });
  const sizesHint = h('small', { class: 'hint' }, 'Optional: the garment’s sizes by default.');
  const publish = h('button', { type: 'submit', class: 'primary' }, 'Publish');
  const preview = h('div', { class: 'publish-preview' });
  const unitCost = h('dd', { id: 'unit-cost' }, '—');
  const unitPrice = h('dd', { id: 'unit-price' }, '—');
  const unitMargin = h('dd', { id: 'unit-margin' }, '—');
  const costParts = h('small', { class: 'muted', id: 'unit-cost-parts' });
  const economics = h(
    'div',
    { role: 'group', 'aria-labelledby': 'econ-h', class: 'economics' },
    h('h3', { id: 'econ-h' }, 'Per unit (estimate)'),
    h(
      'dl',
      {},
      h('div', {}, h('dt', {}, 'Estimated cost'), unitCost),
      h('div', {}, h('dt', {}, 'Price'), unitPrice),
      h('div', {}, h('dt', {}, 'Margin'), unitMargin),
    ),
    costParts,
  );
  /** @type {Schemas['StorefrontCostEstimate'] | null} */
  let estimate = null;

  /**
   * The chosen source as request fields.
   * @returns {{ chatJobId: string, mockupIndex: number } | { generationId: string } | null}
   */
  function chosenSource() {
    const v = genSelect.value;
    if (v.startsWith('chat:')) {
      const i = v.lastIndexOf(':');
      return { chatJobId: v.slice(5, i), mockupIndex: Number(v.slice(i + 1)) };
    }
    return v ? { generationId: v } : null;
  }

  /** @param {number | string} n */
  const cents = (n) => Math.round(Number(n) * 100);
  /** Cost and price as the server counts them (whole cents), the margin = price − cost as the price is typed. */
  function showEconomics() {
    const p = Number(price.value);
    const priceOk = price.value !== '' && Number.isFinite(p) && p > 0;
    render(unitPrice, priceOk ? usd(cents(p) / 100) : '—');
    if (!estimate) {
      render(unitCost, '—');
      render(unitMargin, '—');
      render(costParts);
      return;
    }
    const c = estimate.costs;
    render(unitCost, usd(c.total));
    render(
      costParts,
      `Print ${usd(c.print)} + blank ${usd(c.blank)}${estimate.garmentName ? ` (${estimate.garmentName})` : ''} + fulfilment ${usd(c.fulfillment)}.`,
    );
    if (!priceOk) {
      render(unitMargin, '—');
      return;
    }
    const m = (cents(p) - cents(c.total)) / 100;
    unitMargin.className = m < 0 ? 'loss' : '';
    render(unitMargin, usd(m));
  }

  let estimateSeq = 0;
  async function loadEstimate() {
    const src = chosenSource();
    const seq = ++estimateSeq;
    estimate = null;
    render(preview);
    showEconomics();
    if (!src) return;
    try {
      const query = new URLSearchParams(
        'generationId' in src
          ? { generationId: src.generationId }
          : { chatJobId: src.chatJobId, mockupIndex: String(src.mockupIndex) },
      );
      /** @type {Schemas['StorefrontCostEstimate']} */
      const e = await api('GET', `/api/storefront/costs?${query}`);
      if (seq !== estimateSeq) return;
      estimate = e;
      render(preview, h('img', { src: e.imageUrl, alt: 'The mockup to publish', width: '160' }));
      sizes.placeholder = e.sizes.length ? e.sizes.join(', ') : 'S, M, L, XL';
      sizes.required = e.sizes.length === 0;
      render(
        sizesHint,
        e.sizes.length
          ? `Optional: the garment’s sizes (${e.sizes.join(', ')}) by default.`
          : 'Required: this mockup’s blank is not a catalogue garment.',
      );
    } catch (err) {
      if (seq !== estimateSeq) return;
      render(preview, errorBox(err));
    }
    showEconomics();
  }

  const sizesField = field('Sizes', sizes);
  sizesField.append(sizesHint);
  sizesHint.id = `${sizes.id}-hint`;
  sizes.setAttribute('aria-describedby', sizesHint.id);
  const publishNote = h('p', { class: 'notice', role: 'status' });
  publishNote.hidden = true;
  const publishForm = h(
    'form',
    {
      class: 'card',
      onsubmit: (e) => {
        e.preventDefault();
        return busy(publish, publishOut, 'Publishing…', async () => {
          try {
            /** @type {Schemas['PublishRequest']} */
            const body = {
              ...chosenSource(),
              connectionId: connSelect.value,
              title: title.value,
              price: Number(price.value),
            };
            const list = sizes.value
              .split(',')
              .map((s) => s.trim())
              .filter(Boolean);
            if (list.length) body.sizes = list;
            /** @type {Schemas['PublishResult']} */
            const r = await api('POST', '/api/storefront/publish', body);
            render(
              publishOut,
              h(
                'p',
                { class: 'notice' },
                r.status === 'published' ? 'Published. ' : 'Publishing: it appears below when the store has it. ',
                `Per unit: cost ${usd(r.costs.total)}, price ${usd(r.price)}, margin ${usd(r.margin)}. `,
                r.status === 'published' && r.adminUrl
                  ? h('a', { href: r.adminUrl, target: '_blank', rel: 'noopener' }, 'Open in Shopify admin')
                  : null,
              ),
            );
            announce(r.status === 'published' ? 'Product published' : 'Publishing');
            await loadProducts();
          } catch (err) {
            render(publishOut, errorBox(err));
          }
        });
      },
    },
    h('h2', {}, 'Publish a mockup'),
    field('Mockup', genSelect),
    preview,
    field('Store', connSelect),
    field('Product title', title),
    h('div', { class: 'row' }, field('Price (USD)', price), sizesField),
    economics,
    publish,
    publishOut,
  );
  /** @type {Schemas['Generation'][]} */
  let generations = [];
  function fillPublishForm() {
    const active = connections.filter((c) => c.status === 'active');
    const before = genSelect.value;
    render(
      connSelect,
      active.map((c) => h('option', { value: c.id }, c.shopName ?? c.shopDomain)),
    );
    render(
      genSelect,
      chatPick
        ? h(
            'option',
            { value: `chat:${chatPick.jobId}:${chatPick.index}` },
            `Design chat mockup ${chatPick.index + 1} (${chatPick.jobId})`,
          )
        : null,
      generations.map((g) =>
        h('option', { value: g.id }, `${g.garmentId}, ${g.color}, ${g.zone} (${when(g.createdAt)})`),
      ),
    );
    if (before && [...genSelect.options].some((o) => o.value === before)) genSelect.value = before;
    const hasMockup = genSelect.options.length > 0;
    publishForm.hidden = active.length === 0 || !hasMockup;
    publishNote.hidden = !(chatPick && active.length === 0);
    render(publishNote, 'No store is connected: connect one above to publish the design-chat mockup.');
    if (!publishForm.hidden && genSelect.value !== before) void loadEstimate(); // it shows its own errors
  }

  async function loadProducts() {
    /** @type {Schemas['PublishedProducts']} */
    const { products } = await api('GET', '/api/storefront/products');
    render(
      productList,
      products.length === 0
        ? h('p', { class: 'muted' }, 'Nothing published yet.')
        : h(
            'table',
            {},
            h('caption', { class: 'sr-only' }, 'Published products'),
            h(
              'thead',
              {},
              h(
                'tr',
                {},
                ['Title', 'Status', 'From', 'Price', 'Cost', 'Margin', 'Sizes', 'Published'].map((t) =>
                  h('th', { scope: 'col' }, t),
                ),
              ),
            ),
            h(
              'tbody',
              {},
              products.map((p) =>
                h(
                  'tr',
                  {},
                  h(
                    'td',
                    {},
                    p.adminUrl ? h('a', { href: p.adminUrl, target: '_blank', rel: 'noopener' }, p.title) : p.title,
                  ),
                  h('td', {}, h('span', { class: `badge ${p.status}` }, p.status), p.error ? ` ${p.error}` : ''),
                  h('td', {}, p.source === 'chat' ? `Design chat, mockup ${(p.mockupIndex ?? 0) + 1}` : 'Generation'),
                  h('td', {}, usd(p.price)),
                  h('td', {}, p.costs ? usd(p.costs.total) : '—'),
                  h('td', { class: p.margin < 0 ? 'loss' : undefined }, p.margin !== undefined ? usd(p.margin) : '—'),
                  h('td', {}, p.sizes.join(', ')),
                  h('td', {}, when(p.publishedAt)),
                ),
              ),
            ),
          ),
    );
  }

  // ---------------------------------------------------------------- orders and fulfilment
  /** @type {string | null} */
  let ordersSeen = null;
  /**
   * Reads the orders and draws them. `quiet` (the periodic look): only when they changed, and not while a tracking
   * form is being filled in, so nothing typed is lost.
   */
  async function loadOrders(quiet = false) {
    /** @type {Schemas['StoreOrders']} */
    const { orders } = await api('GET', '/api/storefront/orders');
    const seen = orders.map((o) => `${o.id}:${o.status}:${o.production?.status ?? ''}`).join(',');
    if (quiet) {
      const typing = [...orderList.querySelectorAll('form.fulfil input')].some(
        (i) => i instanceof HTMLInputElement && i.value,
      );
      if (seen === ordersSeen || typing) return;
    }
    ordersSeen = seen;
    await loadQueue();
    render(
      orderList,
      orders.length === 0
        ? h('p', { class: 'muted' }, 'No orders yet.')
        : orders.map((o) => {
            const number = h('input', { name: 'trackingNumber', required: true });
            const company = h('input', { name: 'trackingCompany', required: true, placeholder: 'UPS' });
            const url = h('input', { name: 'trackingUrl', type: 'url' });
            const send = h('button', { type: 'submit' }, 'Send tracking');
            const out = h('div', { 'aria-live': 'polite' });
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
                  ? h(
                      'form',
                      {
                        class: 'fulfil',
                        'aria-label': `Fulfil ${o.name}`,
                        onsubmit: (e) => {
                          e.preventDefault();
                          return busy(send, out, 'Sending…', async () => {
                            try {
                              /** @type {Schemas['FulfillmentRequest']} */
                              const body = { trackingNumber: number.value, trackingCompany: company.value };
                              if (url.value) body.trackingUrl = url.value;
                              const r = await api(
                                'POST',
                                `/api/storefront/orders/${encodeURIComponent(o.id)}/fulfillment`,
                                body,
                              );
                              announce(
                                r.status === 'fulfilled' ? `${o.name} fulfilled` : `${o.name}: sending tracking`,
                              );
                              await loadOrders();
                            } catch (err) {
                              render(out, errorBox(err));
                            }
                          });
                        },
                      },
                      h(
                        'div',
                        { class: 'row' },
                        field('Tracking number', number),
                        field('Carrier', company),
                        field('Tracking URL', url),
                      ),
                      send,
                      out,
                    )
                  : null,
            );
          }),
    );
  }

  /** The production queue: paid, unfulfilled orders in production, oldest first (redrawn with the orders). */
  async function loadQueue() {
    /** @type {Schemas['StoreOrders']} */
    const { orders } = await api('GET', '/api/storefront/production-queue');
    render(queueList, queueTable(orders));
  }

  render(
    main,
    heading('Storefront'),
    h('p', { class: 'lead' }, 'Sell your mockups in your Shopify store (preview).'),
    connected ? h('p', { class: 'notice', role: 'status' }, 'Store connected.') : null,
    h('section', { 'aria-labelledby': 'conn-h' }, h('h2', { id: 'conn-h' }, 'Connected stores'), connList),
    connectForm,
    publishNote,
    publishForm,
    h('section', { 'aria-labelledby': 'prod-h' }, h('h2', { id: 'prod-h' }, 'Products'), productList),
    h(
      'section',
      { 'aria-labelledby': 'queue-h' },
      h('h2', { id: 'queue-h' }, 'Production queue'),
      h('p', { class: 'muted' }, 'Paid orders not yet fulfilled, oldest first: what to print next.'),
      queueList,
    ),
    h('section', { 'aria-labelledby': 'ord-h' }, h('h2', { id: 'ord-h' }, 'Orders'), orderList),
  );
  /** @type {Schemas['GenerationPage']} */
  const gens = await api('GET', '/api/v1/generations?limit=50');
  generations = gens.generations.filter((g) => g.status === 'completed');
  await Promise.all([loadConnections(), loadProducts(), loadOrders()]);
  if (connected) announce('Store connected');
  // Orders arrive by webhook at any time (a test order placed in the store's own tab, say): look again every few
  // seconds while this page is shown. Without this the page showed only the orders present when it was drawn; the
  // old browser test's "reload" (a goto to the URL the page was already on) did not redraw it, which is why it saw no
  // order for 90 s in two of four CI runs although the order was stored (docs/storefront.md).
  const poll = setInterval(() => {
    if (!ctx.isCurrent() || !main.isConnected) return clearInterval(poll);
    if (document.hidden) return;
    loadOrders(true).catch(() => {});
  }, ORDER_POLL_MS);
}

const ORDER_POLL_MS = 3000;
