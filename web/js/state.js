// Who is signed in, and the header that shows them.
import { api } from './api.js';
import { announce } from './dom.js';

/** The signed-in user ({id, email, plan, tokenBalance}) or null. */
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
    announce(err.message, 'error');
    session.user = null;
  }
  renderShell();
}

export function setUser(user) {
  session.user = user;
  renderShell();
}

export function renderShell() {
  const u = session.user;
  document.getElementById('nav').hidden = !u;
  document.getElementById('account').hidden = !u;
  if (u) {
    document.getElementById('account-email').textContent = u.email;
    showBalance(u.tokenBalance, u.plan?.name);
  }
}

function showBalance(balance, planName) {
  const el = document.getElementById('account-balance');
  if (session.user) session.user.tokenBalance = balance;
  el.textContent = `${balance} tokens${planName ? ` · ${planName}` : session.user?.plan ? ` · ${session.user.plan.name}` : ''}`;
}

document.addEventListener('tokens', (e) => {
  if (session.user && Number.isFinite(e.detail)) showBalance(e.detail);
});
