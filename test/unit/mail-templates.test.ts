import assert from 'node:assert/strict';
import { APP_NAME, renderMail, type MailMessage } from '../../lib/mail/templates';

const ALL: MailMessage[] = [
  { kind: 'verify_email', link: 'https://app.test/verify-email?token=abc' },
  { kind: 'signup_attempt', forgotLink: 'https://app.test/forgot-password' },
  { kind: 'password_reset', link: 'https://app.test/reset-password?token=abc' },
  { kind: 'password_changed', forgotLink: 'https://app.test/forgot-password' },
  { kind: 'email_change_verify', link: 'https://app.test/verify-email?token=abc', newEmail: 'new@x.test' },
  { kind: 'email_change_notice', newEmail: 'new@x.test', notMeLink: 'https://app.test/email-not-me?token=abc' },
  { kind: 'email_change_attempt', forgotLink: 'https://app.test/forgot-password' },
  { kind: 'payment_failed', portalLink: 'https://app.test/billing', amountDue: '29.00 USD' },
  { kind: 'subscription_ending', endsAt: '2026-12-01', billingLink: 'https://app.test/billing' },
  { kind: 'tokens_low', balance: 4, monthly: 50, billingLink: 'https://app.test/billing' },
  { kind: 'tokens_taken_back', tokens: 100, owed: 20, why: 'refund', billingLink: 'https://app.test/billing' },
];

describe('account mail templates', () => {
  for (const m of ALL)
    it(`${m.kind}: the app's name, text and HTML, the link written out, no tracking`, () => {
      const r = renderMail(m);
      assert.ok(r.subject.startsWith(`${APP_NAME}: `));
      assert.ok(r.text.includes(APP_NAME) && r.html.includes(APP_NAME));
      const link = Object.entries(m).find(([k]) => /link$/i.test(k))![1] as string;
      assert.ok(r.text.includes(link), 'the text shows the link itself');
      assert.ok(r.html.includes(`<a href="${link}">${link}</a>`), 'the HTML shows the address it goes to');
      assert.doesNotMatch(r.html, /<img|<script|utm_/i);
    });

  it('escapes what it puts into HTML', () => {
    const r = renderMail({
      kind: 'email_change_notice',
      newEmail: '<b>x</b>@x.test',
      notMeLink: 'https://a.test/?a=1&b=2',
    });
    assert.ok(r.html.includes('&lt;b&gt;x&lt;/b&gt;@x.test'));
    assert.ok(r.html.includes('href="https://a.test/?a=1&amp;b=2"'));
    assert.ok(r.text.includes('https://a.test/?a=1&b=2'));
  });
});
