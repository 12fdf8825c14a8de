// The studio's "own blank photo" option: the customer's photo URL becomes the blank (garmentImageUrl), and after each
// preview the stage outlines the garment found in the photo and the print zone used, from the preview's headers
// (X-Garment-Box, X-Print-Area, X-Placement-Basis, X-Preview-Size: docs/compositing.md). The design's frame is laid
// out over that zone instead of the catalogue zone. When the preview warns (X-Warnings: garment_not_found,
// zone_clipped), the warning is shown with a "Draw the print area" button: the user drags a rectangle over the photo
// and it becomes the request's printArea (percent of the photo).
import { field, h } from '../../dom.js';

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
 * @param {string | null} header X-Warnings: a JSON array of {code, message}
 * @returns {{ code: string, message: string }[]}
 */
function parseWarnings(header) {
  try {
    const v = JSON.parse(header ?? '[]');
    return Array.isArray(v) ? v : [];
  } catch {
    return [];
  }
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
  /** @type {{ x: number, y: number, width: number, height: number } | null} the drawn print area, percent of the photo */
  let printArea = null;
  /** the last preview's size (the photo's proportions) */
  let photoSize = { w: 0, h: 0 };

  const warningText = h('span', {});
  const drawButton = h(
    'button',
    { type: 'button', class: 'secondary', onclick: () => startDrawing() },
    'Draw the print area',
  );
  const clearButton = h(
    'button',
    {
      type: 'button',
      class: 'secondary',
      hidden: true,
      onclick: () => {
        printArea = null;
        clearButton.hidden = true;
        opts.onChange();
      },
    },
    'Clear the drawn print area',
  );
  const warning = h('div', { class: 'garment-warning', role: 'status', hidden: true }, warningText, ' ', drawButton);
  const drawnBox = h('div', { class: 'drawn-area', 'aria-hidden': 'true', hidden: true });
  const drawLayer = h('div', {
    class: 'draw-layer',
    hidden: true,
    title: 'Drag over the photo to draw where to print',
  });
  /** @type {{ x: number, y: number } | null} */
  let drawStart = null;
  /** @param {PointerEvent} e @returns {{ x: number, y: number }} percent of the stage */
  const stagePoint = (e) => {
    const b = drawLayer.getBoundingClientRect();
    return {
      x: Math.min(100, Math.max(0, ((e.clientX - b.left) / (b.width || 1)) * 100)),
      y: Math.min(100, Math.max(0, ((e.clientY - b.top) / (b.height || 1)) * 100)),
    };
  };
  /** @param {{ x: number, y: number }} a @param {{ x: number, y: number }} b @returns {PercentRect} */
  const rectOf = (a, b) => ({
    x: Math.min(a.x, b.x),
    y: Math.min(a.y, b.y),
    width: Math.abs(a.x - b.x),
    height: Math.abs(a.y - b.y),
  });
  function startDrawing() {
    drawLayer.hidden = false;
    note.textContent = 'Drag over the photo to draw where to print.';
  }
  drawLayer.addEventListener('pointerdown', (e) => {
    e.preventDefault();
    drawLayer.setPointerCapture(e.pointerId);
    drawStart = stagePoint(e);
  });
  drawLayer.addEventListener('pointermove', (e) => {
    if (!drawStart) return;
    place(drawnBox, rectOf(drawStart, stagePoint(e)));
  });
  drawLayer.addEventListener('pointerup', (e) => {
    if (!drawStart) return;
    const r = rectOf(drawStart, stagePoint(e));
    drawStart = null;
    drawLayer.hidden = true;
    place(drawnBox, null);
    const area = toPhoto(r);
    if (!area) {
      note.textContent = 'That area is too small or off the photo: draw it again.';
      return;
    }
    printArea = area;
    clearButton.hidden = false;
    opts.onChange();
  });

  /**
   * A rectangle in percent of the stage, in percent of the photo (clipped to it), or null when too small.
   * @param {PercentRect} r
   */
  function toPhoto(r) {
    const { w, h: hh } = photoSize;
    if (!w || !hh) return null;
    const side = Math.max(w, hh);
    const offX = (side - w) / 2;
    const offY = (side - hh) / 2;
    const px = (/** @type {number} */ v, /** @type {number} */ off, /** @type {number} */ len) =>
      Math.min(100, Math.max(0, (((v / 100) * side - off) / len) * 100));
    const x0 = px(r.x, offX, w);
    const y0 = px(r.y, offY, hh);
    const x1 = px(r.x + r.width, offX, w);
    const y1 = px(r.y + r.height, offY, hh);
    const round = (/** @type {number} */ v) => Math.floor(v * 10) / 10;
    const x = round(x0);
    const y = round(y0);
    const width = round(x1 - x);
    const height = round(y1 - y);
    if (width < 1 || height < 1) return null;
    return { x, y, width, height };
  }

  /** @returns {string | null} the photo URL, when one is given */
  const url = () => {
    const v = input.value.trim();
    return v && input.validity.valid ? v : null;
  };

  input.addEventListener('change', () => {
    zone = null;
    printArea = null;
    clearButton.hidden = true;
    warning.hidden = true;
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
    /** outlines to put over the stage (the drawing layer last: it takes the pointer while drawing) */
    overlays: [garmentBox, zoneBox, drawnBox, drawLayer],
    /** the preview's warning with its "Draw the print area" button, and the button that clears a drawn area */
    notice: h('div', {}, warning, clearButton),
    note,
    url,
    /** @returns {{ x: number, y: number, width: number, height: number } | null} the drawn print area */
    printArea: () => (url() ? printArea : null),
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
      photoSize = { w, h: hh };
      const first = parseWarnings(headers.get('x-warnings'))[0];
      warning.hidden = !first;
      warning.dataset.code = first?.code ?? '';
      warningText.textContent = first ? first.message : '';
      zone = onStage(area, w, hh);
      place(zoneBox, zone);
      place(garmentBox, garment ? onStage(garment, w, hh) : null);
      note.textContent = printArea
        ? 'The print goes in the area you drew (dashed).'
        : headers.get('x-placement-basis') === 'garment'
          ? 'Garment found in your photo (outlined): the print zone (dashed) is fitted to it.'
          : 'No garment could be told from the background: the print zone is placed by the photo’s proportions.';
    },
  };
}
