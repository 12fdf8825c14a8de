// The banner over every page while the signed-in account's email is not verified, with a button that mails a new
// link (POST /api/auth/verify/resend).
import { api } from '../api.js';
import { announce, busy, errorBox, h, render } from '../dom.js';

/**
 * @param {{ email: string, emailVerified?: boolean, freeGrantPending?: boolean } | null} user
 * @returns {HTMLElement | null}
 */
export function verifyBanner(user) {
  if (!user || user.emailVerified !== false) return null;
  const out = h('span', { class: 'form-result' });
  const resend = h('button', { type: 'button', class: 'link' }, 'Resend the link');
  resend.addEventListener('click', async () => {
    render(out);
    await busy(resend, out, 'Sending…', async () => {
      try {
        const r = await api('POST', '/api/auth/verify/resend');
        render(out, r.message);
        announce(r.message);
      } catch (err) {
        render(out, errorBox(err));
      }
    });
  });
  return h(
    'div',
    { class: 'banner', role: 'region', 'aria-label': 'Verify your email' },
    user.freeGrantPending
      ? `Verify your email to receive your free tokens: open the link we sent to ${user.email}. `
      : `Verify your email: open the link we sent to ${user.email}. `,
    resend,
    ' ',
    out,
  );
}
