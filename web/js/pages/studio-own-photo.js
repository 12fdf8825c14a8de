// The studio's "own blank photo" option: the customer's photo URL becomes the blank (garmentImageUrl), and after each
// preview the stage outlines the garment found in the photo and the print zone used, from the preview's headers
// (X-Garment-Box, X-Print-Area, X-Placement-Basis, X-Preview-Size: docs/compositing.md). The design's frame is laid
// out over that zone instead of the catalogue zone.
import { field, h } from '../dom.js';

/** @typedef {{ left: number, top: number, width: number, height: number }} PixelBox */
/** @typedef {{ x: number, y: number, width: number, height: number }} PercentRect percent of the stage */

/**
 * @param {string | null} header "<left>,<top>,<width>,<height>"
 * @returns {PixelBox | null}
 */
function parseBox(header) {
  if (!header) return null;
  const v = header.split(',').map(Number);
  if (v.length !== 4 || v.some((n) => !Number.isFinite(n))) return null;
  return { left: v[0] ?? 0, top: v[1] ?? 0, width: v[2] ?? 0, height: v[3] ?? 0 };
}

/**
 * A box in the preview's pixels, in percent of the square stage the preview is shown in (object-fit: contain).
 * @param {PixelBox} b
 * @param {number} w preview width
 * @param {number} h preview height
 * @returns {PercentRect}
 */
function onStage(b, w, h) {
  const side = Math.max(w, h);
  const offX = (side - w) / 2;
  const offY = (side - h) / 2;
  return {
    x: ((offX + b.left) / side) * 100,
    y: ((offY + b.top) / side) * 100,
    width: (b.width / side) * 100,
    height: (b.height / side) * 100,
  };
}

/**
 * @param {HTMLElement} el
 * @param {PercentRect | null} r
 */
function place(el, r) {
  el.hidden = !r;
  if (!r) return;
  el.style.left = `${r.x}%`;
  el.style.top = `${r.y}%`;
  el.style.width = `${r.width}%`;
  el.style.height = `${r.height}%`;
}

/**
 * @param {{ onChange: () => void }} opts called when the URL is set, changed or cleared
 */
export function ownPhotoControls(opts) {
  const input = /** @type {HTMLInputElement} */ (
    h('input', { type: 'url', name: 'ownPhotoUrl', placeholder: 'https://example.com/my-white-tee.jpg' })
  );
  const garmentBox = h('div', { class: 'found-garment', 'aria-hidden': 'true', hidden: true });
  const zoneBox = h('div', { class: 'zone found-zone', 'aria-hidden': 'true', hidden: true });
  const note = h('p', { class: 'muted small', 'aria-live': 'polite' });
  /** @type {PercentRect | null} */
  let zone = null;

  /** @returns {string | null} the photo URL, when one is given */
  const url = () => {
    const v = input.value.trim();
    return v && input.validity.valid ? v : null;
  };

  input.addEventListener('change', () => {
    zone = null;
    place(garmentBox, null);
    place(zoneBox, null);
    note.textContent = url() ? 'Finding the garment in your photo…' : '';
    opts.onChange();
  });

  return {
    /** the form field */
    field: field(
      'Your own blank photo (URL, optional)',
      input,
      'A photo of the garment on a plain or transparent background: the print zone is fitted to the garment found in it.',
    ),
    /** outlines to put over the stage */
    overlays: [garmentBox, zoneBox],
    note,
    url,
    /** @returns {PercentRect | null} the print zone on the stage, once a preview of the own photo said where it is */
    region: () => (url() ? zone : null),
    /**
     * Reads where the garment and the zone are from a preview's headers.
     * @param {Headers} headers
     */
    update(headers) {
      if (!url()) return;
      const size = (headers.get('x-preview-size') ?? '').split('x').map(Number);
      const w = size[0] ?? 0;
      const hh = size[1] ?? 0;
      const area = parseBox(headers.get('x-print-area'));
      const garment = parseBox(headers.get('x-garment-box'));
      if (!w || !hh || !area) return;
      zone = onStage(area, w, hh);
      place(zoneBox, zone);
      place(garmentBox, garment ? onStage(garment, w, hh) : null);
      note.textContent =
        headers.get('x-placement-basis') === 'garment'
          ? 'Garment found in your photo (outlined): the print zone (dashed) is fitted to it.'
          : 'No garment could be told from the background: the print zone is placed by the photo’s proportions.';
    },
  };
}
