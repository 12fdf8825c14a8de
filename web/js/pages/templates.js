// Templates (#/templates, issue 32, docs/templates.md): a customer's own Photoshop mockups. Upload a PSD or PSB (POST
// /api/v1/templates, multipart, with a progress bar; the import is polled until ready), see each template's preview
// with its smart objects outlined and its fidelity against Photoshop's composite, then place a design of the library
// in a smart object with a free preview (POST /api/v1/preview with templateId) and Generate (POST /api/v1/generate
// with templateId, 1 token) and download the mockup.
import { api, newIdempotencyKey, uploadWithProgress } from '../api.js';
import { listDesigns } from '../design-library.js';
import { announce, busy, errorBox, errorMessage, field, h, heading, render } from '../dom.js';

/** @typedef {import('../api.js').Schemas} Schemas */

const POLL_MS = 1000;
const SVG = 'http://www.w3.org/2000/svg';

/**
 * The template's preview with each smart object's quad outlined (an SVG over the image, in template pixels).
 * @param {Schemas['Template']} t
 */
function outlined(t) {
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', `0 0 ${t.width} ${t.height}`);
  svg.setAttribute('class', 'template-outlines');
  svg.setAttribute('aria-hidden', 'true');
  for (const so of t.smartObjects) {
    const poly = document.createElementNS(SVG, 'polygon');
    poly.setAttribute('points', so.quad.map((p) => p.join(',')).join(' '));
    poly.setAttribute('data-smart-object', so.id);
    svg.append(poly);
  }
  return h(
    'div',
    { class: 'template-stage' },
    h('img', {
      src: t.previewUrl ?? '',
      alt: `${t.name}: the template rendered with its own content, ${t.smartObjects.length} smart object(s) outlined`,
    }),
    svg,
  );
}

/** @param {Schemas['Template']} t */
const fidelityText = (t) =>
  t.fidelity
    ? `Fidelity: ${t.fidelity.psnr} dB PSNR against the composite Photoshop saved in the file.`
    : 'Fidelity: the file has no composite saved by Photoshop to compare with.';

/** @type {import('../types').Page} */
export async function templatesPage(view, ctx) {
  const id = ctx.params.get('id');
  if (id) return templateView(view, ctx, id);

  const list = h('div', { class: 'gallery templates' });
  const progress = h('div', { class: 'upload-progress' });
  const input = h('input', { type: 'file', accept: '.psd,.psb', name: 'template' });

  async function load() {
    const page = await api('GET', '/api/v1/templates?limit=100');
    if (!ctx.isCurrent()) return;
    if (page.templates.length === 0) {
      render(list, h('p', { class: 'muted' }, 'No template yet: upload a PSD with a smart object.'));
      return;
    }
    render(
      list,
      page.templates.map((t) =>
        h(
          'article',
          { class: 'card template-card' },
          t.thumbnailUrl ? h('img', { class: 'thumb', src: t.thumbnailUrl, alt: '' }) : null,
          h('h3', {}, t.name),
          h('p', { class: 'muted' }, `${t.status} · ${t.width}x${t.height} · ${t.smartObjects.length} smart object(s)`),
          t.status === 'ready'
            ? h('a', { href: `#/templates?id=${encodeURIComponent(t.id)}` }, `Open ${t.name}`)
            : null,
          t.status === 'failed' ? h('p', { class: 'error' }, t.error ?? 'Import failed') : null,
        ),
      ),
    );
  }

  input.addEventListener('change', async () => {
    const file = input.files?.[0];
    if (!file) return;
    const bar = h('progress', { max: '100', value: '0', 'aria-label': `Uploading ${file.name}` });
    const label = h('p', {}, `Uploading ${file.name}…`);
    render(progress, label, bar);
    try {
      let t = await uploadWithProgress('/api/v1/templates', file, (f) => (bar.value = Math.round(f * 100)));
      label.textContent = `Importing ${file.name}…`;
      bar.removeAttribute('value');
      while (t.status === 'processing') {
        await new Promise((r) => setTimeout(r, POLL_MS));
        if (!ctx.isCurrent()) return;
        t = await api('GET', `/api/v1/templates/${encodeURIComponent(t.id)}`);
      }
      render(progress);
      if (t.status === 'failed') announce(`Import failed: ${t.error ?? 'unknown error'}`, 'error');
      else announce(`${t.name} is ready`);
      await load();
    } catch (err) {
      render(progress, errorBox(err));
    } finally {
      input.value = '';
    }
  });

  render(
    view,
    heading('Templates'),
    h(
      'p',
      { class: 'lead' },
      'Your own Photoshop mockups: upload a PSD or PSB with a smart object, then render any design in it, with its ' +
        'perspective, warp, shadows and highlights.',
    ),
    field('Upload a PSD or PSB', input, 'Up to 200 MB. Imports are free; each mockup costs 1 token.'),
    progress,
    list,
  );
  await load();
}

