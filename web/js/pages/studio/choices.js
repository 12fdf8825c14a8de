// The studio's choices of what to render: the design, the garment (grouped by category), its colour (swatch radios)
// and its print zone. Pure render functions: the page keeps the state and listens.
import { h } from '../../dom.js';

/** @typedef {import('../../api.js').Schemas} Schemas */
/** @typedef {Schemas['Garment']['colors'][number]} GarmentColor */

/**
 * @param {import('../../design-library.js').LibraryUpload[]} designs
 * @param {string} chosen the chosen design's id
 */
export function designSelect(designs, chosen) {
  return h(
    'select',
    { name: 'design' },
    designs.map((d) => h('option', { value: d.id, selected: d.id === chosen }, d.name)),
  );
}

/** @param {Schemas['Garment'][]} garments */
export function garmentSelect(garments) {
  /** @type {Map<string, Schemas['Garment'][]>} */
  const byCategory = new Map();
  for (const g of garments) byCategory.set(g.category, [...(byCategory.get(g.category) ?? []), g]);
  return h(
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
}

/**
 * The colours of a garment as swatch radios (an unavailable colour disabled): the fieldset's content.
 * @param {Schemas['Garment']} garment
 * @param {GarmentColor} chosen
 * @param {(c: GarmentColor) => void} onPick
 */
export function colorRadios(garment, chosen, onPick) {
  return [
    h('legend', {}, 'Colour'),
    h(
      'div',
      { class: 'swatch-radios' },
      garment.colors.map((c) => {
        const chip = h('span', { class: 'chip', 'aria-hidden': 'true' });
        chip.style.background = c.hex;
        const radio = h('input', {
          type: 'radio',
          name: 'color',
          value: c.name,
          checked: c === chosen,
          disabled: !c.available,
          onchange: () => onPick(c),
        });
        return h('label', { class: 'swatch-radio' }, radio, chip, c.name);
      }),
    ),
  ];
}

/**
 * A garment's print zones as options.
 * @param {Schemas['Garment']} garment
 * @param {string} chosen
 */
export const zoneOptions = (garment, chosen) =>
  garment.printZones.map((z) => h('option', { value: z.id, selected: z.id === chosen }, z.name));
