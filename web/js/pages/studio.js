// Page 4: the mockup studio. Pick a design, garment, colour and zone; place the design by dragging, scaling and
// rotating its frame over the garment (or with the sliders, or the keyboard) while POST /api/v1/preview redraws the
// real render (free, one request in flight, the latest placement wins); generate the mockup (1 token) and download
// it; the history of generations with their status and webhook deliveries. This module keeps the page's state and
// puts the sections of ./studio/ together: the choices (choices.js), the placement (placement.js), the live preview
// (preview.js), the client's own photo (own-photo.js), the contrast and print checks (contrast.js, print.js) and the
// history (history.js).
import { allGarments, api, ApiError } from '../api.js';
import { listDesigns } from '../design-library.js';
import { onboardingChecklist } from '../onboarding.js';
import { samplePicker } from '../samples.js';
import { announce, busy, errorBox, errorMessage, field, h, heading, render } from '../dom.js';
import { colorRadios, designSelect, garmentSelect, zoneOptions } from './studio/choices.js';
import { contrastNotice } from './studio/contrast.js';
import { generationView, historySection } from './studio/history.js';
import { ownPhotoControls } from './studio/own-photo.js';
import { DEFAULT_PLACEMENT, frameBox, manipulate, placementSliders, placementWords } from './studio/placement.js';
import { livePreview } from './studio/preview.js';
import { printCheck } from './studio/print.js';

/** @typedef {import('../api.js').Schemas} Schemas */
/** @typedef {import('./studio/choices.js').GarmentColor} GarmentColor */
/** @typedef {import('./studio/placement.js').Placement} Placement */
/** @typedef {NonNullable<Schemas['GenerateRequest']['zone']>} ZoneId a print zone (a garment's printZones[].id) */

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
  const designChoice = designSelect(designs, state.design.id);
  const garmentChoice = garmentSelect(garments);
  const colorFieldset = h('fieldset', { class: 'colors' });
  const zoneSelect = h('select', { name: 'zone' });
  const sliders = placementSliders({
    onInput: (p) => setPlacement({ ...state.placement, ...p }),
    onReset: () => setPlacement({ ...DEFAULT_PLACEMENT }),
  });
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
      colorRadios(state.garment, state.color, (c) => {
        state.color = c;
        blankChanged();
      }),
    );
    render(zoneSelect, zoneOptions(state.garment, state.zone));
    if (!state.garment.printZones.some((z) => z.id === state.zone))
      state.zone = /** @type {ZoneId} */ (state.garment.printZones[0].id);
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
    const stageSize = { width: overlay.clientWidth || 1, height: overlay.clientHeight || 1 };
    const box = frameBox(r, stageSize, state.design.dimensions, state.placement);
    frame.style.width = `${box.width}px`;
    frame.style.height = `${box.height}px`;
    frame.style.left = `${box.left}px`;
    frame.style.top = `${box.top}px`;
    frame.style.transform = `rotate(${state.placement.rotation}deg)`;
  }

  // ---------------------------------------------------------------- live preview
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
  const preview = livePreview({
    stage,
    status: stageStatus,
    isCurrent: ctx.isCurrent,
    request: body,
    shown: (blob, headers) => {
      own.update(headers);
      layout();
      const url = URL.createObjectURL(blob);
      previewImg.src = url;
      previewImg.alt = `Preview: ${state.design.name} on the ${state.color.name} ${state.garment.name}, ${state.zone}`;
      if (lastUrl) URL.revokeObjectURL(lastUrl);
      lastUrl = url;
    },
  });

  let frameRequested = false;
  function placementChanged() {
    sliders.sync(state.placement);
    placementNow.textContent = placementWords(state.placement);
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
  /** @param {Placement} p */
  function setPlacement(p) {
    state.placement = p;
    placementChanged();
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

  manipulate(frame, {
    placement: () => state.placement,
    zoneSizePx: () => {
      const r = own.region() ?? currentZone().region;
      return { w: (r.width / 100) * overlay.clientWidth, h: (r.height / 100) * overlay.clientHeight };
    },
    onChange: setPlacement,
  });
  new ResizeObserver(() => layout()).observe(overlay);

  // ---------------------------------------------------------------- events of the selects
  designChoice.addEventListener('change', () => {
    state.design = designs.find((d) => d.id === designChoice.value) ?? state.design;
    void contrast.update(state.design.id, state.garment.id, state.color.name, colorFieldset);
    placementChanged();
  });
  garmentChoice.addEventListener('change', () => {
    state.garment = garments.find((g) => g.id === garmentChoice.value) ?? state.garment;
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
        field('Design', designChoice),
        field('Garment', garmentChoice),
        colorFieldset,
        field('Print zone', zoneSelect),
        own.field,
        sliders.fieldset,
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
  garmentChoice.value = state.garment.id;
  fillGarment();
  sliders.sync(state.placement);
  placementNow.textContent = placementWords(state.placement);
  blankChanged();
}
