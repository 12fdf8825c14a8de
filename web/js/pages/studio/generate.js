// The studio's Generate: POST /api/v1/generate (1 token), then the generation is read every second until it is done,
// and the mockup is shown with its download.
import { api, ApiError } from '../../api.js';
import { announce, busy, errorBox, errorMessage, h, render } from '../../dom.js';

/** @typedef {import('../../api.js').Schemas} Schemas */

/**
 * A finished (or failed) generation: the mockup with a download link.
 * @param {Schemas['Generation']} g
 */
export function generationView(g) {
  if (g.status !== 'completed') {
    return h(
      'div',
      { class: 'notice error' },
      h('p', {}, `Generation ${g.id} ${g.status}${g.error ? `: ${g.error}` : ''}.`),
    );
  }
  return h(
    'figure',
    { class: 'mockup' },
    h(
      'a',
      { href: g.mockupUrl, target: '_blank', rel: 'noopener' },
      h('img', { src: g.thumbnailUrl, alt: `Mockup ${g.id}` }),
    ),
    h(
      'figcaption',
      {},
      h('a', { class: 'button primary', href: g.mockupUrl, download: `${g.id}.jpg` }, 'Download mockup'),
      ' ',
      h('a', { href: g.mockupUrl, target: '_blank', rel: 'noopener' }, 'Open full size'),
      h('small', { class: 'muted' }, ` ${g.id}, ${g.tokensUsed} token`),
      (g.warnings ?? []).map((w) => h('p', { class: 'notice warning' }, w.message)),
    ),
  );
}

/**
 * The Generate button; the outcome goes to `result`, and `generated` is called after a generation ended.
 * @param {{ request: () => Schemas['GenerateRequest'], result: HTMLElement, generated: () => void }} opts
 */
export function generateButton(opts) {
  const { result } = opts;
  const button = h('button', { type: 'button', class: 'primary' }, 'Generate mockup (1 token)');
  button.addEventListener('click', () =>
    busy(button, result, 'Generating…', async () => {
      render(result, h('p', {}, 'Rendering the full-size mockup: this takes a second or two.'));
      try {
        let g = await api('POST', '/api/v1/generate', opts.request());
        for (let i = 0; i < 120 && (g.status === 'pending' || g.status === 'processing'); i++) {
          await new Promise((r) => setTimeout(r, 1000));
          g = await api('GET', `/api/v1/generations/${encodeURIComponent(g.id)}`);
        }
        render(result, generationView(g));
        announce(
          g.status === 'completed' ? 'Mockup ready' : `Generation ${g.status}`,
          g.status === 'failed' ? 'error' : 'info',
        );
        opts.generated();
      } catch (err) {
        const extra =
          err instanceof ApiError && err.code === 'insufficient_tokens'
            ? ` You have ${err.details?.available ?? 0} tokens: see Billing.`
            : '';
        render(result, errorBox(new Error(errorMessage(err) + extra)));
      }
    }),
  );
  return button;
}
