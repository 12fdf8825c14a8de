// Storefront: publish a mockup as a product. The mockup comes from a generation (option value = its id) or a
// design-chat job (value chat:<jobId>:<index>; the chat page's "Publish to store" opens
// #/storefront?chatJobId=…&mockupIndex=… with it chosen). Choosing one asks GET /api/storefront/costs for its unit
// costs; the margin follows the price as it is typed.
import { api } from '../../api.js';
import { announce, errorBox, field, h, onSubmit, render, usd, when } from '../../dom.js';

/** @typedef {import('../../api.js').Schemas} Schemas */
/** @typedef {{ jobId: string, index: number }} ChatPick */

/** @param {number | string} n */
const cents = (n) => Math.round(Number(n) * 100);

/**
 * The per-unit figures as the server counts them (whole cents): cost, the price as typed, and the margin = price −
 * cost (— where one is missing; `loss` is null then).
 * @param {Schemas['StorefrontCostEstimate'] | null} estimate
 * @param {string} priceText
 */
export function unitEconomics(estimate, priceText) {
  const p = Number(priceText);
  const priceOk = priceText !== '' && Number.isFinite(p) && p > 0;
  const price = priceOk ? usd(cents(p) / 100) : '—';
  if (!estimate) return { cost: '—', price, margin: '—', loss: null, parts: '' };
  const c = estimate.costs;
  const parts = `Print ${usd(c.print)} + blank ${usd(c.blank)}${estimate.garmentName ? ` (${estimate.garmentName})` : ''} + fulfilment ${usd(c.fulfillment)}.`;
  if (!priceOk) return { cost: usd(c.total), price, margin: '—', loss: null, parts };
  const m = (cents(p) - cents(c.total)) / 100;
  return { cost: usd(c.total), price, margin: usd(m), loss: m < 0, parts };
}

/**
 * What publishing answered.
 * @param {Schemas['PublishResult']} r
 */
const publishedNotice = (r) =>
  h(
    'p',
    { class: 'notice' },
    r.status === 'published' ? 'Published. ' : 'Publishing: it appears below when the store has it. ',
    `Per unit: cost ${usd(r.costs.total)}, price ${usd(r.price)}, margin ${usd(r.margin)}. `,
    r.status === 'published' && r.adminUrl
      ? h('a', { href: r.adminUrl, target: '_blank', rel: 'noopener' }, 'Open in Shopify admin')
      : null,
  );

/**
 * The publish form (shown once a store is connected and there is a mockup), and the note shown instead when a
 * design-chat mockup waits for a store. `fill(connections, generations)` offers the active stores and the mockups.
 * @param {{ chatPick: ChatPick | null, published: () => Promise<void> }} opts
 */
export function publishSection(opts) {
  const { chatPick } = opts;
  const out = h('div', { 'aria-live': 'polite' });
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

  function showEconomics() {
    const e = unitEconomics(estimate, price.value);
    render(unitPrice, e.price);
    render(unitCost, e.cost);
    render(costParts, e.parts || null);
    if (e.loss !== null) unitMargin.className = e.loss ? 'loss' : '';
    render(unitMargin, e.margin);
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
  const note = h('p', { class: 'notice', role: 'status' });
  note.hidden = true;
  const form = h(
    'form',
    {
      class: 'card',
      onsubmit: onSubmit(publish, out, 'Publishing…', async () => {
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
        const r = await api('POST', '/api/storefront/publish', body);
        render(out, publishedNotice(r));
        announce(r.status === 'published' ? 'Product published' : 'Publishing');
        await opts.published();
      }),
    },
    h('h2', {}, 'Publish a mockup'),
    field('Mockup', genSelect),
    preview,
    field('Store', connSelect),
    field('Product title', title),
    h('div', { class: 'row' }, field('Price (USD)', price), sizesField),
    economics,
    publish,
    out,
  );

  /**
   * @param {Schemas['StoreConnection'][]} connections
   * @param {Schemas['Generation'][]} generations the completed ones
   */
  function fill(connections, generations) {
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
    form.hidden = active.length === 0 || !hasMockup;
    note.hidden = !(chatPick && active.length === 0);
    render(note, 'No store is connected: connect one above to publish the design-chat mockup.');
    if (!form.hidden && genSelect.value !== before) void loadEstimate(); // it shows its own errors
  }

  return { form, note, fill };
}
