// The pages the account mails link to (docs/accounts.md): verify an email (POST /api/auth/verify), ask for a reset
// link (POST /api/auth/password/forgot), and set a new password with it (POST /api/auth/password/reset). They work
// signed in or out: the token in the link is the proof.
import { api } from '../api.js';
import { refreshUser, session } from '../state.js';
import { announce, errorBox, field, h, heading, onSubmit, render } from '../dom.js';

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
      onsubmit: onSubmit(submit, out, 'Sending…', async () => {
        const r = await api('POST', '/api/auth/password/forgot', { email: email.value });
        render(out, h('p', { class: 'sent' }, r.message));
        announce(r.message);
      }),
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
  // On by default: whoever had the password may have made API keys or read the webhook secret.
  const revokeKeys = /** @type {HTMLInputElement} */ (
    h('input', { type: 'checkbox', name: 'revokeKeys', checked: true, 'aria-describedby': 'revoke-keys-hint' })
  );
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Set new password');
  const out = h('div', { class: 'form-result' });
  const form = h(
    'form',
    {
      class: 'card narrow',
      onsubmit: onSubmit(submit, out, 'Saving…', async () => {
        await api('POST', '/api/auth/password/reset', {
          token,
          password: password.value,
          revokeKeys: revokeKeys.checked,
        });
        await refreshUser();
        announce('Password changed: sign in with it');
        location.hash = '#/signin';
      }),
    },
    field('New password', password, 'At least 10 characters, mixing two of: lowercase, uppercase, digits, symbols.'),
    h(
      'div',
      { class: 'field check' },
      h('label', {}, revokeKeys, ' Also sign out API clients'),
      h(
        'small',
        { id: 'revoke-keys-hint', class: 'hint' },
        'Revokes every API key of the account and replaces its webhook signing secret at once. ' +
          'Leave it on if someone else may have had your password; your integrations then need new keys.',
      ),
    ),
    submit,
    out,
  );
  render(main, heading('Choose a new password'), form);
}

/**
 * #/email-not-me?token=…: "This wasn't me" from the notice of a change of email. Nothing happens until the button is
 * pressed (a mail scanner opening the link changes nothing).
 * @param {HTMLElement} main
 * @param {PageContext} ctx
 */
export async function emailNotMePage(main, ctx) {
  const token = ctx.params.get('token') ?? '';
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Stop the change and secure my account');
  const out = h('div', { class: 'form-result', 'aria-live': 'polite' });
  const form = h(
    'form',
    {
      class: 'card narrow',
      onsubmit: onSubmit(submit, out, 'Securing…', async () => {
        const r = await api('POST', '/api/auth/email/not-me', { token });
        await refreshUser();
        render(out, h('p', { class: 'sent' }, r.message));
        submit.remove();
        announce(r.message);
      }),
    },
    h(
      'p',
      {},
      'Someone signed in to your account asked to change its email address. This stops the change, or gives your ' +
        'address back if it was already made; it signs everyone out, and you choose a new password before the next sign-in.',
    ),
    submit,
    out,
  );
  render(main, heading("This wasn't me"), form);
}
