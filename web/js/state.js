// Who is signed in, which optional features this server has, and the header that shows them.
import { api } from './api.js';
import { announce } from './dom.js';

/** The signed-in user ({id, email, plan, tokenBalance}) or null; features that exist on this server. */
export const session = { user: null, features: { payments: false, chat: false } };

/** Re-reads the account (plan, balance), e.g. at start, after a purchase or a chat job. */
export async function refreshUser() {
  try {
    session.user = (await api('GET', '/api/auth/me')).user;
  } catch (err) {
    if (err.status !== 401) announce(err.message, 'error');
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
  document.getElementById('nav-chat').hidden = !session.features.chat;
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
