// The studio's placement: where the design sits in the print zone (centre in percent of the zone, scale, rotation),
// its geometry over the stage (the engine's), the sliders, and direct manipulation of the design's frame by pointer
// and keyboard.
import { h } from '../../dom.js';

/** @typedef {{ x: number, y: number, scale: number, rotation: number }} Placement */
/** @typedef {keyof Placement} PlacementKey */
/** @typedef {{ x: number, y: number, width: number, height: number }} Region a zone, in percent of the blank */

/** @type {Placement} */
export const DEFAULT_PLACEMENT = { x: 50, y: 35, scale: 0.8, rotation: 0 };
/** @type {PlacementKey[]} */
const PLACEMENT_KEYS = ['x', 'y', 'scale', 'rotation'];
/** @type {Record<PlacementKey, string>} */
const SLIDER_LABELS = { x: 'Across', y: 'Down', scale: 'Size', rotation: 'Rotation' };

/** @type {(v: number, lo: number, hi: number) => number} */
const clamp = (v, lo, hi) => Math.min(hi, Math.max(lo, v));
/** @type {(v: number, d: number) => number} */
const round = (v, d) => Math.round(v * 10 ** d) / 10 ** d;

/**
 * Where a design of size `d` lands in a zone of size `z` at `scale`: fits inside keeping its aspect (the engine's).
 * @param {{ width: number, height: number }} d
 * @param {{ width: number, height: number }} z
 * @param {number} scale
 */
function fitInside(d, z, scale) {
  const k = Math.min(z.width / d.width, z.height / d.height) * scale;
  return { width: d.width * k, height: d.height * k };
}

/**
 * The design's frame over a stage of `stage` pixels: its box (left, top, width, height in px) and rotation.
 * @param {Region} r the zone
 * @param {{ width: number, height: number }} stage
 * @param {{ width: number, height: number }} design the design's pixel size
 * @param {Placement} p
 */
export function frameBox(r, stage, design, p) {
  const zw = (r.width / 100) * stage.width;
  const zh = (r.height / 100) * stage.height;
  const box = fitInside(design, { width: zw, height: zh }, p.scale);
  const cx = (r.x / 100) * stage.width + (p.x / 100) * zw;
  const cy = (r.y / 100) * stage.height + (p.y / 100) * zh;
  return { left: cx - box.width / 2, top: cy - box.height / 2, width: box.width, height: box.height };
}

/**
 * The placement after a key press on the frame (arrows move, + and − resize, [ and ] rotate; Shift: five times as
 * far), or null for another key.
 * @param {Placement} p
 * @param {string} key
 * @param {boolean} shift
 * @returns {Placement | null}
 */
export function placementAfterKey(p, key, shift) {
  const step = shift ? 5 : 1;
  const scaled = (/** @type {number} */ d) => ({ ...p, scale: round(clamp(p.scale + d * step, 0.1, 1), 2) });
  /** @type {Record<string, (() => Placement) | undefined>} */
  const keys = {
    ArrowLeft: () => ({ ...p, x: clamp(p.x - step, 0, 100) }),
    ArrowRight: () => ({ ...p, x: clamp(p.x + step, 0, 100) }),
    ArrowUp: () => ({ ...p, y: clamp(p.y - step, 0, 100) }),
    ArrowDown: () => ({ ...p, y: clamp(p.y + step, 0, 100) }),
    '+': () => scaled(0.02),
    '=': () => scaled(0.02),
    '-': () => scaled(-0.02),
    ']': () => ({ ...p, rotation: clamp(p.rotation + 5 * step, -180, 180) }),
    '[': () => ({ ...p, rotation: clamp(p.rotation - 5 * step, -180, 180) }),
  };
  return keys[key]?.() ?? null;
}

/** @param {Placement} p */
export const placementWords = (p) =>
  `Centre ${p.x} % across, ${p.y} % down, scale ${p.scale.toFixed(2)}, rotated ${p.rotation}°`;

/**
 * The placement's sliders, in a fieldset with a Reset button: `sync(p)` shows a placement, `onInput(p)` is told of
 * each change made with them.
 * @param {{ onInput: (p: Partial<Placement>) => void, onReset: () => void }} opts
 */
