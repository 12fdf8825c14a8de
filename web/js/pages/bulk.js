// Bulk: every chosen design on every chosen colour and zone of every chosen garment, in one job (POST
// /api/v1/generate/bulk, docs/generation.md#bulk-renders). Choose designs from the library, garments, their colours
// and zones; the token cost shows before confirming; then a progress bar that moves as items finish, each finished
// mockup appearing, Cancel while it runs, and Download all (the ZIP) when it ends.
import { allGarments, api, newIdempotencyKey } from '../api.js';
import { listDesigns } from '../design-library.js';
import { announce, busy, errorBox, h, heading, render } from '../dom.js';

/** @typedef {import('../api.js').Schemas} Schemas */
/** @typedef {NonNullable<Schemas['BulkGarmentTarget']['zones']>[number]} Zone a print zone a bulk target names (a garment's printZones ids are these) */

/** How often a running bulk is read again. */
const POLL_MS = 1000;

/** @type {import('../types').Page} */
export async function bulkPage(view, ctx) {
  render(view, heading('Bulk'), h('p', { class: 'muted' }, 'Loading your designs and the catalogue…'));
  const [designs, garments] = await Promise.all([listDesigns(), allGarments()]);
  if (!ctx.isCurrent()) return;

  const resume = ctx.params.get('id');
  if (resume) return follow(view, ctx, resume);

  if (designs.length === 0) {
    render(view, heading('Bulk'), h('p', {}, 'Upload a design first: ', h('a', { href: '#/designs' }, 'Designs'), '.'));
    return;
  }

  /** @type {Set<string>} design urls */
  const chosenDesigns = new Set();
  /** @type {Map<string, { colors: Set<string>, zones: Set<Zone> }>} garment id -> choice */
  const chosenGarments = new Map();

  const cost = h('p', { class: 'bulk-cost', 'aria-live': 'polite' });
  const startButton = h('button', { type: 'button', class: 'primary' }, 'Review');
  const review = h('div', { class: 'bulk-review' });
  const out = h('div', {});

  const count = () => {
    let perDesign = 0;
    for (const c of chosenGarments.values()) perDesign += c.colors.size * c.zones.size;
    return perDesign * chosenDesigns.size;
  };
  const update = () => {
    const n = count();
    cost.textContent =
      n === 0
        ? 'Choose at least one design and one garment colour.'
        : `${n} ${n === 1 ? 'mockup' : 'mockups'} · ${n} ${n === 1 ? 'token' : 'tokens'}`;
    /** @type {HTMLButtonElement} */ (startButton).disabled = n === 0;
    render(review);
  };

  const designList = h(
    'fieldset',
    { class: 'bulk-designs' },
    h('legend', {}, 'Designs'),
    designs.map((d) =>
      h(
        'label',
        { class: 'bulk-choice' },
        h('input', {
          type: 'checkbox',
          value: d.url,
          onchange: (/** @type {Event} */ e) => {
            const on = /** @type {HTMLInputElement} */ (e.target).checked;
            if (on) chosenDesigns.add(d.url);
            else chosenDesigns.delete(d.url);
            update();
          },
        }),
        h('img', { src: d.thumbnailUrl, alt: '', width: 40, height: 40 }),
        ` ${d.name}`,
      ),
    ),
  );

  /** @param {Schemas['Garment']} g */
  const garmentBox = (g) => {
    const details = h('div', { class: 'bulk-garment-options', hidden: true });
    const choice = {
      colors: new Set(g.colors.filter((c) => c.available).map((c) => c.name)),
      zones: /** @type {Set<Zone>} */ (new Set(['front'])),
    };
    /** @template {string} T @param {Set<T>} set @param {T} v */
    const toggle = (set, v) => (/** @type {Event} */ e) => {
      if (/** @type {HTMLInputElement} */ (e.target).checked) set.add(v);
      else set.delete(v);
      update();
    };
    render(
      details,
      h(
        'fieldset',
        {},
        h('legend', {}, `Colours of ${g.name}`),
        g.colors
          .filter((c) => c.available)
          .map((c) => {
            const chip = h('span', { class: 'chip', 'aria-hidden': 'true' });
            chip.style.background = c.hex;
            return h(
              'label',
              { class: 'bulk-choice' },
              h('input', { type: 'checkbox', checked: true, onchange: toggle(choice.colors, c.name) }),
              chip,
              ` ${c.name}`,
            );
          }),
      ),
      h(
        'fieldset',
        {},
        h('legend', {}, `Zones of ${g.name}`),
        g.printZones.map((z) =>
          h(
            'label',
            { class: 'bulk-choice' },
            h('input', {
              type: 'checkbox',
              checked: z.id === 'front',
              onchange: toggle(choice.zones, /** @type {Zone} */ (z.id)),
            }),
            ` ${z.name}`,
          ),
        ),
      ),
    );
    return h(
      'div',
      { class: 'bulk-garment' },
      h(
        'label',
        { class: 'bulk-choice' },
        h('input', {
          type: 'checkbox',
          value: g.id,
          onchange: (/** @type {Event} */ e) => {
            const on = /** @type {HTMLInputElement} */ (e.target).checked;
            details.hidden = !on;
            if (on) chosenGarments.set(g.id, choice);
            else chosenGarments.delete(g.id);
            update();
          },
        }),
        ` ${g.name}`,
      ),
      details,
    );
  };

  startButton.addEventListener('click', () => {
    const n = count();
    const body = {
      designs: [...chosenDesigns].map((designUrl) => ({ designUrl })),
      targets: [...chosenGarments].map(([garmentId, c]) => ({
        garmentId,
        colors: [...c.colors],
        zones: [...c.zones],
      })),
    };
    const confirm = h('button', { type: 'button', class: 'primary' }, `Start: ${n} tokens`);
    const key = newIdempotencyKey();
    confirm.addEventListener('click', () =>
      busy(confirm, out, 'Starting…', async () => {
        try {
          const bulk = await api('POST', '/api/v1/generate/bulk', body, {
            headers: { 'idempotency-key': key },
          });
          location.hash = `#/bulk?id=${encodeURIComponent(bulk.id)}`;
        } catch (err) {
          render(out, errorBox(err));
        }
      }),
    );
    render(
      review,
      h(
        'p',
        {},
        `${chosenDesigns.size} ${chosenDesigns.size === 1 ? 'design' : 'designs'} on ${n} garment colours and zones: `,
        h('strong', {}, `${n} tokens`),
        ' (a failed mockup is refunded).',
      ),
      confirm,
    );
    confirm.focus();
  });

  render(
    view,
    heading('Bulk'),
    h('p', { class: 'muted' }, 'Every chosen design on every chosen colour and zone: one mockup each, one ZIP of all.'),
    designList,
    h('fieldset', { class: 'bulk-garments' }, h('legend', {}, 'Garments'), garments.map(garmentBox)),
    cost,
    startButton,
    review,
    out,
  );
  update();
}

