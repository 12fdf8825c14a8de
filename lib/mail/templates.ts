// The account mails: subject, plain text and HTML, each with the app's name and plain links (no tracking pixels,
// no redirects through a click counter). Pure: the caller passes the app's name and public address.

export const APP_NAME = 'Apparel mockups';

export type MailMessage =
  | { kind: 'verify_email'; link: string }
  | { kind: 'signup_attempt'; forgotLink: string }
  | { kind: 'password_reset'; link: string }
  | { kind: 'password_changed'; forgotLink: string }
  | { kind: 'email_change_verify'; link: string; newEmail: string }
  | { kind: 'email_change_notice'; newEmail: string; notMeLink: string }
  | { kind: 'email_change_attempt'; forgotLink: string }
  | { kind: 'payment_failed'; portalLink: string; amountDue: string | null }
  | { kind: 'subscription_ending'; endsAt: string | null; billingLink: string }
  | { kind: 'tokens_low'; balance: number; monthly: number; billingLink: string }
  | { kind: 'tokens_taken_back'; tokens: number; why: 'refund' | 'dispute'; owed: number; billingLink: string };

export type MailKind = MailMessage['kind'];

export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
}

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** A paragraph of text, or a link shown as its own address (what the text version shows too). */
type Part = string | { link: string };

function compose(subject: string, parts: Part[]): RenderedMail {
  const text = [
    ...parts.map((p) => (typeof p === 'string' ? p : p.link)),
    '',
    `-- ${APP_NAME}`,
    'You get this mail because of your account with us; it contains no tracking.',
  ].join('\n\n');
  const body = parts
    .map((p) =>
      typeof p === 'string'
        ? `<p>${escapeHtml(p)}</p>`
        : `<p><a href="${escapeHtml(p.link)}">${escapeHtml(p.link)}</a></p>`,
    )
    .join('\n');
  const html = `<!doctype html>
<html><head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head>
<body style="font-family: sans-serif; line-height: 1.5; max-width: 40em">
<h1 style="font-size: 1.2em">${escapeHtml(APP_NAME)}</h1>
${body}
<p style="color: #666; font-size: 0.9em">You get this mail because of your account with ${escapeHtml(APP_NAME)}; it contains no tracking.</p>
</body></html>`;
  return { subject: `${APP_NAME}: ${subject}`, text, html };
}

/** Subject, text and HTML of one mail. */
export function renderMail(m: MailMessage): RenderedMail {
  switch (m.kind) {
    case 'verify_email':
      return compose('verify your email', [
        'Welcome! Open this link to verify your email address (it works once, for 24 hours):',
        { link: m.link },
        'If you did not create an account, ignore this mail.',
      ]);
    case 'signup_attempt':
      return compose('someone tried to create an account with your email', [
        'Someone tried to create an account with your email address. You already have one, so nothing was created.',
        'If it was you, reset your password here:',
        { link: m.forgotLink },
        'If it was not you, you can ignore this mail.',
      ]);
    case 'password_reset':
      return compose('reset your password', [
        'Open this link to choose a new password (it works once, for 1 hour):',
        { link: m.link },
        'If you did not ask for this, ignore this mail: your password stays as it is.',
      ]);
    case 'password_changed':
      return compose('your password was changed', [
        'The password of your account was changed, and every session was signed out.',
        'If you did not do this, reset your password at once:',
        { link: m.forgotLink },
      ]);
    case 'email_change_verify':
      return compose('confirm your new email address', [
        `Open this link to make ${m.newEmail} the email address of your account (it works once, for 24 hours):`,
        { link: m.link },
        'If you did not ask for this, ignore this mail.',
      ]);
    case 'email_change_notice':
      return compose('your email address is being changed', [
        `Someone signed in to your account asked to change its email address to ${m.newEmail}. It changes when that address is confirmed.`,
        "This wasn't me: open this link (it works for 7 days) to stop the change, or to take your address back if it was made. It signs everyone out and asks you to choose a new password before the next sign-in:",
        { link: m.notMeLink },
      ]);
    case 'email_change_attempt':
      return compose('someone tried to move an account to your email', [
        'Someone signed in to another account asked to make your email address its own. You already have an account with it, so nothing changed.',
        'If this was you, you can ignore this mail. If you think someone has your password, reset it here:',
        { link: m.forgotLink },
      ]);
    case 'payment_failed':
      return compose('a payment failed', [
        `We could not charge your card${m.amountDue ? ` for ${m.amountDue}` : ''} for your subscription.`,
        'Update your payment method in the billing portal:',
        { link: m.portalLink },
      ]);
    case 'subscription_ending':
      return compose(m.endsAt ? 'your subscription is ending' : 'your subscription was cancelled', [
        m.endsAt
          ? `Your subscription is cancelled and ends on ${m.endsAt}; until then it works as before.`
          : 'Your subscription was cancelled; the account is back on the Free plan.',
        'You can subscribe again from Billing:',
        { link: m.billingLink },
      ]);
    case 'tokens_low':
      return compose('your tokens are running low', [
        `Your balance is ${m.balance} tokens, under 10 % of your plan's ${m.monthly} a month.`,
        'Buy tokens or change plans from Billing:',
        { link: m.billingLink },
      ]);
    case 'tokens_taken_back':
      return compose(`a ${m.why} took tokens back`, [
        `A ${m.why} of a payment took ${m.tokens} tokens back from your account.${
          m.owed > 0 ? ` The balance did not cover ${m.owed} of them: the next tokens you get repay them first.` : ''
        }`,
        'Your balance and purchases are on Billing:',
        { link: m.billingLink },
      ]);
  }
}
