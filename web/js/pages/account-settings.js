// The account page (#/account): change password, change email, export everything, delete the account (typed
// confirmation). docs/accounts.md.
import { api } from '../api.js';
import { refreshUser, session, setUser } from '../state.js';
import { announce, errorBox, field, h, heading, onSubmit, render } from '../dom.js';

/**
 * @param {string} name
 * @param {string} autocomplete
 * @returns {HTMLInputElement}
 */
const passwordInput = (name, autocomplete) =>
  /** @type {HTMLInputElement} */ (h('input', { type: 'password', name, autocomplete, required: true }));

/**
 * A card with one form: `action` runs on submit with progress and errors shown in the card.
 * @param {string} title
 * @param {HTMLElement[]} fields
 * @param {string} label
 * @param {(out: HTMLElement) => Promise<void>} action
 */
function formCard(title, fields, label, action) {
  const submit = h('button', { type: 'submit', class: 'primary' }, label);
  const out = h('div', { class: 'form-result' });
  return h(
    'form',
    {
      class: 'card',
      'aria-label': title,
      onsubmit: onSubmit(submit, out, 'Working…', async () => {
        await action(out);
      }),
    },
    h('h2', {}, title),
    ...fields,
    submit,
    out,
  );
}

/** @param {HTMLElement} main */
export async function accountSettingsPage(main) {
  await refreshUser();
  const user = session.user;
  if (!user) return;

  const current = passwordInput('currentPassword', 'current-password');
  const next = passwordInput('newPassword', 'new-password');
  const changePassword = formCard(
    'Change password',
    [field('Current password', current), field('New password', next, 'At least 10 characters.')],
    'Change password',
    async (out) => {
      await api('POST', '/api/auth/password/change', { currentPassword: current.value, newPassword: next.value });
      current.value = next.value = '';
      render(out, h('p', {}, 'Password changed. Your other sessions were signed out.'));
      announce('Password changed');
    },
  );

  const newEmail = /** @type {HTMLInputElement} */ (
    h('input', { type: 'email', name: 'newEmail', autocomplete: 'email', required: true })
  );
  const emailPassword = passwordInput('password', 'current-password');
  const changeEmail = formCard(
    'Change email',
    [
      h(
        'p',
        {},
        `Your email is ${user.email}.`,
        user.pendingEmail ? ` Waiting for ${user.pendingEmail} to be confirmed.` : '',
      ),
      field('New email', newEmail, 'We mail a link to the new address; the change is made when it is opened.'),
      field('Current password', emailPassword),
    ],
    'Change email',
    async (out) => {
      const r = await api('POST', '/api/auth/email/change', {
        newEmail: newEmail.value,
        password: emailPassword.value,
      });
      emailPassword.value = '';
      render(out, h('p', {}, r.message));
      announce(r.message);
    },
  );

  const exportLink = h(
    'a',
    { href: '/api/auth/account/export', download: `account-${user.id}.json`, class: 'button' },
    'Download my data (JSON)',
  );
  const exportCard = h(
    'section',
    { class: 'card', 'aria-label': 'Export' },
    h('h2', {}, 'Export'),
    h('p', {}, 'Everything we hold about your account, with links to your files.'),
    exportLink,
  );

  const confirm = /** @type {HTMLInputElement} */ (
    h('input', { type: 'text', name: 'confirm', autocomplete: 'off', required: true })
  );
  const deletePassword = passwordInput('password', 'current-password');
  const deleteCard = formCard(
    'Delete account',
    [
      h(
        'p',
        {},
        'This cancels your subscription, disconnects your stores, deletes your keys, files and designs. ' +
          'Payment records are kept, anonymised. It cannot be undone.',
      ),
      field('Type DELETE to confirm', confirm),
      field('Current password', deletePassword),
    ],
    'Delete my account',
    async (out) => {
      if (confirm.value.trim() !== 'DELETE') {
        render(out, errorBox(new Error('Type DELETE to confirm')));
        return;
      }
      await api('DELETE', '/api/auth/account', { password: deletePassword.value });
      setUser(null);
      announce('Your account is being deleted');
      location.hash = '#/signin';
    },
  );
  deleteCard.classList.add('danger');

  render(main, heading('Account'), changePassword, changeEmail, exportCard, deleteCard);
}
