// The mail flow's shared contract (workflows import this: plain data only).

/** Input of the `sendMail` workflow (id `mail-<outbox id>`): the mail itself is read from the outbox. */
export interface SendMailInput {
  outboxId: string;
}

export type SendMailResult = { status: 'sent'; messageId: string } | { status: 'already_sent' } | { status: 'gone' };

/** The `sendMail` workflow's signature: what the API and the activities start it by (lib/mail/start.ts). */
export type SendMailWorkflow = (input: SendMailInput) => Promise<SendMailResult | { status: 'failed'; error: string }>;

/** The SMTP server refused the mail for good (5xx: no such mailbox, rejected sender): not retried. */
export const MAIL_REJECTED = 'MailRejectedError';
