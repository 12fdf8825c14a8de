// The studio's contrast check before Generate (issue 35): for the chosen design and garment, the server says for each
// colour whether the design's ink is hard to see on it (GET /api/v1/uploads/{id}/contrast: the low_contrast warning a
// generation would carry). The notice shows the current colour's warning; colours with one are marked in the picker.
import { api } from '../../api.js';
import { h, render } from '../../dom.js';

/** @typedef {import('../../api.js').Schemas['DesignContrast']} DesignContrast */

export function contrastNotice() {
  const element = h('div', { class: 'contrast-notice', role: 'status', 'aria-live': 'polite' });
  /** @type {Map<string, Promise<DesignContrast | null>>} */
  const cache = new Map();
  let asked = 0;

  /**
   * @param {string} designId
   * @param {string} garmentId
   * @returns {Promise<DesignContrast | null>}
   */
  function contrastOf(designId, garmentId) {
    const key = `${designId} ${garmentId}`;
    let p = cache.get(key);
    if (!p) {
      const q = new URLSearchParams({ garmentId });
      p = api('GET', `/api/v1/uploads/${encodeURIComponent(designId)}/contrast?${q}`).catch(() => null);
      cache.set(key, p);
    }
    return p;
  }

  /**
   * Shows the warning of the design on this colour (nothing when its ink shows well), and marks the colour radios
   * (`input[name=color]` under `picker`) whose colour has a warning.
   * @param {string} designId
   * @param {string} garmentId
   * @param {string} colorName
   * @param {Element} picker
   */
  async function update(designId, garmentId, colorName, picker) {
    const mine = ++asked;
    const c = await contrastOf(designId, garmentId);
    if (mine !== asked) return; // a later choice is being shown
    for (const input of picker.querySelectorAll('input[name=color]')) {
      const label = input.closest('label');
      const low = !!c?.colors.find((x) => x.name === /** @type {HTMLInputElement} */ (input).value)?.warning;
      label?.classList.toggle('low-contrast', low);
      if (low) label?.setAttribute('title', 'The design is hard to see on this colour');
      else label?.removeAttribute('title');
    }
    const w = c?.colors.find((x) => x.name === colorName)?.warning;
    render(element, w ? h('p', { class: 'notice warning' }, h('strong', {}, 'Low contrast: '), w.message) : null);
  }

  return { element, update };
}
