// "Try a sample" (issue 39): the three built-in designs (GET /api/samples, the project's own drawings), offered in
// the Studio and on Designs so a person without a print-ready file can make a mockup. Choosing one uploads its PNG
// as the person's design (POST /api/v1/upload, as a file they picked would be) and opens it in the Studio.
import { api, uploadWithProgress } from './api.js';
import { busy, errorBox, h, render } from './dom.js';

/** @typedef {import('./api.js').Schemas['SampleList']['samples'][number]} Sample */

/**
 * Uploads the sample as the person's own design, then opens it in the Studio.
 * @param {Sample} sample
 * @param {HTMLButtonElement} button
 * @param {HTMLElement} out where an error is shown
 */
async function trySample(sample, button, out) {
  await busy(button, out, `Adding ${sample.name}…`, async () => {
    try {
      const res = await fetch(sample.url);
      if (!res.ok) throw new Error(`The sample ${sample.name} could not be read (HTTP ${res.status})`);
      // the library names an upload after its file
      const file = new File([await res.blob()], `${sample.name} (sample).png`, { type: 'image/png' });
      const upload = await uploadWithProgress('/api/v1/upload', file, () => {});
      const next = `#/studio?design=${encodeURIComponent(upload.id)}`;
      // the same bytes again are the same upload: already on its page, the Studio opens it afresh
      if (location.hash === next) window.dispatchEvent(new HashChangeEvent('hashchange'));
      else location.hash = next;
    } catch (err) {
      render(out, errorBox(err));
    }
  });
}

/**
 * The samples as buttons (pure but for the click).
 * @param {Sample[]} samples
 * @param {HTMLElement} out
 */
export function sampleButtons(samples, out) {
  return h(
    'ul',
    { class: 'samples' },
    samples.map((s) =>
      h(
        'li',
        {},
        h(
          'button',
          { type: 'button', title: s.description, onclick: (e) => void trySample(s, e.currentTarget, out) },
          h('img', { src: s.url, alt: '', width: '128', height: '128', loading: 'lazy' }),
          `Try ${s.name}`,
        ),
      ),
    ),
  );
}

/**
 * A "Try a sample" section: the samples, a line on their licence, and where a failure is shown.
 * @param {{ isCurrent: () => boolean }} ctx
 * @param {string} [intro]
 */
export function samplePicker(ctx, intro = 'No design at hand? Start from one of ours.') {
  const list = h('div', { 'aria-busy': 'true' });
  const out = h('div', { 'aria-live': 'polite' });
  const licence = h('p', { class: 'muted small' });
  api('GET', '/api/samples')
    .then((/** @type {import('./api.js').Schemas['SampleList']} */ r) => {
      if (!ctx.isCurrent()) return;
      render(list, sampleButtons(r.samples, out));
      licence.textContent = r.samples[0]?.licence ?? '';
    })
    .catch((err) => render(list, errorBox(err)))
    .finally(() => list.removeAttribute('aria-busy'));
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'samples-h' },
    h('h2', { id: 'samples-h' }, 'Try a sample'),
    h('p', {}, intro),
    list,
    out,
    licence,
  );
}