export function placementSliders(opts) {
  const sliders = {
    x: h('input', { type: 'range', min: '0', max: '100', step: '0.1', name: 'x' }),
    y: h('input', { type: 'range', min: '0', max: '100', step: '0.1', name: 'y' }),
    scale: h('input', { type: 'range', min: '0.1', max: '1', step: '0.01', name: 'scale' }),
    rotation: h('input', { type: 'range', min: '-180', max: '180', step: '1', name: 'rotation' }),
  };
  const outputs = Object.fromEntries(PLACEMENT_KEYS.map((k) => [k, h('output', { for: `slider-${k}` })]));
  for (const k of PLACEMENT_KEYS) {
    const s = sliders[k];
    s.id = `slider-${k}`;
    s.addEventListener('input', () => opts.onInput({ [k]: Number(s.value) }));
  }
  const fieldset = h(
    'fieldset',
    { class: 'placement' },
    h('legend', {}, 'Placement'),
    PLACEMENT_KEYS.map((k) =>
      h('div', { class: 'slider' }, h('label', { for: `slider-${k}` }, SLIDER_LABELS[k]), sliders[k], outputs[k]),
    ),
    h('button', { type: 'button', class: 'link', onclick: () => opts.onReset() }, 'Reset placement'),
  );
  /** @param {Placement} p */
  const sync = (p) => {
    for (const k of PLACEMENT_KEYS) {
      sliders[k].value = String(p[k]);
      /** @type {HTMLOutputElement} */ (outputs[k]).textContent =
        k === 'scale' ? p.scale.toFixed(2) : `${p[k]}${k === 'rotation' ? '°' : ' %'}`;
    }
  };
  return { fieldset, sync };
}

/**
 * Direct manipulation of the design's frame: dragging it moves the design, its corner handle resizes it, its top knob
 * rotates it; the keyboard does the same (placementAfterKey).
 * @param {HTMLElement} frame
 * @param {{ placement: () => Placement, zoneSizePx: () => { w: number, h: number },
 *   onChange: (p: Placement) => void }} opts
 */
export function manipulate(frame, opts) {
  /**
   * @type {{ handle: 'scale' | 'rotate' | 'move', startX: number, startY: number, start: Placement, dist0: number,
   *   centre: { x: number, y: number } } | null}
   */
  let drag = null;
  frame.addEventListener('pointerdown', (e) => {
    e.preventDefault();
    frame.setPointerCapture(e.pointerId);
    frame.focus();
    const target = e.target instanceof Element ? e.target : null;
    const handle = target?.classList.contains('scale')
      ? 'scale'
      : target?.classList.contains('rotate')
        ? 'rotate'
        : 'move';
    const b = frame.getBoundingClientRect();
    const c = { x: b.left + b.width / 2, y: b.top + b.height / 2 };
    drag = {
      handle,
      startX: e.clientX,
      startY: e.clientY,
      start: { ...opts.placement() },
      dist0: Math.max(4, Math.hypot(e.clientX - c.x, e.clientY - c.y)),
      centre: c,
    };
  });
  frame.addEventListener('pointermove', (e) => {
    if (!drag) return;
    const p = { ...opts.placement() };
    if (drag.handle === 'move') {
      const z = opts.zoneSizePx();
      p.x = round(clamp(drag.start.x + ((e.clientX - drag.startX) / z.w) * 100, 0, 100), 1);
      p.y = round(clamp(drag.start.y + ((e.clientY - drag.startY) / z.h) * 100, 0, 100), 1);
    } else if (drag.handle === 'scale') {
      const d = Math.hypot(e.clientX - drag.centre.x, e.clientY - drag.centre.y);
      p.scale = round(clamp(drag.start.scale * (d / drag.dist0), 0.1, 1), 2);
    } else {
      // the handle sits above the centre: the angle from "up", clockwise
      const a = (Math.atan2(e.clientX - drag.centre.x, -(e.clientY - drag.centre.y)) * 180) / Math.PI;
      p.rotation = Math.round(clamp(a, -180, 180));
    }
    opts.onChange(p);
  });
  const endDrag = () => {
    drag = null;
  };
  frame.addEventListener('pointerup', endDrag);
  frame.addEventListener('pointercancel', endDrag);
  frame.addEventListener('keydown', (e) => {
    const next = placementAfterKey(opts.placement(), e.key, e.shiftKey);
    if (!next) return;
    e.preventDefault();
    opts.onChange(next);
  });
}
