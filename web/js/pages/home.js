// Page: the front page for signed-out visitors (#/, issue 39): what the service does, a strip of real mockups this
// service rendered from its sample designs (GET /api/showcase), the plans and token packs with prices
// (GET /api/payments/plans), the API reference and its quick start, and Sign in / Create an account. Every call is
// public: a visitor's first page makes no request that fails.
import { api } from '../api.js';
import { errorBox, h, heading, render, usd } from '../dom.js';

/** @typedef {import('../api.js').Schemas} Schemas */

/**
 * The mockups strip (pure).
 * @param {Schemas['Showcase']['mockups']} mockups
 */
export function showcaseStrip(mockups) {
  if (mockups.length === 0) return h('p', { class: 'muted' }, 'The sample mockups are not rendered yet.');
  return h(
    'ul',
    { class: 'showcase', 'aria-label': 'Mockups made by this service' },
    mockups.map((m) =>
      h(
        'li',
        {},
        h(
          'figure',
          {},
          h('img', {
            src: m.imageUrl,
            width: String(m.width),
            height: String(m.height),
            alt: `The sample design "${m.sampleName}" printed on a ${m.color} ${m.garmentName}`,
          }),
          h('figcaption', {}, `${m.sampleName} · ${m.garmentName}, ${m.color}`),
        ),
      ),
    ),
  );
}

/**
 * Plans and packs with their prices (pure).
 * @param {Schemas['Plans']} plans
 */
export function priceCards(plans) {
  return [
    h(
      'ul',
      { class: 'cards plans', 'aria-label': 'Plans' },
      plans.plans.map((p) =>
        h(
          'li',
          { class: 'card plan' },
          h('h3', {}, p.name),
          h(
            'p',
            { class: 'big' },
            p.priceUsd === null || p.priceUsd === undefined
              ? 'By arrangement'
              : Number(p.priceUsd) === 0
                ? 'Free'
                : `${usd(p.priceUsd)}/month`,
          ),
          h('p', {}, p.tokensPerMonth === null ? 'Custom allowance' : `${p.tokensPerMonth} tokens a month`),
        ),
      ),
    ),
    plans.tokenPacks?.length
      ? h(
          'ul',
          { class: 'cards plans', 'aria-label': 'Token packs' },
          plans.tokenPacks.map((t) =>
            h(
              'li',
              { class: 'card plan' },
              h('h3', {}, `${t.tokens} tokens`),
              h('p', { class: 'big' }, usd(t.priceUsd)),
            ),
          ),
        )
      : null,
  ];
}

/** @type {import('../types').Page} */
export async function homePage(main, ctx) {
  const strip = h('div', { class: 'showcase-box', 'aria-busy': 'true' }, h('p', { class: 'muted' }, 'Rendering…'));
  const prices = h('div', { 'aria-busy': 'true' });
  render(
    main,
    h(
      'section',
      { class: 'hero' },
      heading('Mockups of your designs on real garments, in seconds'),
      h(
        'p',
        { class: 'lead' },
        'Upload a design (or try one of ours), place it on a t-shirt, hoodie or sweatshirt from the catalogue, and get a photo-real mockup with a printability check and print prices. ',
        'Everything the dashboard does, your server can do through the API: keys, callbacks, test mode and a request log included.',
      ),
      h(
        'div',
        { class: 'buttons' },
        h('a', { href: '#/signup', class: 'button primary' }, 'Create an account'),
        h('a', { href: '#/signin', class: 'button' }, 'Sign in'),
        h('a', { href: '/docs' }, 'API reference'),
        h('a', { href: '/docs#description/quick-start' }, 'Quick start'),
      ),
    ),
    h(
      'section',
      { 'aria-labelledby': 'showcase-h' },
      h('h2', { id: 'showcase-h' }, 'Made here'),
      h(
        'p',
        { class: 'muted' },
        'Rendered by this service from its sample designs on catalogue blanks: what you get, not stock photos.',
      ),
      strip,
    ),
    h(
      'section',
      { 'aria-labelledby': 'prices-h' },
      h('h2', { id: 'prices-h' }, 'Plans and token packs'),
      h(
        'p',
        { class: 'muted' },
        'A mockup costs 1 token; uploads, analysis and previews are free. A new account gets free tokens.',
      ),
      prices,
    ),
  );
  await Promise.all([
    api('GET', '/api/showcase')
      .then((/** @type {Schemas['Showcase']} */ s) => ctx.isCurrent() && render(strip, showcaseStrip(s.mockups)))
      .catch((err) => render(strip, errorBox(err)))
      .finally(() => strip.removeAttribute('aria-busy')),
    api('GET', '/api/payments/plans')
      .then((/** @type {Schemas['Plans']} */ p) => ctx.isCurrent() && render(prices, priceCards(p)))
      .catch((err) => render(prices, errorBox(err)))
      .finally(() => prices.removeAttribute('aria-busy')),
  ]);
}
