// Page 3: designs. Upload by drag and drop or the file picker (POST /api/v1/upload, multipart, with progress), then
// the printability analysis next to it (POST /api/v1/analyze): colours as swatches with Pantone, the technique,
// prices for a quantity, warnings.
import { api, uploadWithProgress } from '../api.js';
import { forgetDesign, listDesigns, saveDesign, updateAnalysis } from '../designs-store.js';
import { announce, busy, errorBox, field, h, heading, render, usd } from '../dom.js';

/** @typedef {import('../api.js').Schemas} Schemas */

const ACCEPT = 'image/png,image/jpeg,image/webp,image/gif';
const MAX_BYTES = 10 * 1024 * 1024;

/**
 * The analysis, readable: swatches with hex and Pantone, technique and why, prices, warnings.
 * @param {Schemas['Analysis']} a
 */
export function analysisView(a) {
  const pantone = a.colors.pantone ?? [];
  return h(
    'div',
    { class: 'analysis' },
    h('h3', {}, `${a.colors.count} ${a.colors.count === 1 ? 'colour' : 'colours'}`),
    h(
      'ul',
      { class: 'swatches', 'aria-label': 'Dominant colours' },
      a.colors.dominant.map((hex, i) => {
        const chip = h('span', { class: 'chip', 'aria-hidden': 'true' });
        chip.style.background = hex;
        return h('li', {}, chip, h('span', {}, hex, pantone[i] ? h('small', {}, ` ${pantone[i]}`) : null));
      }),
    ),
    pantone.length > 0
      ? h('p', { class: 'pantone' }, h('strong', {}, 'Pantone: '), pantone.join(', '))
      : h('p', { class: 'muted' }, 'No close Pantone matches.'),
    h(
      'p',
      { class: 'technique' },
      h('strong', {}, 'Recommended: '),
      h('span', { class: `badge tech-${a.recommendation.technique}` }, a.recommendation.technique.toUpperCase()),
      ` (${a.recommendation.complexity}) `,
      a.recommendation.reason,
    ),
    h(
      'table',
      { class: 'prices' },
      h('caption', {}, 'Price estimates per unit'),
      h(
        'tbody',
        {},
        h('tr', {}, h('th', { scope: 'row' }, 'DTG'), h('td', {}, usd(a.pricing.dtg.perUnit, a.pricing.dtg.currency))),
        h(
          'tr',
          {},
          h('th', { scope: 'row' }, 'Screen print'),
          h(
            'td',
            {},
            `${usd(a.pricing.screen.perUnit, a.pricing.screen.currency)} + ${usd(a.pricing.screen.setup, a.pricing.screen.currency)} setup, minimum ${a.pricing.screen.minimumQuantity}`,
          ),
        ),
      ),
    ),
    a.warnings.length > 0
      ? h(
          'div',
          { class: 'warnings' },
          h('h3', {}, 'Warnings'),
          h(
            'ul',
            {},
            a.warnings.map((w) => h('li', {}, w)),
          ),
        )
      : h('p', { class: 'ok' }, 'No warnings.'),
    h(
      'p',
      { class: 'muted' },
      `${a.dimensions.width}×${a.dimensions.height} px${a.dimensions.hasTransparency ? ', transparent background' : ''}`,
    ),
  );
}

