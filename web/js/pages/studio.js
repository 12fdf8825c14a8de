// Page 4: the mockup studio. Pick a design, garment, colour and zone; place the design by dragging, scaling and
// rotating its frame over the garment (or with the sliders, or the keyboard) while POST /api/v1/preview redraws the
// real render (free, one request in flight, the latest placement wins); generate the mockup (1 token) and download
// it; the history of generations with their status and webhook deliveries.
import { allGarments, api, ApiError } from '../api.js';
import { listDesigns } from '../design-library.js';
import { onboardingChecklist } from '../onboarding.js';
import { samplePicker } from '../samples.js';
import { announce, busy, errorBox, errorMessage, field, h, heading, render, when } from '../dom.js';
import { contrastNotice } from './studio-contrast.js';
import { printCheck } from './studio-print.js';
import { ownPhotoControls } from './studio-own-photo.js';

/** @typedef {import('../api.js').Schemas} Schemas */
/** @typedef {Schemas['Garment']['colors'][number]} GarmentColor */
/** @typedef {{ x: number, y: number, scale: number, rotation: number }} Placement */
/** @typedef {keyof Placement} PlacementKey */
/** @typedef {NonNullable<Schemas['GenerateRequest']['zone']>} ZoneId a print zone (a garment's printZones[].id) */

/** @type {Placement} */
const DEFAULT_PLACEMENT = { x: 50, y: 35, scale: 0.8, rotation: 0 };
/** @type {PlacementKey[]} */
const PLACEMENT_KEYS = ['x', 'y', 'scale', 'rotation'];
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

