// Page 4: the mockup studio. Pick a design, garment, colour and zone; place the design by dragging, scaling and
// rotating its frame over the garment (or with the sliders, or the keyboard) while POST /api/v1/preview redraws the
// real render (free, one request in flight, the latest placement wins); generate the mockup (1 token) and download
// it; the history of generations with their status and webhook deliveries. This module keeps the page's state and
// puts the sections of ./studio/ together: the choices (choices.js), the stage (stage.js), the placement
// (placement.js), the live preview (preview.js), the client's own photo (own-photo.js), the contrast and print checks
// (contrast.js, print.js), Generate (generate.js) and the history (history.js).
import { allGarments } from '../api.js';
import { listDesigns } from '../design-library.js';
import { onboardingChecklist } from '../onboarding.js';
import { samplePicker } from '../samples.js';
import { field, h, heading, render } from '../dom.js';
import { colorRadios, designSelect, garmentSelect, zoneOptions } from './studio/choices.js';
import { contrastNotice } from './studio/contrast.js';
import { generateButton } from './studio/generate.js';
import { historySection } from './studio/history.js';
import { ownPhotoControls } from './studio/own-photo.js';
import { DEFAULT_PLACEMENT, manipulate, placementSliders } from './studio/placement.js';
import { livePreview } from './studio/preview.js';
import { printCheck } from './studio/print.js';
import { studioStage } from './studio/stage.js';

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
  const own = ownPhotoControls({ onChange: () => blankChanged() });
  const contrast = contrastNotice();
  const print = printCheck();
  const stage = studioStage(own.overlays);
  const result = h('div', { class: 'result', 'aria-live': 'polite' });

  const currentZone = () => state.garment.printZones.find((z) => z.id === state.zone) ?? state.garment.printZones[0];
  const blankUrl = () => (currentZone()?.view === 'back' ? state.color.backImageUrl : state.color.imageUrl);
  const zoneRegion = () => own.region() ?? currentZone().region;

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

  function layout() {
    if (currentZone()) stage.layout(zoneRegion(), !!own.url(), state.design.dimensions, state.placement);
  }

  // ---------------------------------------------------------------- live preview
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
    stage: stage.element,
    status: stage.status,
    isCurrent: ctx.isCurrent,
    request: body,
    shown: (blob, headers) => {
      own.update(headers);
      layout();
      const alt = `Preview: ${state.design.name} on the ${state.color.name} ${state.garment.name}, ${state.zone}`;
      stage.showPreview(blob, alt);
    },
  });

  let frameRequested = false;
  function placementChanged() {
    sliders.sync(state.placement);
    stage.showPlacement(state.placement);
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
      const thumb = state.color.thumbnailUrl && currentZone()?.view !== 'back' ? state.color.thumbnailUrl : null;
      stage.showBlank(thumb ?? blankUrl(), `${state.color.name} ${state.garment.name}`);
    }
    placementChanged();
  }

  manipulate(stage.frame, {
    placement: () => state.placement,
    zoneSizePx: () => stage.zoneSizePx(zoneRegion()),
    onChange: setPlacement,
  });
  new ResizeObserver(() => layout()).observe(stage.overlay);

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
  const history = historySection(ctx);
  const generate = generateButton({
    request: () => {
      const req = body();
      if (webhook.value.trim()) req.webhookUrl = webhook.value.trim();
      return req;
    },
    result,
    generated: () => {
      void history.reload(); // it shows its own errors
      void checklist.reload();
    },
  });

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
        stage.element,
        stage.status,
        print.view,
        own.note,
        own.notice,
        stage.placementNow,
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
  blankChanged();
}