/** @type {import('../types').Page} */
export async function designsPage(main) {
  const input = h('input', {
    type: 'file',
    accept: ACCEPT,
    class: 'sr-only',
    'aria-label': 'Design file',
    tabindex: '-1',
  });
  const progress = h('div', { class: 'upload-progress' });
  const result = h('div', { class: 'upload-result', 'aria-live': 'polite' });
  /** @type {HTMLDivElement} */
  const drop = h(
    'div',
    {
      class: 'dropzone',
      role: 'button',
      tabindex: '0',
      'aria-describedby': 'drop-hint',
      onclick: () => input.click(),
      onkeydown: (e) => {
        if (e.key === 'Enter' || e.key === ' ') {
          e.preventDefault();
          input.click();
        }
      },
      ondragover: (e) => {
        e.preventDefault();
        drop.classList.add('over');
      },
      ondragleave: () => drop.classList.remove('over'),
      ondrop: (e) => {
        e.preventDefault();
        drop.classList.remove('over');
        const file = e.dataTransfer?.files?.[0];
        if (file) void upload(file); // it shows its own errors
      },
    },
    h('strong', {}, 'Drop a design here, or choose a file'),
    h('small', { id: 'drop-hint' }, 'PNG, JPEG, WebP or GIF, up to 10 MB. 2400×3000 px or more prints best.'),
  );
  input.addEventListener('change', () => {
    if (input.files?.[0]) void upload(input.files[0]);
    input.value = '';
  });
  const quantity = h('input', { type: 'number', min: '1', max: '10000', value: '50', inputmode: 'numeric' });
  const gallery = h('div', { class: 'gallery' });

  /**
   * @param {{ id: string, url: string }} design
   * @param {Element | null} [target] where the analysis goes (default: below the upload)
   */
  async function analyze(design, target) {
    const region = target ?? result;
    const out = h('div');
    region.append(out);
    await busy(null, out, 'Analysing…', async () => {
      try {
        /** @type {Schemas['Analysis']} */
        const a = await api('POST', '/api/v1/analyze', {
          imageUrl: design.url,
          quantity: Number(quantity.value) || 50,
        });
        updateAnalysis(design.id, a);
        render(out, analysisView(a));
      } catch (err) {
        render(out, errorBox(err));
      }
    });
  }

  /** @param {File} file */
  async function upload(file) {
    render(result);
    if (file.size > MAX_BYTES) {
      render(result, errorBox(new Error(`${file.name} is larger than 10 MB, the size limit`)));
      return;
    }
    const bar = h('progress', { max: '100', value: '0', 'aria-label': `Uploading ${file.name}` });
    const label = h('span', {}, `Uploading ${file.name}…`);
    render(progress, label, bar);
    try {
      const upload = await uploadWithProgress(file, (f) => {
        bar.value = Math.round(f * 100);
        label.textContent = `Uploading ${file.name}: ${Math.round(f * 100)} %`;
      });
      render(progress);
      saveDesign(upload, file.name);
      announce(`Uploaded ${file.name}`);
      render(
        result,
        h(
          'div',
          { class: 'design-card' },
          h('img', { src: upload.thumbnailUrl, alt: `Uploaded design ${file.name}`, class: 'thumb' }),
          h(
            'div',
            {},
            h('h2', {}, file.name),
            h('p', { class: 'muted' }, `${upload.dimensions.width}×${upload.dimensions.height} px, ${upload.mimeType}`),
            h(
              'a',
              { href: `#/studio?design=${encodeURIComponent(upload.id)}`, class: 'button primary' },
              'Place on a garment',
            ),
          ),
        ),
      );
      await analyze(upload, result.querySelector('.design-card > div'));
      showGallery();
    } catch (err) {
      render(progress);
      render(result, errorBox(err));
    }
  }

  function showGallery() {
    const designs = listDesigns();
    if (designs.length === 0) {
      render(gallery, h('p', { class: 'muted' }, 'Designs you upload from this browser are listed here.'));
      return;
    }
    render(
      gallery,
      h(
        'ul',
        { class: 'cards' },
        designs.map((d) => {
          const details = h('div', { class: 'details' });
          if (d.analysis) details.append(h('details', {}, h('summary', {}, 'Analysis'), analysisView(d.analysis)));
          return h(
            'li',
            { class: 'design-card' },
            h('img', { src: d.thumbnailUrl, alt: `Design ${d.name}`, class: 'thumb', loading: 'lazy' }),
            h(
              'div',
              {},
              h('h3', {}, d.name),
              h('p', { class: 'muted' }, `${d.dimensions.width}×${d.dimensions.height} px`),
              h(
                'div',
                { class: 'buttons' },
                h('a', { href: `#/studio?design=${encodeURIComponent(d.id)}`, class: 'button' }, 'Place'),
                h(
                  'button',
                  {
                    type: 'button',
                    onclick: (e) => {
                      render(details);
                      void busy(e.currentTarget, null, 'Analysing…', () => analyze(d, details));
                    },
                  },
                  d.analysis ? 'Analyse again' : 'Analyse',
                ),
                h(
                  'button',
                  {
                    type: 'button',
                    class: 'link',
                    onclick: () => {
                      forgetDesign(d.id);
                      showGallery();
                    },
                  },
                  'Remove from list',
                ),
              ),
              details,
            ),
          );
        }),
      ),
    );
  }

  render(
    main,
    heading('Designs'),
    h('p', { class: 'lead' }, 'Upload a design to see how it prints: colours, Pantone matches, technique and prices.'),
    h(
      'div',
      { class: 'card' },
      drop,
      input,
      progress,
      h('div', { class: 'row' }, field('Print quantity for prices', quantity)),
    ),
    result,
    h('section', { 'aria-labelledby': 'gallery-h' }, h('h2', { id: 'gallery-h' }, 'Your designs'), gallery),
  );
  showGallery();
}
