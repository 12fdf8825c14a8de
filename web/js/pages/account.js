// Page 1: sign up and sign in (POST /api/auth/signup, /api/auth/login). Sign out is in the header (app.js).
import { api } from '../api.js';
import { setUser } from '../state.js';
import { announce, busy, errorBox, field, h, heading, render } from '../dom.js';

/**
 * A return target after signing in: a dashboard route (`/storefront?shop=…`), nothing else.
 * @param {URLSearchParams | undefined} params
 */
function nextRoute(params) {
  const next = params?.get('next') ?? '';
  return /^\/[a-z]+(\?|$)/.test(next) ? next : null;
}

/**
 * @param {'signin' | 'signup'} mode
 * @returns {import('../types').Page}
 */
export function accountPage(mode) {
  return async (main, ctx) => {
    const signup = mode === 'signup';
    const next = nextRoute(ctx?.params);
    const carry = next ? `?next=${encodeURIComponent(next)}` : '';
    const email = h('input', { type: 'email', name: 'email', autocomplete: 'email', required: true });
    const password = h('input', {
      type: 'password',
      name: 'password',
      autocomplete: signup ? 'new-password' : 'current-password',
      required: true,
      minlength: signup ? '10' : undefined,
    });
    const submit = h('button', { type: 'submit', class: 'primary' }, signup ? 'Create account' : 'Sign in');
    const out = h('div', { class: 'form-result' });
    const form = h(
      'form',
      {
        class: 'card narrow',
        onsubmit: async (e) => {
          e.preventDefault();
          render(out);
          await busy(submit, out, signup ? 'Creating…' : 'Signing in…', async () => {
            try {
              const { user } = await api('POST', signup ? '/api/auth/signup' : '/api/auth/login', {
                email: email.value,
                password: password.value,
              });
              announce(signup ? `Welcome: your account has ${user.tokenBalance} tokens` : `Signed in as ${user.email}`);
              setUser(user);
              location.hash = next ? `#${next}` : '#/studio';
            } catch (err) {
              render(out, errorBox(err));
              password.focus();
            }
          });
        },
      },
      field('Email', email),
      field(
        'Password',
        password,
        signup ? 'At least 10 characters, mixing two of: lowercase, uppercase, digits, symbols.' : undefined,
      ),
      submit,
      out,
      signup ? null : h('p', {}, h('a', { href: '#/forgot-password' }, 'Forgot your password?')),
      h(
        'p',
        {},
        signup ? 'Have an account? ' : 'New here? ',
        h('a', { href: signup ? `#/signin${carry}` : `#/signup${carry}` }, signup ? 'Sign in' : 'Create an account'),
      ),
    );
    render(main, heading(signup ? 'Create an account' : 'Sign in'), form);
  };
}
