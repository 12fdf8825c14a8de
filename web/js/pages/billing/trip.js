// Billing: the trip to the payment provider and back (issue 20). Before leaving for checkout or the portal the page
// keeps a snapshot of the balance, plan and subscription (sessionStorage: this tab only); back on the page, what the
// payment brought is the difference from it, said in words by returnMessage.
import { api } from '../../api.js';
import { when } from '../../dom.js';
import { session } from '../../state.js';

/** @typedef {import('../../api.js').Schemas} Schemas */
/** @typedef {Schemas['SubscriptionState']['subscription']} Subscription */
/** @typedef {NonNullable<import('../../types').User>} User */
/**
 * What the account looked like before leaving for the payment provider.
 * @typedef {{ kind: 'checkout' | 'portal', at: number, balance: number | null, planId: string | null, sub: string,
 *   mode?: string, label?: string }} Snapshot
 */

const SNAPSHOT_KEY = 'billing:before-provider';
/** A snapshot older than this is not the one this return belongs to. */
const SNAPSHOT_MAX_AGE_MS = 6 * 60 * 60 * 1000;

/**
 * A subscription's state as one string (a change of it is a change of the subscription).
 * @param {Subscription} sub
 */
export const subKey = (sub) =>
  sub ? [sub.id, sub.plan?.id, sub.status, sub.cancelAtPeriodEnd, sub.currentPeriodEnd].join('|') : 'none';

/**
 * What the account looks like before leaving for the provider (`kind`: checkout or portal).
 * @param {Snapshot['kind']} kind
 * @param {Subscription} sub
 * @param {{ mode?: string, label?: string }} [extra]
 */
export function saveSnapshot(kind, sub, extra = {}) {
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
export function takeSnapshot(kind) {
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
export async function readSubscription() {
  try {
    const r = await api('GET', '/api/payments/subscription');
    return r?.subscription ?? null;
  } catch {
    return null; // none yet, or the route is not there
  }
}

/**
 * What to say once the wait for the provider's confirmation is over (null: the message shown meanwhile stays).
 * @param {{ checkout: boolean, done: boolean, before: boolean, start: { planId: string | null, balance: number | null },
 *   user: User, sub: Subscription }} s `checkout`: back from a successful checkout (else from the portal); `done`:
 *   the change arrived; `before`: there was a snapshot to compare with
 * @returns {['info' | 'success', ...string[]] | null}
 */
export function returnMessage({ checkout, done, before, start, user: u, sub }) {
  if (!done && !before) return null; // nothing to compare with: the message shown stays true
  const gained = u.tokenBalance - (start.balance ?? u.tokenBalance);
  const balance = `Your balance is now ${u.tokenBalance} tokens.`;
  if (checkout) {
    if (!done)
      return [
        'info',
        'Payment received. The confirmation has not arrived yet: your tokens or plan appear here once it does (reload this page in a minute).',
      ];
    if (u.plan.id !== start.planId)
      return [
        'success',
        `Payment received: you are now on ${u.plan.name}`,
        gained > 0 ? `, with ${gained} tokens added. ` : '. ',
        balance,
      ];
    return ['success', `Payment received: ${gained > 0 ? `${gained} tokens added` : 'confirmed'}. `, balance];
  }
  if (!done) return ['info', 'Back from the billing portal. No change to your subscription has arrived.'];
  if (!sub || sub.status === 'canceled')
    return ['success', `Your subscription has ended; you are on the ${u.plan.name} plan.`];
  if (sub.cancelAtPeriodEnd)
    return [
      'success',
      `Your subscription is cancelled: ${sub.plan?.name ?? u.plan.name} until ${when(sub.currentPeriodEnd)}.`,
    ];
  return ['success', `Your subscription was updated: ${sub.plan?.name ?? u.plan.name} · ${sub.status}.`];
}
