// The studio's print check before Generate (issue 36, docs/production.md#preflight): for the current design, garment,
// colour, zone and placement the server lays out the print as its print file would be and runs the same preflight
// (POST /api/v1/print-preflight, free, nothing kept); the warnings show under the controls. "Print view" draws that
// print at 1:1 physical scale: the zone's inches as CSS inches (96 CSS px to the inch, the browser's physical unit;
// a screen's real inch differs by its pixel density), the design where the print file puts it.
import { api } from '../../api.js';
import { h, render } from '../../dom.js';

/** @typedef {import('../../api.js').Schemas} Schemas */
/** @typedef {Schemas['PrintPreflightRequest']} PrintPreflightRequest */
/** @typedef {Schemas['PrintPreflight']} PrintPreflight */

/** Quiet time after the last change before the print is checked (it is image work of about a second). */
const SETTLE_MS = 600;

/** @param {PrintPreflight['preflight']['checks'][number]['level']} level */
const levelWord = (level) => (level === 'error' ? 'Do not print as it is' : 'Warning');

export function printCheck() {
  const element = h('div', { class: 'print-check', role: 'status', 'aria-live': 'polite' });
  const toggle = h('input', { type: 'checkbox', name: 'printView' });
  const view = h('div', { class: 'print-view', role: 'region', 'aria-label': 'Print view at 1:1' });
  view.hidden = true;
  const toggleField = h(
    'div',
    { class: 'field check' },
    h('label', {}, toggle, ' Print view (1:1)'),
    h('small', { class: 'hint' }, 'The print at its physical size, as the print file will be.'),
  );
  /** @type {ReturnType<typeof setTimeout> | null} */
  let timer = null;
  let asked = 0;
  /** @type {{ req: PrintPreflightRequest, designUrl: string, hex: string | null, rotation: number, answer: PrintPreflight } | null} */
  let last = null;

  toggle.addEventListener('change', () => drawView());

  /** The print at 1:1: the zone in inches on the garment's colour, the design at its place in it. */
  function drawView() {
    view.hidden = !toggle.checked;
    if (!toggle.checked || !last) {
      render(view);
      return;
    }
    const a = last.answer;
    const inch = (/** @type {number} */ px) => `${(px / a.dpi).toFixed(4)}in`;
    const img = h('img', {
      src: last.designUrl,
      alt: 'The design as printed',
      class: 'print-design',
    });
    img.style.left = inch(a.designBox.left);
    img.style.top = inch(a.designBox.top);
    img.style.width = inch(a.designBox.width);
    img.style.height = inch(a.designBox.height);
    img.style.transform = `rotate(${last.rotation}deg)`;
    const sheet = h('div', { class: 'print-sheet', 'data-width-in': String(a.widthIn) }, img);
    sheet.style.width = `${a.widthIn}in`;
    sheet.style.height = `${a.heightIn}in`;
    if (last.hex) sheet.style.backgroundColor = last.hex;
    render(
      view,
      h(
        'p',
        { class: 'muted small' },
        `${a.zone} print for size ${a.size}: ${a.widthIn} × ${a.heightIn} in (${a.widthPx} × ${a.heightPx} px at ${a.dpi} DPI), shown at 1:1. Scroll to see all of it.`,
      ),
      h('div', { class: 'print-scroll', tabindex: '0', 'aria-label': 'The print at 1:1, scrollable' }, sheet),
    );
  }

  /** @param {PrintPreflight} a */
  function drawWarnings(a) {
    const pf = a.preflight;
    if (pf.checks.length === 0) {
      render(
        element,
        h(
          'p',
          { class: 'notice success' },
          h('strong', {}, 'Print check: '),
          `ready to print (${pf.effectiveDpi} DPI).`,
        ),
      );
      return;
    }
    render(
      element,
      h(
        'div',
        { class: `notice ${pf.status === 'error' ? 'error' : 'warning'}` },
        h('strong', {}, pf.status === 'error' ? 'Print check: not printable as it is' : 'Print check: warnings'),
        h(
          'ul',
          { class: 'preflight-checks' },
          pf.checks.map((c) => h('li', { 'data-code': c.code }, `${levelWord(c.level)}: ${c.message}`)),
        ),
      ),
    );
  }

  /**
   * Checks the print of this placement once the changes settle (the latest wins).
   * @param {PrintPreflightRequest} req
   * @param {string | null} hex the garment colour
   */
  function update(req, hex) {
    if (timer) clearTimeout(timer);
    timer = setTimeout(async () => {
      timer = null;
      if (!element.isConnected) return; // the studio was left (or the user signed out) meanwhile
      const mine = ++asked;
      try {
        const answer = await api('POST', '/api/v1/print-preflight', req);
        if (mine !== asked) return;
        last = { req, designUrl: req.designUrl, hex, rotation: req.placement?.rotation ?? 0, answer };
        drawWarnings(answer);
        drawView();
      } catch {
        if (mine !== asked) return;
        // the preview says what is wrong with the placement; the print check stays quiet rather than repeat it
        last = null;
        render(element);
        drawView();
      }
    }, SETTLE_MS);
  }

  return { element, toggleField, view, update };
}
