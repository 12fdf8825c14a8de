// Who is signed in, and the header that shows them.
import { api } from './api.js';
import { announce, byId, errorMessage } from './dom.js';

/** @typedef {import('./types').User} User */

/**
 * The signed-in user ({id, email, plan, tokenBalance}) or null.
 * @type {{ user: User | null }}
 */
export const session = { user: null };

/**
 * Re-reads the account (plan, balance), e.g. at start, after a purchase or a chat job. GET /api/auth/session answers
 * 200 with `{user: null}` for a signed-out visitor, so checking costs no failed request (a browser logs every 4xx
 * as a console error).
 */
export async function refreshUser() {
  try {
    session.user = (await api('GET', '/api/auth/session')).user;
  } catch (err) {
    announce(errorMessage(err), 'error');
    session.user = null;
  }
  renderShell();
}

/** @param {User | null} user */
/**
 * The signed-in user, for a page that is shown only when signed in; throws (app.js shows the message) when the
 * session ended meanwhile (e.g. expired while the page was open and refreshUser() found nobody).
 * @returns {User}
 */
export function requireUser() {
  if (!session.user) throw new Error('You are signed out: sign in again');
  return session.user;
}

/** @param {User | null} user */
export function setUser(user) {
  session.user = user;
  renderShell();
}

export function renderShell() {
  const u = session.user;
  byId('nav').hidden = !u;
  byId('account').hidden = !u;
  if (u) {
    byId('account-email').textContent = u.email;
    showBalance(u.tokenBalance, u.plan?.name);
  }
}

/**
 * @param {number} balance
 * @param {string} [planName]
 */
function showBalance(balance, planName) {
  const el = byId('account-balance');
  if (session.user) session.user.tokenBalance = balance;
  el.textContent = `${balance} tokens${planName ? ` · ${planName}` : session.user?.plan ? ` · ${session.user.plan.name}` : ''}`;
}

// api.js dispatches it with the X-Tokens-Remaining of every answer that has one
document.addEventListener('tokens', (e) => {
  const balance = e instanceof CustomEvent ? e.detail : undefined;
  if (session.user && typeof balance === 'number' && Number.isFinite(balance)) showBalance(balance);
});
