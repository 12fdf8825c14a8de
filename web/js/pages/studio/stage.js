// The studio's stage: the blank or the latest preview, with the print zone and the design's frame over it (the
// frame is moved by ./placement.js's manipulate), the preview's status line and the placement in words for screen
// readers.
import { h } from '../../dom.js';
import { frameBox, placementWords } from './placement.js';

/** @typedef {import('./placement.js').Placement} Placement */
/** @typedef {import('./placement.js').Region} Region */

/** @param {Node[]} extraOverlays drawn over the blank below the zone (the own photo's outlines) */
export function studioStage(extraOverlays) {
  const image = h('img', { class: 'preview', alt: '' });
  const frame = h(
    'div',
    {
      class: 'frame',
      tabindex: '0',
      role: 'group',
      'aria-label': 'Design placement. Arrow keys move it, plus and minus resize it, [ and ] rotate it.',
      'aria-describedby': 'placement-now',
    },
    h('span', { class: 'handle scale', 'aria-hidden': 'true', title: 'Drag to resize' }),
    h('span', { class: 'handle rotate', 'aria-hidden': 'true', title: 'Drag to rotate' }),
  );
  const zoneBox = h('div', { class: 'zone', 'aria-hidden': 'true' });
  const overlay = h('div', { class: 'overlay' }, ...extraOverlays, zoneBox, frame);
  const status = h('p', { class: 'stage-status', id: 'preview-status' });
  const placementNow = h('p', { class: 'sr-only', id: 'placement-now', 'aria-live': 'polite' });
  const element = h('div', { class: 'stage', 'aria-describedby': 'preview-status' }, image, overlay);
  /** @type {string | null} */
  let lastUrl = null;

  return {
    element,
    overlay,
    frame,
    status,
    placementNow,
    /**
     * Positions the zone (hidden on a client's own photo, whose fitted zone is outlined instead) and the design's
     * frame over the stage, in percent of the blank (the engine's geometry).
     * @param {Region} r
     * @param {boolean} hideZone
     * @param {{ width: number, height: number }} design
     * @param {Placement} p
     */
    layout(r, hideZone, design, p) {
      zoneBox.hidden = hideZone;
      zoneBox.style.left = `${r.x}%`;
      zoneBox.style.top = `${r.y}%`;
      zoneBox.style.width = `${r.width}%`;
      zoneBox.style.height = `${r.height}%`;
      const box = frameBox(r, { width: overlay.clientWidth || 1, height: overlay.clientHeight || 1 }, design, p);
      frame.style.width = `${box.width}px`;
      frame.style.height = `${box.height}px`;
      frame.style.left = `${box.left}px`;
      frame.style.top = `${box.top}px`;
      frame.style.transform = `rotate(${p.rotation}deg)`;
    },
    /**
     * A zone's size on the stage, in pixels.
     * @param {Region} r
     */
    zoneSizePx: (r) => ({ w: (r.width / 100) * overlay.clientWidth, h: (r.height / 100) * overlay.clientHeight }),
    /** @param {Placement} p */
    showPlacement(p) {
      placementNow.textContent = placementWords(p);
    },
    /**
     * @param {string} src
     * @param {string} alt
     */
    showBlank(src, alt) {
      image.src = src;
      image.alt = alt;
    },
    /**
     * @param {Blob} blob
     * @param {string} alt
     */
    showPreview(blob, alt) {
      const url = URL.createObjectURL(blob);
      image.src = url;
      image.alt = alt;
      if (lastUrl) URL.revokeObjectURL(lastUrl);
      lastUrl = url;
    },
  };
}
