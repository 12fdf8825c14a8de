// Page 5: billing. The balance and plan (GET /api/auth/session), the plans and token packs, checkout, the customer
// portal and the subscription state (the payment routes, issue 12).
//
// Coming back from the payment provider (issue 20): checkout returns to /billing?checkout=success or
// ?checkout=canceled, the portal to /billing?portal=returned (the server redirects those to this page's hash route).
// The tokens or plan a payment brings arrive with the provider's signed event, applied a moment after the browser
// is back: the page says the payment was received, waits for the confirmation (GET /api/auth/me and
// GET /api/payments/subscription every second, for at most a minute), then says what it brought. What it brought is
// the difference from a snapshot of the balance, plan and subscription taken when the person left for checkout or
// the portal (sessionStorage: this tab only).
import { api } from '../api.js';
import { busy, errorBox, h, heading, render, usd, when } from '../dom.js';
import { refreshUser, requireUser, session } from '../state.js';

/** @typedef {import('../api.js').Schemas} Schemas */
/** @typedef {Schemas['SubscriptionState']['subscription']} Subscription */
/**
 * What the account looked like before leaving for the payment provider.
 * @typedef {{ kind: 'checkout' | 'portal', at: number, balance: number | null, planId: string | null, sub: string,
 *   mode?: string, label?: string }} Snapshot
 */

const SNAPSHOT_KEY = 'billing:before-provider';
/** A snapshot older than this is not the one this return belongs to. */
const SNAPSHOT_MAX_AGE_MS = 6 * 60 * 60 * 1000;
const POLL_EVERY_MS = 1000;
const POLL_FOR_MS = 60_000;

/**
 * Hosted checkout and the portal live on the payment provider's site: the browser goes there.
 * @param {string} url
 */
function goTo(url) {
  window.location.assign(url);
}

/** @param {Subscription} sub */
const subKey = (sub) =>
  sub ? [sub.id, sub.plan?.id, sub.status, sub.cancelAtPeriodEnd, sub.currentPeriodEnd].join('|') : 'none';

/**
 * What the account looks like before leaving for the provider (`kind`: checkout or portal).
 * @param {Snapshot['kind']} kind
 * @param {Subscription} sub
 * @param {{ mode?: string, label?: string }} [extra]
 */
function saveSnapshot(kind, sub, extra = {}) {
  try {
    sessionStorage.setItem(
      SNAPSHOT_KEY,
      JSON.stringify({
        kind,
        at: Date.now(),
        balance: session.user?.tokenBalance ?? null,
        planId: session.user?.plan?.id ?? null,
        sub: subKey(sub),
        ...extra,
      }),
    );
  } catch {
    // storage disabled: the return message then has no "before" to compare with
  }
}

/**
 * The snapshot taken for this kind of trip, once (it is removed).
 * @param {Snapshot['kind']} kind
 * @returns {Snapshot | null}
 */
function takeSnapshot(kind) {
  try {
    const raw = sessionStorage.getItem(SNAPSHOT_KEY);
    sessionStorage.removeItem(SNAPSHOT_KEY);
    const s = raw ? JSON.parse(raw) : null;
    return s && s.kind === kind && Date.now() - s.at < SNAPSHOT_MAX_AGE_MS ? s : null;
  } catch {
    return null;
  }
}

/** @returns {Promise<Subscription>} */
async function readSubscription() {
  try {
    /** @type {Schemas['SubscriptionState'] | null} */
    const r = await api('GET', '/api/payments/subscription');
    return r?.subscription ?? null;
  } catch {
    return null; // none yet, or the route is not there
  }
}