/** @type {import('../types').Page} */
export async function studioPage(main, ctx) {
  render(main, heading('Mockup studio'), h('p', { 'aria-busy': 'true' }, 'Loading your designs…'));
  const checklist = onboardingChecklist(ctx);
  const designs = await listDesigns();
  if (!ctx.isCurrent()) return;
  if (designs.length === 0) {
    await checklist.ready;
    if (!ctx.isCurrent()) return;
    render(
      main,
      heading('Mockup studio'),
      checklist.section,
      samplePicker(ctx, 'Choose a sample design to place on a garment, or upload your own.'),
      h(
        'div',
        { class: 'card' },
        h('p', {}, 'Your own design (PNG, JPEG, WebP or GIF) is placed on garments here once uploaded.'),
        h('a', { href: '#/designs', class: 'button' }, 'Upload a design'),
      ),
      historySection(ctx).section,
    );
    return;
  }

  render(main, heading('Mockup studio'), h('p', { 'aria-busy': 'true' }, 'Loading the catalogue…'));
  const [garments] = await Promise.all([allGarments(), checklist.ready]);
  if (!ctx.isCurrent()) return;

  const garment = garments[0];
  if (!garment) throw new Error('The catalogue is empty');
  /**
   * @type {{ design: import('../design-library.js').LibraryUpload, garment: Schemas['Garment'], color: GarmentColor,
   *   zone: ZoneId, placement: Placement, applyTexture: boolean }}
   */
  const state = {
    design: designs.find((d) => d.id === ctx.params.get('design')) ?? designs[0],
    garment,
    color: garment.colors.find((c) => c.available) ?? garment.colors[0],
    zone: 'front',
    placement: { ...DEFAULT_PLACEMENT },
    applyTexture: true,
  };

  // ---------------------------------------------------------------- controls
  const designSelect = h(
    'select',
    { name: 'design' },
    designs.map((d) => h('option', { value: d.id, selected: d.id === state.design.id }, d.name)),
  );
  /** @type {Map<string, Schemas['Garment'][]>} */
  const byCategory = new Map();
  for (const g of garments) byCategory.set(g.category, [...(byCategory.get(g.category) ?? []), g]);
  const garmentSelect = h(
    'select',
    { name: 'garment' },
    [...byCategory].map(([cat, list]) =>
      h(
        'optgroup',
        { label: cat },
        list.map((g) => h('option', { value: g.id }, `${g.brand} ${g.name}`)),
      ),
    ),
  );
  const colorFieldset = h('fieldset', { class: 'colors' });
  const zoneSelect = h('select', { name: 'zone' });
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
    s.addEventListener('input', () => {
      state.placement[k] = Number(s.value);
      placementChanged();
    });
  }
  const texture = h('input', { type: 'checkbox', checked: true, name: 'applyTexture' });
  const webhook = h('input', { type: 'url', name: 'webhookUrl', placeholder: 'https://example.com/hooks/mockups' });

  // ---------------------------------------------------------------- stage
  const previewImg = h('img', { class: 'preview', alt: '' });
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
  const own = ownPhotoControls({ onChange: () => blankChanged() });
  const contrast = contrastNotice();
  const print = printCheck();
  const overlay = h('div', { class: 'overlay' }, ...own.overlays, zoneBox, frame);
  const stageStatus = h('p', { class: 'stage-status', id: 'preview-status' });
  const placementNow = h('p', { class: 'sr-only', id: 'placement-now', 'aria-live': 'polite' });
  const stage = h('div', { class: 'stage', 'aria-describedby': 'preview-status' }, previewImg, overlay);
  const result = h('div', { class: 'result', 'aria-live': 'polite' });

  const currentZone = () => state.garment.printZones.find((z) => z.id === state.zone) ?? state.garment.printZones[0];
  const blankUrl = () => (currentZone()?.view === 'back' ? state.color.backImageUrl : state.color.imageUrl);

  function fillGarment() {
    render(
      colorFieldset,
      h('legend', {}, 'Colour'),
      h(
        'div',
        { class: 'swatch-radios' },
        state.garment.colors.map((c) => {
          const chip = h('span', { class: 'chip', 'aria-hidden': 'true' });
          chip.style.background = c.hex;
          const radio = h('input', {
            type: 'radio',
            name: 'color',
            value: c.name,
            checked: c === state.color,
            disabled: !c.available,
            onchange: () => {
              state.color = c;
              blankChanged();
            },
          });
          return h('label', { class: 'swatch-radio' }, radio, chip, c.name);
        }),
      ),
    );
    render(
      zoneSelect,
      state.garment.printZones.map((z) => h('option', { value: z.id, selected: z.id === state.zone }, z.name)),
    );
    if (!state.garment.printZones.some((z) => z.id === state.zone))
      state.zone = /** @type {ZoneId} */ (state.garment.printZones[0].id);
  }

  function syncSliders() {
    for (const k of PLACEMENT_KEYS) {
      sliders[k].value = String(state.placement[k]);
      /** @type {HTMLOutputElement} */ (outputs[k]).textContent =
        k === 'scale' ? state.placement.scale.toFixed(2) : `${state.placement[k]}${k === 'rotation' ? '°' : ' %'}`;
    }
    const p = state.placement;
    placementNow.textContent = `Centre ${p.x} % across, ${p.y} % down, scale ${p.scale.toFixed(2)}, rotated ${p.rotation}°`;
  }

  /** Positions the zone and the design's frame over the stage, in percent of the blank (the engine's geometry). */
  function layout() {
    const z = currentZone();
    if (!z) return;
    const r = own.region() ?? z.region;
    zoneBox.hidden = !!own.url();
    zoneBox.style.left = `${r.x}%`;
    zoneBox.style.top = `${r.y}%`;
    zoneBox.style.width = `${r.width}%`;
    zoneBox.style.height = `${r.height}%`;
    const W = overlay.clientWidth || 1;
    const H = overlay.clientHeight || 1;
    const zw = (r.width / 100) * W;
    const zh = (r.height / 100) * H;
    const box = fitInside(state.design.dimensions, { width: zw, height: zh }, state.placement.scale);
    const cx = (r.x / 100) * W + (state.placement.x / 100) * zw;
    const cy = (r.y / 100) * H + (state.placement.y / 100) * zh;
    frame.style.width = `${box.width}px`;
    frame.style.height = `${box.height}px`;
    frame.style.left = `${cx - box.width / 2}px`;
    frame.style.top = `${cy - box.height / 2}px`;
    frame.style.transform = `rotate(${state.placement.rotation}deg)`;
  }

  // ---------------------------------------------------------------- live preview
  // One request in flight; changes made meanwhile are sent as one request when it ends (the latest placement
  // wins). Requests are also paced to the preview budget (120 a minute per key or user): after each answer the next
  // may go after (time to the window's reset) / (requests left), at least MIN_INTERVAL_MS. A long drag therefore
  // spends the budget evenly and never runs into 429; the frame follows the pointer at once regardless.
  const MIN_INTERVAL_MS = 80;
  let inFlight = false;
  let again = false;
  /** @type {ReturnType<typeof setTimeout> | null} */
  let timer = null;
  let nextAt = 0;
  let paused = false; // after a 429, until a preview succeeds: its message stays up
  /** @type {string | null} */
  let lastUrl = null;
  /** @returns {Schemas['GenerateRequest']} */
  const body = () => {
    const area = own.printArea();
    return {
      designUrl: state.design.url,
      garmentId: state.garment.id,
      garmentImageUrl: own.url() ?? state.color.imageUrl,
      color: state.color.name,
      zone: state.zone,
      placement: { ...state.placement },
      applyTexture: state.applyTexture,
      ...(area ? { printArea: area } : {}),
    };
  };

  /**
   * @param {boolean} on
   * @param {string} [text]
   */
  function busyStage(on, text) {
    if (on) {
      stage.setAttribute('aria-busy', 'true');
      stage.classList.add('rendering');
    } else {
      stage.removeAttribute('aria-busy');
      stage.classList.remove('rendering');
    }
    if (text) stageStatus.textContent = text;
  }

  /** Asks for a preview of the current state: now, when the one in flight ends, or when the pace allows. */
  function preview() {
    if (!ctx.isCurrent()) return;
    if (inFlight) {
      again = true;
      return;
    }
    const wait = nextAt - Date.now();
    if (wait > 0) {
      if (!timer) {
        timer = setTimeout(() => {
          timer = null;
          preview();
        }, wait);
        busyStage(true, paused ? undefined : 'Preview in a moment…');
      }
      return;
    }
    void render1();
  }

  async function render1() {
    inFlight = true;
    again = false;
    busyStage(true, 'Rendering preview…');
    try {
      /** @type {{ data: Blob, res: Response }} */
      const { data: blob, res } = await api('POST', '/api/v1/preview', body(), { withResponse: true });
      const left = Number(res.headers.get('x-ratelimit-remaining'));
      const reset = Number(res.headers.get('x-ratelimit-reset')) * 1000;
      if (res.headers.get('x-ratelimit-remaining') !== null && Number.isFinite(left) && Number.isFinite(reset))
        nextAt = Date.now() + Math.max(MIN_INTERVAL_MS, (reset - Date.now()) / Math.max(1, left));
      if (!ctx.isCurrent()) return;
      own.update(res.headers);
      layout();
      const url = URL.createObjectURL(blob);
      previewImg.src = url;
      previewImg.alt = `Preview: ${state.design.name} on the ${state.color.name} ${state.garment.name}, ${state.zone}`;
      if (lastUrl) URL.revokeObjectURL(lastUrl);
      lastUrl = url;
      paused = false;
      stageStatus.textContent = 'Preview up to date. It is free; generating the full-size mockup costs 1 token.';
    } catch (err) {
      if (err instanceof ApiError && err.status === 429) {
        const wait = Number(err.details?.retryAfter ?? 5);
        nextAt = Date.now() + wait * 1000;
        again = true; // the placement shown is not rendered yet: ask again when the budget is back
        paused = true;
        stageStatus.textContent = `Preview paused: the preview budget for this minute is used up. It resumes in ${wait} s.`;
      } else {
        stageStatus.textContent = `Preview failed: ${errorMessage(err)}`;
        announce(`Preview failed: ${errorMessage(err)}`, 'error');
      }
    } finally {
      inFlight = false;
      busyStage(false);
      if (again) preview();
    }
  }

  let frameRequested = false;
  function placementChanged() {
    syncSliders();
    if (frameRequested) return;
    frameRequested = true;
    requestAnimationFrame(() => {
      frameRequested = false;
      layout();
      preview();
      // the print check before Generate (issue 36): the zone's print of this placement, checked as its file will be
      const { designUrl, garmentId, color, zone, placement } = body();
      print.update({ designUrl, garmentId, color, zone, placement }, state.color.hex ?? null);
    });
  }

  function blankChanged() {
    void contrast.update(state.design.id, state.garment.id, state.color.name, colorFieldset);
    // an own photo shows up with the next preview (the studio only reads it through the API)
    if (!own.url()) {
      previewImg.src =
        state.color.thumbnailUrl && currentZone()?.view !== 'back' ? state.color.thumbnailUrl : blankUrl();
      previewImg.alt = `${state.color.name} ${state.garment.name}`;
    }
    placementChanged();
  }

  // ---------------------------------------------------------------- direct manipulation
  function zoneSizePx() {
    const r = own.region() ?? currentZone().region;
    return { w: (r.width / 100) * overlay.clientWidth, h: (r.height / 100) * overlay.clientHeight };
  }
  function frameCentre() {
    const b = frame.getBoundingClientRect();
    return { x: b.left + b.width / 2, y: b.top + b.height / 2 };
  }
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
    const c = frameCentre();
    drag = {
      handle,
      startX: e.clientX,
      startY: e.clientY,
      start: { ...state.placement },
      dist0: Math.max(4, Math.hypot(e.clientX - c.x, e.clientY - c.y)),
      centre: c,
    };
  });
  frame.addEventListener('pointermove', (e) => {
    if (!drag) return;
    const p = state.placement;
    if (drag.handle === 'move') {
      const z = zoneSizePx();
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
    placementChanged();
  });
  const endDrag = () => {
    drag = null;
  };
  frame.addEventListener('pointerup', endDrag);
  frame.addEventListener('pointercancel', endDrag);
  frame.addEventListener('keydown', (e) => {
    const p = state.placement;
    const step = e.shiftKey ? 5 : 1;
    /** @type {Record<string, (() => number) | undefined>} */
    const keys = {
      ArrowLeft: () => (p.x = clamp(p.x - step, 0, 100)),
      ArrowRight: () => (p.x = clamp(p.x + step, 0, 100)),
      ArrowUp: () => (p.y = clamp(p.y - step, 0, 100)),
      ArrowDown: () => (p.y = clamp(p.y + step, 0, 100)),
      '+': () => (p.scale = round(clamp(p.scale + 0.02 * step, 0.1, 1), 2)),
      '=': () => (p.scale = round(clamp(p.scale + 0.02 * step, 0.1, 1), 2)),
      '-': () => (p.scale = round(clamp(p.scale - 0.02 * step, 0.1, 1), 2)),
      ']': () => (p.rotation = clamp(p.rotation + 5 * step, -180, 180)),
      '[': () => (p.rotation = clamp(p.rotation - 5 * step, -180, 180)),
    };
    const act = keys[e.key];
    if (!act) return;
    e.preventDefault();
    act();
    placementChanged();
  });
  new ResizeObserver(() => layout()).observe(overlay);

  // ---------------------------------------------------------------- events of the selects
  designSelect.addEventListener('change', () => {
    state.design = designs.find((d) => d.id === designSelect.value) ?? state.design;
    void contrast.update(state.design.id, state.garment.id, state.color.name, colorFieldset);
    placementChanged();
  });
  garmentSelect.addEventListener('change', () => {
    state.garment = garments.find((g) => g.id === garmentSelect.value) ?? state.garment;
    state.color = state.garment.colors.find((c) => c.available) ?? state.garment.colors[0];
    fillGarment();
    blankChanged();
  });
  zoneSelect.addEventListener('change', () => {
    state.zone = /** @type {ZoneId} */ (zoneSelect.value); // one of the garment's printZones
    blankChanged();
  });
  texture.addEventListener('change', () => {
    state.applyTexture = texture.checked;
    placementChanged();
  });

  // ---------------------------------------------------------------- generate
  const generate = h('button', { type: 'button', class: 'primary' }, 'Generate mockup (1 token)');
  generate.addEventListener('click', () =>
    busy(generate, result, 'Generating…', async () => {
      render(result, h('p', {}, 'Rendering the full-size mockup: this takes a second or two.'));
      try {
        const req = body();
        if (webhook.value.trim()) req.webhookUrl = webhook.value.trim();
        /** @type {Schemas['Generation']} */
        let g = await api('POST', '/api/v1/generate', req);
        for (let i = 0; i < 120 && (g.status === 'pending' || g.status === 'processing'); i++) {
          await new Promise((r) => setTimeout(r, 1000));
          g = await api('GET', `/api/v1/generations/${encodeURIComponent(g.id)}`);
        }
        render(result, generationView(g));
        announce(
          g.status === 'completed' ? 'Mockup ready' : `Generation ${g.status}`,
          g.status === 'failed' ? 'error' : 'info',
        );
        void history.reload(); // it shows its own errors
        void checklist.reload();
      } catch (err) {
        const extra =
          err instanceof ApiError && err.code === 'insufficient_tokens'
            ? ` You have ${err.details?.available ?? 0} tokens: see Billing.`
            : '';
        render(result, errorBox(new Error(errorMessage(err) + extra)));
      }
    }),
  );

  const resetButton = h(
    'button',
    {
      type: 'button',
      class: 'link',
      onclick: () => {
        state.placement = { ...DEFAULT_PLACEMENT };
        placementChanged();
      },
    },
    'Reset placement',
  );

  const history = historySection(ctx);
  render(
    main,
    heading('Mockup studio'),
    h(
      'div',
      { class: 'studio' },
      h(
        'form',
        { class: 'card controls', onsubmit: (e) => e.preventDefault(), 'aria-label': 'Mockup settings' },
        field('Design', designSelect),
        field('Garment', garmentSelect),
        colorFieldset,
        field('Print zone', zoneSelect),
        own.field,
        h(
          'fieldset',
          { class: 'placement' },
          h('legend', {}, 'Placement'),
          PLACEMENT_KEYS.map((k) =>
            h('div', { class: 'slider' }, h('label', { for: `slider-${k}` }, SLIDER_LABELS[k]), sliders[k], outputs[k]),
          ),
          resetButton,
        ),
        h('div', { class: 'field check' }, h('label', {}, texture, ' Fabric texture')),
        field('Callback URL (optional)', webhook, 'Receives a signed POST when the mockup is ready.'),
        contrast.element,
        print.element,
        print.toggleField,
        generate,
      ),
      h(
        'div',
        { class: 'stage-col' },
        stage,
        stageStatus,
        print.view,
        own.note,
        own.notice,
        placementNow,
        h(
          'p',
          { class: 'muted small' },
          'Drag the frame to move the design, its corner to resize, its top knob to rotate. With the keyboard: focus the frame, then arrows, + and −, [ and ].',
        ),
        result,
        checklist.section,
      ),
    ),
    samplePicker(ctx, 'Place one of our sample designs instead.'),
    history.section,
  );
  garmentSelect.value = state.garment.id;
  fillGarment();
  syncSliders();
  blankChanged();
}