/**
 * One template: its preview with the smart objects outlined, the design and placement, Preview and Generate.
 * @param {HTMLElement} view
 * @param {import('../types').PageContext} ctx
 * @param {string} id
 */
async function templateView(view, ctx, id) {
  render(view, heading('Templates'), h('p', { class: 'muted' }, 'Loading the template…'));
  /** @type {[Schemas['Template'], Awaited<ReturnType<typeof listDesigns>>]} */
  const [t, designs] = await Promise.all([api('GET', `/api/v1/templates/${encodeURIComponent(id)}`), listDesigns()]);
  if (!ctx.isCurrent()) return;

  const design = h(
    'select',
    { name: 'design' },
    designs.map((d) => h('option', { value: d.url }, d.name)),
  );
  const smart = h(
    'select',
    { name: 'smartObject' },
    t.smartObjects.map((s) => h('option', { value: s.id }, `${s.id}: ${s.name} (${s.width}x${s.height})`)),
  );
  const scale = h('input', { type: 'range', min: '0.1', max: '1', step: '0.05', value: '1', name: 'scale' });
  const previewButton = h('button', { type: 'button' }, 'Preview');
  const generateButton = h('button', { type: 'button', class: 'primary' }, 'Generate (1 token)');
  const deleteButton = h('button', { type: 'button', class: 'danger' }, 'Delete template');
  const out = h('div', { class: 'template-result', 'aria-live': 'polite' });

  const body = () => ({
    templateId: t.id,
    designUrl: /** @type {HTMLSelectElement} */ (design).value,
    smartObjectId: /** @type {HTMLSelectElement} */ (smart).value,
    placement: { x: 50, y: 50, scale: Number(/** @type {HTMLInputElement} */ (scale).value), rotation: 0 },
  });

  previewButton.addEventListener('click', () =>
    busy(previewButton, out, 'Rendering preview…', async () => {
      try {
        const blob = await api('POST', '/api/v1/preview', body());
        render(
          out,
          h('img', { class: 'template-preview', src: URL.createObjectURL(blob), alt: `Preview on ${t.name}` }),
        );
      } catch (err) {
        render(out, errorBox(err));
      }
    }),
  );
  generateButton.addEventListener('click', () =>
    busy(generateButton, out, 'Generating…', async () => {
      try {
        let g = await api('POST', '/api/v1/generate', body(), { headers: { 'idempotency-key': newIdempotencyKey() } });
        while (g.status === 'pending' || g.status === 'processing') {
          await new Promise((r) => setTimeout(r, POLL_MS));
          g = await api('GET', `/api/v1/generations/${encodeURIComponent(g.id)}`);
        }
        if (g.status === 'failed' || !g.mockupUrl) throw new Error(g.error ?? 'Generation failed');
        render(
          out,
          h('img', { class: 'template-mockup', src: g.mockupUrl, alt: `Mockup on ${t.name}` }),
          h('p', {}, h('a', { href: g.mockupUrl, download: `${t.name}.jpg` }, 'Download the mockup')),
        );
        announce('Mockup ready');
      } catch (err) {
        render(out, errorBox(err));
      }
    }),
  );
  deleteButton.addEventListener('click', async () => {
    if (!confirm(`Delete the template ${t.name}?`)) return;
    try {
      await api('DELETE', `/api/v1/templates/${encodeURIComponent(t.id)}`);
      announce(`${t.name} deleted`);
      location.hash = '#/templates';
    } catch (err) {
      announce(errorMessage(err), 'error');
    }
  });

  render(
    view,
    heading(t.name),
    h('p', {}, h('a', { href: '#/templates' }, 'All templates')),
    outlined(t),
    h('p', { class: 'fidelity' }, fidelityText(t)),
    t.unsupported.length
      ? h(
          'p',
          { class: 'muted' },
          `Drawn from Photoshop's pixels: ${t.unsupported.map((u) => `${u.layer} (${u.feature})`).join(', ')}`,
        )
      : null,
    designs.length === 0
      ? h('p', {}, 'Upload a design first: ', h('a', { href: '#/designs' }, 'Designs'), '.')
      : h(
          'div',
          { class: 'template-controls' },
          field('Design', design),
          field('Smart object', smart),
          field('Size (1 fits the smart object)', scale),
          h('div', { class: 'actions' }, previewButton, generateButton),
        ),
    out,
    h('p', {}, deleteButton),
  );
}
