// Storefront: production of paid orders (issue 36, docs/production.md). Each order's print files and job sheet with
// Download links, and the production queue: paid, unfulfilled orders in production, oldest first
// (GET /api/storefront/production-queue). The files are the service's public file URLs (same origin), so the links
// download.
import { h, table, when } from '../../dom.js';

/** @typedef {import('../../api.js').Schemas} Schemas */
/** @typedef {Schemas['StoreOrder']} StoreOrder */
/** @typedef {NonNullable<StoreOrder['production']>} Production */

/** The badge colour of a production status (the dashboard's badge classes). */
const BADGE = { queued: 'processing', ready: 'completed', failed: 'failed' };

/** A file name from a file URL (the stored key's last part). @param {string} url */
const fileName = (url) => decodeURIComponent(new URL(url, location.href).pathname.split('/').pop() ?? 'file');

/** What the production of an order says, in a few words. @param {Production} p */
export const productionSummary = (p) =>
  p.status === 'ready'
    ? `${p.files.length} print file${p.files.length === 1 ? '' : 's'} ready`
    : p.status === 'failed'
      ? `failed${p.error ? `: ${p.error}` : ''}`
      : 'making the print files…';

/** A preflight status and its checks, in words. @param {Schemas['Preflight']} pf */
function preflightText(pf) {
  if (pf.checks.length === 0) return `preflight pass (${pf.effectiveDpi} DPI)`;
  return `preflight ${pf.status}: ${pf.checks.map((c) => c.message).join('; ')}`;
}

/**
 * The Download links of a ready production: the ZIP (job sheet and print files) and the job sheet.
 * @param {StoreOrder} o
 * @param {Production} p
 */
function downloads(o, p) {
  if (p.status !== 'ready' || !p.archiveUrl || !p.jobSheetUrl) return null;
  return h(
    'p',
    { class: 'downloads' },
    h(
      'a',
      {
        class: 'button primary',
        href: p.archiveUrl,
        download: fileName(p.archiveUrl),
        'aria-label': `Download print files of ${o.name} (ZIP)`,
      },
      'Download print files (ZIP)',
    ),
    ' ',
    h(
      'a',
      {
        class: 'button',
        href: p.jobSheetUrl,
        download: fileName(p.jobSheetUrl),
        'aria-label': `Download job sheet of ${o.name} (PDF)`,
      },
      'Download job sheet (PDF)',
    ),
  );
}

/**
 * An order's production: status, Download links, and per printed line its file, print size and preflight.
 * @param {StoreOrder} o
 */
export function productionBlock(o) {
  const p = o.production;
  if (!p) return null;
  return h(
    'section',
    { class: 'production', 'aria-label': `Production of ${o.name}` },
    h(
      'p',
      {},
      h('strong', {}, 'Production: '),
      h('span', { class: `badge ${BADGE[p.status]}` }, p.status),
      ` ${productionSummary(p)}`,
    ),
    downloads(o, p),
    p.files.length
      ? h(
          'ul',
          { class: 'print-files' },
          p.files.map((f) => {
            // the line item id as production keys it (db/production.ts lineItemIdOf: line-<n> without Shopify's id)
            const line = o.lineItems.find((li, i) => (li.lineItemId ?? `line-${i + 1}`) === f.lineItemId);
            return h(
              'li',
              { 'data-line-item': f.lineItemId },
              `${line?.title ?? f.lineItemId} (${f.size}, ${f.color}, ${f.zone}) × ${f.quantity} · `,
              `${(f.widthPx / f.dpi).toFixed(2)} × ${(f.heightPx / f.dpi).toFixed(2)} in (${f.widthPx} × ${f.heightPx} px, ${f.dpi} DPI) · `,
              h('span', { class: `preflight ${f.preflight.status}` }, preflightText(f.preflight)),
              ' ',
              h('a', { href: f.printFileUrl, download: fileName(f.printFileUrl) }, 'Print file'),
              f.underbaseUrl
                ? [' ', h('a', { href: f.underbaseUrl, download: fileName(f.underbaseUrl) }, 'Underbase')]
                : null,
            );
          }),
        )
      : null,
  );
}

/**
 * The production queue: the paid, unfulfilled orders in production, oldest first.
 * @param {StoreOrder[]} orders
 */
export function queueTable(orders) {
  if (orders.length === 0) return h('p', { class: 'muted' }, 'Nothing waiting to be printed.');
  return table(
    { class: 'production-queue', caption: 'Production queue, oldest first' },
    ['Order', 'Placed', 'Items', 'Production', 'Files'],
    orders.map((o) => {
      const p = /** @type {Production} */ (o.production);
      return h(
        'tr',
        { 'data-order-id': o.id },
        h('td', {}, `${o.name} · ${o.shopDomain}`),
        h('td', {}, when(o.createdAt)),
        h('td', {}, o.lineItems.map((li) => `${li.quantity} × ${li.title}`).join(', ')),
        h(
          'td',
          {},
          h('span', { class: `badge ${BADGE[p.status]}` }, p.status),
          p.status === 'failed' && p.error ? ` ${p.error}` : '',
        ),
        h('td', {}, downloads(o, p) ?? '—'),
      );
    }),
  );
}