/** @type {Record<PlacementKey, string>} */
const SLIDER_LABELS = { x: 'Across', y: 'Down', scale: 'Size', rotation: 'Rotation' };

/**
 * A finished (or failed) generation: the mockup with a download link.
 * @param {Schemas['Generation']} g
 */
function generationView(g) {
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
 * Generations, newest first, with a "load more" and each one's webhook deliveries on demand.
 * @param {import('../types').PageContext} ctx
 */
function historySection(ctx) {
  const list = h('div', { class: 'history-list' });
  const more = h('button', { type: 'button', hidden: true }, 'Load more');
  /** @type {string | null} */
  let cursor = null;

  /** @param {boolean} reset */
  async function load(reset) {
    if (reset) cursor = null;
    const q = new URLSearchParams({ limit: '10', ...(cursor ? { cursor } : {}) });
    /** @type {Schemas['GenerationPage']} */
    const page = await api('GET', `/api/v1/generations?${q}`);
    if (!ctx.isCurrent()) return;
    if (reset) render(list);
    if (reset && page.generations.length === 0) list.append(h('p', { class: 'muted' }, 'No generations yet.'));
    for (const g of page.generations) list.append(row(g));
    cursor = page.pagination.nextCursor;
    more.hidden = !page.pagination.hasMore;
  }

  /** @param {Schemas['Generation']} g */
  function row(g) {
    const deliveries = h('div', { class: 'deliveries' });
    const show = h('button', { type: 'button', class: 'link' }, 'Webhook deliveries');
    show.addEventListener('click', () =>
      busy(show, deliveries, 'Loading…', async () => {
        try {
          /** @type {Schemas['DeliveryList']} */
          const { deliveries: ds } = await api('GET', `/api/v1/generations/${encodeURIComponent(g.id)}/deliveries`);
          render(
            deliveries,
            ds.length === 0
              ? h('p', { class: 'muted' }, 'No callback: this generation had no webhookUrl.')
              : ds.map((d) =>
                  h(
                    'div',
                    { class: 'delivery' },
                    h(
                      'p',
                      {},
                      h('span', { class: `badge ${d.status}` }, d.status),
                      ` ${d.event} to `,
                      h('code', {}, d.url),
                    ),
                    h(
                      'ol',
                      {},
                      d.attempts.map((a) =>
                        h(
                          'li',
                          {},
                          `${when(a.attemptedAt)}: ${a.statusCode ?? 'no answer'} in ${a.durationMs} ms${a.error ? ` (${a.error})` : ''}`,
                        ),
                      ),
                    ),
                  ),
                ),
          );
        } catch (err) {
          render(deliveries, errorBox(err));
        }
      }),
    );
    return h(
      'article',
      { class: 'history-item', 'data-generation-id': g.id },
      g.thumbnailUrl
        ? h(
            'a',
            { href: g.mockupUrl, target: '_blank', rel: 'noopener' },
            h('img', { src: g.thumbnailUrl, alt: `Mockup ${g.id}`, loading: 'lazy' }),
          )
        : h('div', { class: 'thumb-placeholder', 'aria-hidden': 'true' }),
      h(
        'div',
        {},
        h('p', {}, h('span', { class: `badge ${g.status}` }, g.status), ' ', h('code', {}, g.id)),
        h('p', { class: 'muted' }, `${g.garmentId}, ${g.color}, ${g.zone} · ${when(g.createdAt)}`),
        g.error ? h('p', { class: 'error' }, g.error) : null,
        h(
          'p',
          {},
          g.mockupUrl ? h('a', { href: g.mockupUrl, download: `${g.id}.jpg` }, 'Download') : null,
          g.mockupUrl ? ' · ' : null,
          show,
        ),
        deliveries,
      ),
    );
  }

  more.addEventListener('click', () => busy(more, null, 'Loading…', () => load(false)));
  const section = h(
    'section',
    { class: 'history', 'aria-labelledby': 'history-h' },
    h('h2', { id: 'history-h' }, 'History'),
    list,
    more,
  );
  load(true).catch((err) => render(list, errorBox(err)));
  return { section, reload: () => load(true).catch((err) => render(list, errorBox(err))) };
}
