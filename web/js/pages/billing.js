// Page 5: billing. The balance and plan (GET /api/auth/session), the plans and token packs, checkout, the customer
// portal and the subscription state (the payment routes, issue 12).
import { api } from '../api.js';
import { busy, errorBox, h, heading, render, usd, when } from '../dom.js';
import { refreshUser, session } from '../state.js';

/** Hosted checkout and the portal live on the payment provider's site: the browser goes there. */
function goTo(url) {
  window.location.assign(url);
}

export async function billingPage(main, ctx) {
  await refreshUser();
  const u = session.user;
  const summary = h(
    'div',
    { class: 'card summary' },
    h('p', { class: 'big' }, h('strong', {}, String(u.tokenBalance)), ' tokens'),
    h('p', {}, 'Plan: ', h('strong', {}, u.plan.name)),
    h('p', { class: 'muted' }, 'A mockup costs 1 token; uploads, analysis and previews are free.'),
  );
  const body = h('div', {});
  render(main, heading('Billing'), summary, body);

  const out = h('div', { 'aria-live': 'polite' });
  const checkout = (priceId, mode, button) =>
    busy(button, out, 'Opening checkout…', async () => {
      try {
        const { url } = await api('POST', '/api/payments/checkout', { priceId, mode });
        goTo(url);
      } catch (err) {
        render(out, errorBox(err));
      }
    });

  let plans;
  try {
    plans = await api('GET', '/api/payments/plans');
  } catch (err) {
    render(body, errorBox(err));
    return;
  }
  let subscription = null;
  try {
    subscription = await api('GET', '/api/payments/subscription');
  } catch {
    subscription = null; // none yet, or the route is not there
  }
  if (!ctx.isCurrent()) return;

  const portal = h('button', { type: 'button' }, 'Manage billing');
  portal.addEventListener('click', () =>
    busy(portal, out, 'Opening the portal…', async () => {
      try {
        const { url } = await api('POST', '/api/payments/portal');
        goTo(url);
      } catch (err) {
        render(out, errorBox(err));
      }
    }),
  );

  const sub = subscription?.subscription ?? subscription;
  const subscribed = Boolean(sub && ['active', 'trialing', 'past_due'].includes(sub.status));
  render(
    body,
    sub && sub.status
      ? h(
          'section',
          { class: 'card', 'aria-labelledby': 'sub-h' },
          h('h2', { id: 'sub-h' }, 'Subscription'),
          h(
            'p',
            {},
            h('strong', {}, sub.plan?.name ?? sub.plan ?? sub.planId ?? ''),
            ` · ${sub.status}`,
            sub.cancelAtPeriodEnd ? ' · ends at the period end' : '',
          ),
          sub.currentPeriodEnd ? h('p', { class: 'muted' }, `Current period ends ${when(sub.currentPeriodEnd)}`) : null,
        )
      : h('p', { class: 'muted' }, 'No paid subscription.'),
    h(
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
            u.plan.id === p.id
              ? h('p', { class: 'badge active' }, 'Your plan')
              : p.priceId
                ? subscribed
                  ? // a subscriber changes plan in Stripe's portal (a second checkout would be a second subscription)
                    h('button', { type: 'button', onclick: () => portal.click() }, `Switch to ${p.name} in the portal`)
                  : h(
                      'button',
                      {
                        type: 'button',
                        class: 'primary',
                        onclick: (e) => checkout(p.priceId, 'subscription', e.currentTarget),
                      },
                      `Choose ${p.name}`,
                    )
                : null,
          ),
        ),
      ),
    ),
    plans.tokenPacks?.length
      ? h(
          'section',
          { 'aria-labelledby': 'packs-h' },
          h('h2', { id: 'packs-h' }, 'Token packs'),
          h(
            'ul',
            { class: 'cards plans' },
            plans.tokenPacks.map((t) =>
              h(
                'li',
                { class: 'card plan' },
                h('h3', {}, `${t.tokens} tokens`),
                h('p', { class: 'big' }, usd(t.priceUsd)),
                h(
                  'button',
                  { type: 'button', onclick: (e) => checkout(t.priceId, 'payment', e.currentTarget) },
                  `Buy ${t.tokens} tokens`,
                ),
              ),
            ),
          ),
        )
      : null,
    h('div', { class: 'buttons' }, portal),
    out,
  );
}
