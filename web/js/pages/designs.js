// Page 3: designs. Upload by drag and drop or the file picker (POST /api/v1/upload, multipart, with progress), then
// the printability analysis next to it (POST /api/v1/analyze, which the server keeps as the design's latest):
// colours as swatches with Pantone, the technique, prices for a quantity, warnings. Below, the account's designs from
// the server's library (GET /api/v1/uploads), to rename and delete (with a confirm).
import { api, uploadWithProgress } from '../api.js';
import { deleteDesign, listDesigns, renameDesign } from '../design-library.js';
import { samplePicker } from '../samples.js';
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
export async function designsPage(main, ctx) {
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
        const a = await api('POST', '/api/v1/analyze', {
          imageUrl: design.url,
          quantity: Number(quantity.value) || 50,
        });
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
      const upload = await uploadWithProgress('/api/v1/upload', file, (f) => {
        bar.value = Math.round(f * 100);
        label.textContent = `Uploading ${file.name}: ${Math.round(f * 100)} %`;
      });
      render(progress);
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
      await showGallery();
    } catch (err) {
      render(progress);
      render(result, errorBox(err));
    }
  }

  /** @param {import('../design-library.js').LibraryUpload} d */
  function designCard(d) {
    const details = h('div', { class: 'details' });
    if (d.analysis) details.append(h('details', {}, h('summary', {}, 'Analysis'), analysisView(d.analysis)));
    const title = h('h3', {}, d.name);
    const actions = h('div', { class: 'buttons' });
    const status = h('div', { 'aria-live': 'polite' });
    const showActions = () =>
      render(
        actions,
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
        h('button', { type: 'button', onclick: renameForm }, 'Rename'),
        h('button', { type: 'button', class: 'danger', onclick: confirmDelete }, 'Delete'),
      );
    function renameForm() {
      const input = h('input', { type: 'text', name: 'name', value: d.name, maxlength: '200', required: true });
      render(
        actions,
        h(
          'form',
          {
            class: 'rename',
            onsubmit: (e) => {
              e.preventDefault();
              const submit = /** @type {HTMLButtonElement | null} */ (
                /** @type {HTMLFormElement} */ (e.currentTarget).querySelector('button[type=submit]')
              );
              void busy(submit, null, 'Saving…', async () => {
                try {
                  const renamed = await renameDesign(d.id, input.value);
                  d.name = renamed.name;
                  title.textContent = renamed.name;
                  render(status);
                  announce(`Renamed to ${renamed.name}`);
                  showActions();
                } catch (err) {
                  render(status, errorBox(err));
                }
              });
            },
          },
          field('New name', input),
          h('button', { type: 'submit', class: 'primary' }, 'Save name'),
          h('button', { type: 'button', class: 'link', onclick: showActions }, 'Cancel'),
        ),
      );
      input.focus();
      input.select();
    }
    function confirmDelete() {
      const yes = h('button', { type: 'button', class: 'danger' }, `Delete ${d.name}`);
      yes.addEventListener('click', () =>
        busy(yes, null, 'Deleting…', async () => {
          try {
            await deleteDesign(d.id);
            announce(`Deleted ${d.name}`);
            await showGallery();
          } catch (err) {
            render(status, errorBox(err));
          }
        }),
      );
      render(
        actions,
        h(
          'div',
          { role: 'alertdialog', 'aria-label': `Delete ${d.name}?`, class: 'confirm' },
          h('p', {}, `Delete ${d.name}? Its file is erased at once; mockups made from it stay.`),
          yes,
          h('button', { type: 'button', class: 'link', onclick: showActions }, 'Keep it'),
        ),
      );
      yes.focus();
    }
    showActions();
    return h(
      'li',
      { class: 'design-card', 'data-id': d.id },
      h('img', { src: d.thumbnailUrl, alt: `Design ${d.name}`, class: 'thumb', loading: 'lazy' }),
      h(
        'div',
        {},
        title,
        h('p', { class: 'muted' }, `${d.dimensions.width}×${d.dimensions.height} px`),
        actions,
        status,
        details,
      ),
    );
  }

  async function showGallery() {
    render(gallery, h('p', { 'aria-busy': 'true' }, 'Loading your designs…'));
    let designs;
    try {
      designs = await listDesigns();
    } catch (err) {
      render(gallery, errorBox(err));
      return;
    }
    if (designs.length === 0) {
      render(
        gallery,
        h('p', { class: 'muted' }, 'Designs you upload are listed here, in every browser you sign in with.'),
      );
      return;
    }
    render(gallery, h('ul', { class: 'cards' }, designs.map(designCard)));
  }

  render(
    main,
    heading('Designs'),
    h('p', { class: 'lead' }, 'Upload a design to see how it prints: colours, Pantone matches, technique and prices.'),
    h('p', {}, 'Your own Photoshop mockups (PSD smart objects): ', h('a', { href: '#/templates' }, 'Templates'), '.'),
    h(
      'div',
      { class: 'card' },
      drop,
      input,
      progress,
      h('div', { class: 'row' }, field('Print quantity for prices', quantity)),
    ),
    result,
    samplePicker(ctx, 'No design at hand? Place one of ours on a garment.'),
    h('section', { 'aria-labelledby': 'gallery-h' }, h('h2', { id: 'gallery-h' }, 'Your designs'), gallery),
  );
  await showGallery();
}