/** @param {number} ms */
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** @type {import('../types').Page} */
export async function billingPage(main, ctx) {
  const checkoutResult = ctx.params.get('checkout');
  const fromPortal = ctx.params.get('portal') === 'returned';
  const trip = checkoutResult ? 'checkout' : fromPortal ? 'portal' : null;
  const before = trip ? takeSnapshot(trip) : null;
  // The return address has done its job: a reload shows the page, not the message again.
  if (trip) history.replaceState(null, '', '#/billing');

  await refreshUser();
  const notice = h('div', { class: 'return-notice', role: 'status', 'aria-live': 'polite' });
  const summary = h('div', { class: 'card summary' });
  const body = h('div', {});
  render(main, heading('Billing'), notice, summary, body);
  /**
   * @param {'info' | 'success' | 'error'} kind
   * @param {...import('../types').Child} text
   */
  const say = (kind, ...text) => render(notice, text.length ? h('p', { class: `notice ${kind}` }, ...text) : null);

  const drawSummary = () => {
    const u = requireUser();
    render(
      summary,
      h('p', { class: 'big' }, h('strong', {}, String(u.tokenBalance)), ' tokens'),
      h('p', {}, 'Plan: ', h('strong', {}, u.plan.name)),
      h('p', { class: 'muted' }, 'A mockup costs 1 token; uploads, analysis and previews are free.'),
    );
  };
  drawSummary();

  if (checkoutResult === 'canceled') say('info', 'Checkout cancelled; nothing was charged.');

  /** @type {Schemas['Plans']} */
  let plans;
  try {
    plans = await api('GET', '/api/payments/plans');
  } catch (err) {
    render(body, errorBox(err));
    return;
  }
  let sub = await readSubscription();
  if (!ctx.isCurrent()) return;

  const out = h('div', { 'aria-live': 'polite' });
  /**
   * @param {string} priceId
   * @param {Schemas['CheckoutRequest']['mode']} mode
   * @param {string} label
   * @param {HTMLButtonElement} button
   */
  const checkout = (priceId, mode, label, button) =>
    busy(button, out, 'Opening checkout…', async () => {
      try {
        /** @type {Schemas['CheckoutSession']} */
        const { url } = await api('POST', '/api/payments/checkout', { priceId, mode });
        saveSnapshot('checkout', sub, { mode, label });
        goTo(url);
      } catch (err) {
        render(out, errorBox(err));
      }
    });

  const portal = h('button', { type: 'button' }, 'Manage billing');
  portal.addEventListener('click', () =>
    busy(portal, out, 'Opening the portal…', async () => {
      try {
        /** @type {Schemas['PortalSession']} */
        const { url } = await api('POST', '/api/payments/portal');
        saveSnapshot('portal', sub);
        goTo(url);
      } catch (err) {
        render(out, errorBox(err));
      }
    }),
  );

  const drawBody = () => {
    const u = requireUser();
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
                      h(
                        'button',
                        { type: 'button', onclick: () => portal.click() },
                        `Switch to ${p.name} in the portal`,
                      )
                    : h(
                        'button',
                        {
                          type: 'button',
                          class: 'primary',
                          // a plan with a priceId (the branch above)
                          onclick: (e) =>
                            checkout(/** @type {string} */ (p.priceId), 'subscription', p.name, e.currentTarget),
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
                    {
                      type: 'button',
                      onclick: (e) => checkout(t.priceId, 'payment', `${t.tokens} tokens`, e.currentTarget),
                    },
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
  };
  drawBody();

  // The page has loaded (main is no longer busy); following the return goes on in the background.
  if (checkoutResult === 'success' || fromPortal)
    followReturn().catch((err) => say('error', `Could not check the payment's confirmation: ${err.message ?? err}`));

  async function followReturn() {
    // Back from checkout or the portal: wait for the provider's event to be applied, then say what changed. Without a
    // snapshot (another tab, storage off) the state on arrival is the "before".
    const start = before ?? {
      balance: requireUser().tokenBalance,
      planId: requireUser().plan.id,
      sub: subKey(sub),
    };
    const changed = () =>
      requireUser().plan.id !== start.planId ||
      subKey(sub) !== start.sub ||
      (checkoutResult === 'success' && requireUser().tokenBalance > (start.balance ?? 0));
    if (checkoutResult === 'success')
      say(
        'info',
        before
          ? 'Payment received. Waiting for confirmation from the payment provider…'
          : 'Payment received. Your tokens or plan show here once the payment provider confirms it.',
      );
    else
      say(
        'info',
        'Back from the billing portal. Changes made there show here once the payment provider confirms them.',
      );

    let done = before ? changed() : false;
    for (const until = Date.now() + POLL_FOR_MS; !done && Date.now() < until;) {
      await sleep(POLL_EVERY_MS);
      if (!ctx.isCurrent()) return;
      await refreshUser();
      if (!session.user) return; // signed out meanwhile
      sub = await readSubscription();
      if (!ctx.isCurrent()) return;
      done = changed();
    }
    if (done) {
      // the two reads of the last round are not one snapshot: read both again, now that the event is applied
      await refreshUser();
      sub = await readSubscription();
    }
    if (!ctx.isCurrent() || !session.user) return;
    drawSummary();
    drawBody();
    const u = session.user;
    const gained = u.tokenBalance - (start.balance ?? u.tokenBalance);
    const balance = `Your balance is now ${u.tokenBalance} tokens.`;
    if (!done && !before) return; // nothing to compare with: the message above stays true
    if (checkoutResult === 'success') {
      if (!done)
        say(
          'info',
          'Payment received. The confirmation has not arrived yet: your tokens or plan appear here once it does (reload this page in a minute).',
        );
      else if (u.plan.id !== start.planId)
        say(
          'success',
          `Payment received: you are now on ${u.plan.name}`,
          gained > 0 ? `, with ${gained} tokens added. ` : '. ',
          balance,
        );
      else say('success', `Payment received: ${gained > 0 ? `${gained} tokens added` : 'confirmed'}. `, balance);
    } else if (done) {
      if (!sub || sub.status === 'canceled')
        say('success', `Your subscription has ended; you are on the ${u.plan.name} plan.`);
      else if (sub.cancelAtPeriodEnd)
        say(
          'success',
          `Your subscription is cancelled: ${sub.plan?.name ?? u.plan.name} until ${when(sub.currentPeriodEnd)}.`,
        );
      else say('success', `Your subscription was updated: ${sub.plan?.name ?? u.plan.name} · ${sub.status}.`);
    } else say('info', 'Back from the billing portal. No change to your subscription has arrived.');
  }
}
