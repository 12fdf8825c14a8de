// Billing: the subscription, the plans and the token packs. Pure render functions: the page gives the actions.
import { h, usd, when } from '../../dom.js';

/** @typedef {import('../../api.js').Schemas} Schemas */
/** @typedef {import('./trip.js').Subscription} Subscription */
/** @typedef {import('./trip.js').User} User */
/**
 * What a plan or pack button does: open checkout for a price, or the customer portal.
 * @typedef {{ checkout: (priceId: string, mode: Schemas['CheckoutRequest']['mode'], label: string,
 *   button: HTMLButtonElement) => void, portal: () => void }} Actions
 */

/** @param {Subscription} sub */
export const isSubscribed = (sub) => Boolean(sub && ['active', 'trialing', 'past_due'].includes(sub.status));

/** @param {User} u */
export function balanceSummary(u) {
  return [
    h('p', { class: 'big' }, h('strong', {}, String(u.tokenBalance)), ' tokens'),
    h('p', {}, 'Plan: ', h('strong', {}, u.plan.name)),
    h('p', { class: 'muted' }, 'A mockup costs 1 token; uploads, analysis and previews are free.'),
  ];
}

/** @param {Subscription} sub */
export function subscriptionCard(sub) {
  if (!sub || !sub.status) return h('p', { class: 'muted' }, 'No paid subscription.');
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'sub-h' },
    h('h2', { id: 'sub-h' }, 'Subscription'),
    h(
      'p',
      {},
      h('strong', {}, sub.plan?.name ?? ''),
      ` · ${sub.status}`,
      sub.cancelAtPeriodEnd && sub.status !== 'canceled' ? ' · cancelled, ends at the period end' : '',
    ),
    sub.currentPeriodEnd
      ? h(
          'p',
          { class: 'muted' },
          `${sub.cancelAtPeriodEnd ? 'Ends' : 'Current period ends'} ${when(sub.currentPeriodEnd)}`,
        )
      : null,
  );
}

/**
 * A plan's button: none for the current plan or one without a price; a subscriber changes plan in the portal (a
 * second checkout would be a second subscription).
 * @param {Schemas['Plans']['plans'][number]} p
 * @param {User} u
 * @param {boolean} subscribed
 * @param {Actions} actions
 */
function planAction(p, u, subscribed, actions) {
  if (u.plan.id === p.id) return h('p', { class: 'badge active' }, 'Your plan');
  const priceId = p.priceId;
  if (!priceId) return null;
  if (subscribed)
    return h('button', { type: 'button', onclick: () => actions.portal() }, `Switch to ${p.name} in the portal`);
  return h(
    'button',
    {
      type: 'button',
      class: 'primary',
      onclick: (e) => actions.checkout(priceId, 'subscription', p.name, e.currentTarget),
    },
    `Choose ${p.name}`,
  );
}

/**
 * @param {Schemas['Plans']} plans
 * @param {User} u
 * @param {Subscription} sub
 * @param {Actions} actions
 */
export function plansSection(plans, u, sub, actions) {
  const subscribed = isSubscribed(sub);
  return h(
    'section',
    { 'aria-labelledby': 'plans-h' },
    h('h2', { id: 'plans-h' }, 'Plans'),
    h(
      'ul',
      { class: 'cards plans' },
      plans.plans.map((p) =>
        h(
          'li',
          { class: `card plan${u.plan.id === p.id ? ' current' : ''}` },
          h('h3', {}, p.name),
          h(
            'p',
            { class: 'big' },
            p.priceUsd === null || p.priceUsd === undefined ? 'By arrangement' : `${usd(p.priceUsd)}/month`,
          ),
          h('p', {}, p.tokensPerMonth === null ? 'Custom allowance' : `${p.tokensPerMonth} tokens a month`),
          planAction(p, u, subscribed, actions),
        ),
      ),
    ),
  );
}

/**
 * @param {Schemas['Plans']['tokenPacks']} packs
 * @param {Actions} actions
 */
export function packsSection(packs, actions) {
  if (!packs?.length) return null;
  return h(
    'section',
    { 'aria-labelledby': 'packs-h' },
    h('h2', { id: 'packs-h' }, 'Token packs'),
    h(
      'ul',
      { class: 'cards plans' },
      packs.map((t) =>
        h(
          'li',
          { class: 'card plan' },
          h('h3', {}, `${t.tokens} tokens`),
          h('p', { class: 'big' }, usd(t.priceUsd)),
          h(
            'button',
            {
              type: 'button',
              onclick: (e) => actions.checkout(t.priceId, 'payment', `${t.tokens} tokens`, e.currentTarget),
            },
            `Buy ${t.tokens} tokens`,
          ),
        ),
      ),
    ),
  );
}
