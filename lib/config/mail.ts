// Mail (docs/accounts.md): SMTP, the sender, whether Free tokens wait for a verified email, and the account mails'
// and account changes' limits.
import { z } from 'zod';
import { int, type EnvOf, type NodeEnv } from './parse';

export const mailEnv = {
  // Mail (docs/accounts.md): nodemailer over SMTP_URL (smtp:// or smtps://, credentials in the URL). Unset, `npm
  // start` runs Mailpit and sets it; elsewhere mails stay in the outbox, unsent, until it is set.
  SMTP_URL: z.url({ protocol: /^smtps?$/ }).optional(),
  MAIL_FROM: z.string().min(3).max(200).default('Apparel mockups <no-reply@localhost>'),
  // `required`: the Free plan's tokens wait for a verified email (default in production); `off`: granted at signup.
  EMAIL_VERIFICATION: z.enum(['required', 'off']).optional(),
  // Account mail limits: verification resends per account per hour, reset requests per email per hour and per IP
  // per hour.
  AUTH_VERIFY_RESENDS_PER_HOUR: int(5, 1),
  AUTH_RESETS_PER_EMAIL: int(5, 1),
  AUTH_RESETS_PER_IP: int(50, 1),
  // Account changes per hour, each per account and per client IP (docs/security.md#limits): changes of email,
  // change-password attempts (a success takes its count back, so failed current passwords add up), deletions, exports.
  AUTH_EMAIL_CHANGES_PER_HOUR: int(5, 1),
  AUTH_PASSWORD_CHANGES_PER_HOUR: int(10, 1),
  AUTH_DELETIONS_PER_HOUR: int(5, 1),
  AUTH_EXPORTS_PER_HOUR: int(10, 1),
};

export function mailConfig(e: EnvOf<typeof mailEnv> & { NODE_ENV: NodeEnv }) {
  return {
    mail: {
      /** unset: mails wait in the outbox (npm start runs Mailpit and sets it) */
      smtpUrl: e.SMTP_URL,
      from: e.MAIL_FROM,
      /** `required`: the Free plan's tokens are granted when the email is verified; `off`: at signup */
      verification: e.EMAIL_VERIFICATION ?? (e.NODE_ENV === 'production' ? ('required' as const) : ('off' as const)),
      verifyResendsPerHour: e.AUTH_VERIFY_RESENDS_PER_HOUR,
      resetsPerEmail: e.AUTH_RESETS_PER_EMAIL,
      resetsPerIp: e.AUTH_RESETS_PER_IP,
      /** per account and per client IP per hour (api/routes/account.ts) */
      accountChangesPerHour: {
        emailChange: e.AUTH_EMAIL_CHANGES_PER_HOUR,
        passwordChange: e.AUTH_PASSWORD_CHANGES_PER_HOUR,
        deletion: e.AUTH_DELETIONS_PER_HOUR,
        export: e.AUTH_EXPORTS_PER_HOUR,
      },
    },
  };
}
