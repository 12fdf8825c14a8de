// Page 5: billing. The balance and plan (GET /api/auth/session), the plans and token packs, checkout, the customer
// portal and the subscription state (the payment routes, issue 12).
//
// Coming back from the payment provider (issue 20): checkout returns to /billing?checkout=success or
// ?checkout=canceled, the portal to /billing?portal=returned (the server redirects those to this page's hash route).
// The tokens or plan a payment brings arrive with the provider's signed event, applied a moment after the browser
// is back: the page says the payment was received, waits for the confirmation (GET /api/auth/me and
// GET /api/payments/subscription every second, for at most a minute), then says what it brought (./billing/trip.js).
// The plans and packs are drawn by ./billing/plans.js.
import { api } from '../api.js';
import { attempt, errorBox, h, heading, render } from '../dom.js';
import { refreshUser, requireUser, session } from '../state.js';
import { balanceSummary, packsSection, plansSection, subscriptionCard } from './billing/plans.js';
import { readSubscription, returnMessage, saveSnapshot, subKey, takeSnapshot } from './billing/trip.js';

/** @typedef {import('../api.js').Schemas} Schemas */

const POLL_EVERY_MS = 1000;
const POLL_FOR_MS = 60_000;

/**
 * Hosted checkout and the portal live on the payment provider's site: the browser goes there.
 * @param {string} url
 */
function goTo(url) {
  window.location.assign(url);
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
  const drawSummary = () => render(summary, balanceSummary(requireUser()));
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
  const portal = h('button', { type: 'button' }, 'Manage billing');
  portal.addEventListener('click', () =>
    attempt(portal, out, 'Opening the portal…', async () => {
      const { url } = await api('POST', '/api/payments/portal');
      saveSnapshot('portal', sub);
      goTo(url);
    }),
  );
  /** @type {import('./billing/plans.js').Actions} */
  const actions = {
    checkout: (priceId, mode, label, button) =>
      attempt(button, out, 'Opening checkout…', async () => {
        const { url } = await api('POST', '/api/payments/checkout', { priceId, mode });
        saveSnapshot('checkout', sub, { mode, label });
        goTo(url);
      }),
    portal: () => portal.click(),
  };
  const drawBody = () =>
    render(
      body,
      subscriptionCard(sub),
      plansSection(plans, requireUser(), sub, actions),
      packsSection(plans.tokenPacks, actions),
      h('div', { class: 'buttons' }, portal),
      out,
    );
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
    const message = returnMessage({
      checkout: checkoutResult === 'success',
      done,
      before: Boolean(before),
      start,
      user: session.user,
      sub,
    });
    if (message) say(...message);
  }
}