/**
 * A bulk's progress, read every second until it ends: the bar, the finished mockups, Cancel, then Download all.
 * @param {HTMLElement} view
 * @param {import('../types').PageContext} ctx
 * @param {string} id
 */
async function follow(view, ctx, id) {
  const bar = /** @type {HTMLProgressElement} */ (
    h('progress', { class: 'bulk-progress', 'aria-label': 'Mockups finished' })
  );
  const text = h('p', { 'aria-live': 'polite' });
  const grid = h('ul', { class: 'bulk-mockups', 'aria-label': 'Finished mockups' });
  const actions = h('div', { class: 'actions' });
  const cancel = h('button', { type: 'button' }, 'Cancel');
  /** @type {Set<string>} */
  const shown = new Set();
  cancel.addEventListener('click', () =>
    busy(cancel, actions, 'Canceling…', async () => {
      try {
        await api('POST', `/api/v1/generate/bulk/${encodeURIComponent(id)}/cancel`);
        announce('Canceled: what was not rendered is refunded');
      } catch (err) {
        announce(err instanceof Error ? err.message : String(err), 'error');
      }
    }),
  );
  render(view, heading('Bulk'), bar, text, actions, grid, h('p', {}, h('a', { href: '#/bulk' }, 'Start another bulk')));
  render(actions, cancel);

  while (ctx.isCurrent()) {
    /** @type {Schemas['BulkWithGenerations'] | undefined} */
    let bulk;
    try {
      bulk = await readAll(id);
    } catch (err) {
      render(actions, errorBox(err));
      return;
    }
    if (!ctx.isCurrent()) return;
    const done = bulk.completed + bulk.failed;
    bar.max = bulk.total;
    bar.value = done;
    text.textContent =
      `${done} of ${bulk.total} finished` +
      (bulk.failed ? ` (${bulk.failed} failed, refunded)` : '') +
      (bulk.status === 'canceled' ? ' · canceled' : bulk.finishedAt ? ' · done' : '');
    for (const g of bulk.generations) {
      if (g.status !== 'completed' || shown.has(g.id)) continue;
      shown.add(g.id);
      grid.append(
        h(
          'li',
          {},
          h(
            'a',
            { href: g.mockupUrl ?? '#', target: '_blank', rel: 'noopener' },
            h('img', { src: g.thumbnailUrl ?? '', alt: `${g.color} ${g.zone}`, width: 120, height: 120 }),
          ),
        ),
      );
    }
    if (bulk.finishedAt) {
      render(
        actions,
        bulk.archiveUrl
          ? h('a', { class: 'button primary', href: bulk.archiveUrl, download: `${bulk.id}.zip` }, 'Download all (ZIP)')
          : h('p', { class: 'muted' }, 'No mockup was made.'),
      );
      announce(bulk.status === 'canceled' ? 'Bulk canceled' : 'Bulk finished');
      break;
    }
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

/**
 * The bulk with every page of its generations.
 * @param {string} id
 * @returns {Promise<Schemas['BulkWithGenerations']>}
 */
async function readAll(id) {
  /** @type {Schemas['BulkWithGenerations'] | undefined} */
  let first;
  /** @type {string | null} */
  let cursor = null;
  for (let i = 0; i < 20; i++) {
    const q = new URLSearchParams({ limit: '100', ...(cursor ? { cursor } : {}) });
    /** @type {Schemas['BulkWithGenerations']} (named: the loop's cursor would make its type circular) */
    const page = await api('GET', `/api/v1/generate/bulk/${encodeURIComponent(id)}?${q}`);
    if (!first) first = page;
    else first.generations.push(...page.generations);
    if (!page.pagination.hasMore) break;
    cursor = page.pagination.nextCursor;
  }
  return /** @type {Schemas['BulkWithGenerations']} */ (first);
}
