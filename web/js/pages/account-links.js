// The pages the account mails link to (docs/accounts.md): verify an email (POST /api/auth/verify), ask for a reset
// link (POST /api/auth/password/forgot), and set a new password with it (POST /api/auth/password/reset). They work
// signed in or out: the token in the link is the proof.
import { api } from '../api.js';
import { refreshUser, session } from '../state.js';
import { announce, busy, errorBox, field, h, heading, render } from '../dom.js';

/**
 * @typedef {{ params: URLSearchParams }} PageContext
 */

/**
 * #/verify-email?token=…: verifies at once and shows the balance (the Free tokens that waited for it).
 * @param {HTMLElement} main
 * @param {PageContext} ctx
 */
export async function verifyEmailPage(main, ctx) {
  const token = ctx.params.get('token') ?? '';
  const out = h('div', { class: 'card narrow', 'aria-live': 'polite' }, 'Verifying…');
  render(main, heading('Verify your email'), out);
  try {
    /** @type {{ user: { email: string, tokenBalance: number } }} */
    const { user } = await api('POST', '/api/auth/verify', { token });
    await refreshUser();
    render(
      out,
      h('p', { class: 'verified' }, `Your email ${user.email} is verified. Your balance: ${user.tokenBalance} tokens.`),
      h('p', {}, h('a', { href: session.user ? '#/studio' : '#/signin' }, session.user ? 'Continue' : 'Sign in')),
    );
    announce('Email verified');
  } catch (err) {
    render(out, errorBox(err), h('p', {}, h('a', { href: '#/account' }, 'Ask for a new link from your account')));
  }
}

/**
 * #/forgot-password: asks for a reset link; the answer is the same whatever the email.
 * @param {HTMLElement} main
 */
export async function forgotPasswordPage(main) {
  const email = /** @type {HTMLInputElement} */ (
    h('input', { type: 'email', name: 'email', autocomplete: 'email', required: true })
  );
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Send reset link');
  const out = h('div', { class: 'form-result' });
  const form = h(
    'form',
    {
      class: 'card narrow',
      onsubmit: async (/** @type {Event} */ e) => {
        e.preventDefault();
        render(out);
        await busy(submit, out, 'Sending…', async () => {
          try {
            /** @type {{ message: string }} */
            const r = await api('POST', '/api/auth/password/forgot', { email: email.value });
            render(out, h('p', { class: 'sent' }, r.message));
            announce(r.message);
          } catch (err) {
            render(out, errorBox(err));
          }
        });
      },
    },
    field('Email', email, 'We mail a link to reset the password (it works once, for 1 hour).'),
    submit,
    out,
    h('p', {}, h('a', { href: '#/signin' }, 'Back to sign in')),
  );
  render(main, heading('Forgot your password?'), form);
}

/**
 * #/reset-password?token=…: sets the new password; every session of the account ends, so the next step is signing in.
 * @param {HTMLElement} main
 * @param {PageContext} ctx
 */
export async function resetPasswordPage(main, ctx) {
  const token = ctx.params.get('token') ?? '';
  const password = /** @type {HTMLInputElement} */ (
    h('input', { type: 'password', name: 'password', autocomplete: 'new-password', required: true, minlength: '10' })
  );
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Set new password');
  const out = h('div', { class: 'form-result' });
  const form = h(
    'form',
    {
      class: 'card narrow',
      onsubmit: async (/** @type {Event} */ e) => {
        e.preventDefault();
        render(out);
        await busy(submit, out, 'Saving…', async () => {
          try {
            await api('POST', '/api/auth/password/reset', { token, password: password.value });
            await refreshUser();
            announce('Password changed: sign in with it');
            location.hash = '#/signin';
          } catch (err) {
            render(out, errorBox(err));
          }
        });
      },
    },
    field('New password', password, 'At least 10 characters, mixing two of: lowercase, uppercase, digits, symbols.'),
    submit,
    out,
  );
  render(main, heading('Choose a new password'), form);
}
