// The onboarding checklist on the Studio (issue 39): make a mockup, create a key, call the API with the shown curl and
// that key, connect a store. Each tick comes from the server (GET /api/onboarding reads the account's generations,
// keys, request log and stores), so it is right in every browser; the list is gone once every step is done.
import { api } from './api.js';
import { h, render } from './dom.js';

/** @typedef {import('./api.js').Schemas['Onboarding']} Onboarding */

/**
 * The checklist (pure): each step with its tick, what to do and where.
 * @param {Onboarding} data
 * @param {string} origin the service's address, for the curl line
 */
export function checklistView(data, origin) {
  /** @type {Record<Onboarding['steps'][number]['id'], import('./types').Child>} */
  const what = {
    mockup: [
      'Make a mockup: choose a design (or a sample), a garment and a colour, then ',
      h('strong', {}, 'Generate'),
      '.',
    ],
    key: ['Create an API key on ', h('a', { href: '#/developers' }, 'Developers'), '.'],
    api_call: [
      'Call the API with that key, from a terminal:',
      h(
        'pre',
        {},
        h(
          'code',
          {},
          `MOCKUP_API_KEY=<your key>\ncurl -H "Authorization: Bearer $MOCKUP_API_KEY" ${origin}/api/v1/garments?limit=1`,
        ),
      ),
    ],
    store: ['Connect a store on ', h('a', { href: '#/storefront' }, 'Storefront'), ' to sell what you make.'],
  };
  const left = data.steps.filter((s) => !s.done).length;
  return [
    h('h2', { id: 'checklist-h' }, 'Getting started'),
    h('p', { class: 'muted' }, `${data.steps.length - left} of ${data.steps.length} done.`),
    h(
      'ol',
      {},
      data.steps.map((s) =>
        h(
          'li',
          { class: s.done ? 'done' : 'todo', 'data-step': s.id },
          h('span', { class: 'tick', 'aria-hidden': 'true' }, s.done ? '✓' : '○'),
          h('span', { class: 'sr-only' }, s.done ? 'Done: ' : 'To do: '),
          h('span', {}, what[s.id]),
        ),
      ),
    ),
  ];
}

/**
 * The checklist's section: hidden until loaded, and for good once every step is done. `ready` settles after the first
 * load (a page awaits it before showing itself, so nothing moves under the pointer when the list appears); `reload()`
 * reads it again (after a mockup is made).
 * @param {{ isCurrent: () => boolean }} ctx
 */
export function onboardingChecklist(ctx) {
  const section = h('section', { class: 'card checklist', 'aria-labelledby': 'checklist-h', hidden: true });
  async function reload() {
    const data = await api('GET', '/api/onboarding');
    if (!ctx.isCurrent()) return;
    section.hidden = data.done;
    render(section, checklistView(data, location.origin));
  }
  // a checklist that cannot load is left out: the page works without it
  const load = () => reload().catch(() => {});
  return { section, reload: load, ready: load() };
}
