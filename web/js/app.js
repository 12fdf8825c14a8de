// The dashboard: a small client app served by the API at / (plain ES modules, no build step). Hash routes
// (#/studio, #/keys, ...) so every page is a static file; the session cookie authenticates every call.
import { api } from './api.js';
import { renderShell, session, refreshUser } from './state.js';
import { announce, byId, errorMessage, render } from './dom.js';
import { accountPage } from './pages/account.js';
import { homePage } from './pages/home.js';
import { emailNotMePage, forgotPasswordPage, resetPasswordPage, verifyEmailPage } from './pages/account-links.js';
import { accountSettingsPage } from './pages/account-settings.js';
import { verifyBanner } from './pages/verify-banner.js';
import { billingPage } from './pages/billing.js';
import { bulkPage } from './pages/bulk.js';
import { chatPage } from './pages/chat.js';
import { designsPage } from './pages/designs.js';
import { developersPage } from './pages/developers.js';
import { storefrontPage } from './pages/storefront.js';
import { studioPage } from './pages/studio.js';
import { templatesPage } from './pages/templates.js';

/**
 * `public`: for signed-out visitors only; `any`: signed in or out (the links of the account mails).
 * @type {Record<string, { page: import('./types').Page, public?: boolean, any?: boolean, title: string } | undefined>}
 * (An old address that moved is in MOVED.)
 */
const PAGES = {
  '/': { page: homePage, public: true, title: 'Mockups of your designs' },
  '/signin': { page: accountPage('signin'), public: true, title: 'Sign in' },
  '/signup': { page: accountPage('signup'), public: true, title: 'Create an account' },
  '/studio': { page: studioPage, title: 'Mockup studio' },
  '/designs': { page: designsPage, title: 'Designs' },
  '/bulk': { page: bulkPage, title: 'Bulk' },
  '/templates': { page: templatesPage, title: 'Templates' },
  '/billing': { page: billingPage, title: 'Billing' },
  '/chat': { page: chatPage, title: 'Design chat' },
  '/storefront': { page: storefrontPage, title: 'Storefront' },
  '/account': { page: accountSettingsPage, title: 'Account' },
  // the links of the account mails: signed in or out
  '/verify-email': { page: verifyEmailPage, any: true, title: 'Verify your email' },
  '/forgot-password': { page: forgotPasswordPage, any: true, title: 'Forgot your password?' },
  '/reset-password': { page: resetPasswordPage, any: true, title: 'Choose a new password' },
  '/email-not-me': { page: emailNotMePage, any: true, title: "This wasn't me" },
  '/developers': { page: developersPage, title: 'Developers' },
};

/** Addresses that moved (bookmarks, old links and mails keep working): old route → new route. */
const MOVED = /** @type {Record<string, string>} */ ({ '/keys': '/developers' });

let current = 0;
async function route() {
  const hash = location.hash.replace(/^#/, '') || '/';
  const [path = '/', query = ''] = hash.split('?');
  const params = new URLSearchParams(query);
  const main = byId('main');
  accountMenu.open = false;
  const moved = MOVED[path];
  if (moved) {
    location.replace(`#${moved}${query ? `?${query}` : ''}`);
    return;
  }
  const target = PAGES[path];
  if (!session.user && !target?.public && !target?.any) {
    if (path !== '/signin' && path !== '/signup') {
      // back to this page once signed in (e.g. the Storefront page Shopify's app URL sent a signed-out browser to)
      location.replace(target ? `#/signin?next=${encodeURIComponent(hash)}` : '#/');
      return;
    }
  }
  if (!target) {
    location.replace(session.user ? '#/studio' : '#/');
    return;
  }
  if (session.user && target.public) {
    location.replace('#/studio');
    return;
  }
  const n = ++current;
  document.title = `${target.title} · Apparel mockups`;
  for (const a of document.querySelectorAll('#nav a, #account-menu a')) {
    if (a.getAttribute('href') === `#${path}`) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  // Each visit renders into a fresh container: a page still loading for an earlier visit writes into its own
  // (detached) container, never over the current one.
  const view = document.createElement('div');
  render(main, target.any ? null : verifyBanner(session.user), view);
  main.setAttribute('aria-busy', 'true');
  try {
    await target.page(view, { params, session, isCurrent: () => n === current });
  } catch (err) {
    if (n === current) announce(errorMessage(err), 'error');
  } finally {
    if (n === current) main.removeAttribute('aria-busy');
  }
  if (n === current) view.querySelector('h1')?.focus();
}

byId('signout').addEventListener('click', async () => {
  try {
    await api('POST', '/api/auth/logout');
  } finally {
    session.user = null;
    renderShell();
    announce('Signed out');
    location.hash = '#/signin';
  }
});

// The account menu (a <details>): closed by Escape (focus back on its summary) and by a click elsewhere.
const accountMenu = /** @type {HTMLDetailsElement} */ (byId('account-menu'));
document.addEventListener('keydown', (e) => {
  if (e.key === 'Escape' && accountMenu.open) {
    accountMenu.open = false;
    accountMenu.querySelector('summary')?.focus();
  }
});
document.addEventListener('click', (e) => {
  if (accountMenu.open && e.target instanceof Node && !accountMenu.contains(e.target)) accountMenu.open = false;
});

window.addEventListener('hashchange', route);

async function start() {
  await refreshUser();
  await route();
}

void start();
