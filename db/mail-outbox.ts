// The mail outbox (docs/accounts.md#mail): a mail is a row written in the same transaction as the change that causes
// it, delivered by the workflow mail-<id>. The body, which may hold a one-time link, is erased once the mail is sent.
// A mail written by SQL (the low-balance mail, written by the debit: db/migrations/032_one_round_trip_charge.sql) holds
// its message instead of subject and body; it is rendered here when read, and the sent row keeps the subject.
import { renderMail, type MailMessage } from '../lib/mail/templates';
import type { Tx } from './client';

export interface OutboxMail {
  id: string;
  userId: string | null;
  kind: string;
  to: string;
  subject: string;
  text: string | null;
  html: string | null;
  sentAt: Date | null;
  failedAt: Date | null;
  messageId: string | null;
}

/** Renders the mail and writes it to the outbox in `tx` (the caller's transaction). Returns the row's id. */
export async function enqueueMail(
  tx: Tx,
  m: { userId: string | null; to: string; message: MailMessage },
): Promise<string> {
  const r = renderMail(m.message);
  const [row] = await tx<{ id: number }[]>`
    insert into mail_outbox (user_id, kind, to_address, subject, text_body, html_body)
    values (${m.userId}, ${m.message.kind}, ${m.to}, ${r.subject}, ${r.text}, ${r.html})
    returning id`;
  return String(row!.id);
}

export async function getOutboxMail(sql: Tx, id: string): Promise<OutboxMail | null> {
  const [row] = await sql<(OutboxMail & { subject: string | null; message: MailMessage | null })[]>`
    select id::text as id, user_id as "userId", kind, to_address as "to", subject, text_body as text,
           html_body as html, message, sent_at as "sentAt", failed_at as "failedAt", message_id as "messageId"
    from mail_outbox where id = ${id}`;
  if (!row) return null;
  const { message, ...mail } = row;
  return message ? { ...mail, ...renderMail(message) } : { ...mail, subject: mail.subject ?? '' };
}

/** The subject of each mail (a mail written as its message: rendered). */
export function outboxSubject(m: { subject: string | null; message: MailMessage | null }): string | null {
  return m.subject ?? (m.message ? renderMail(m.message).subject : null);
}

/** An attempt is about to hand the mail to SMTP: counted, so the outbox shows how many were made. */
export async function countMailAttempt(sql: Tx, id: string): Promise<void> {
  await sql`update mail_outbox set attempts = attempts + 1 where id = ${id}`;
}

/**
 * The SMTP server took the mail: recorded once, the body erased (a mail written as its message keeps the `subject` it
 * was sent with). False when it was already marked sent.
 */
export async function markMailSent(sql: Tx, id: string, messageId: string, subject: string): Promise<boolean> {
  const res = await sql`
    update mail_outbox set sent_at = now(), message_id = ${messageId}, text_body = null, html_body = null,
                           message = null, subject = coalesce(subject, ${subject}), last_error = null
    where id = ${id} and sent_at is null`;
  return res.count === 1;
}

export async function recordMailError(sql: Tx, id: string, error: string): Promise<void> {
  await sql`update mail_outbox set last_error = ${error.slice(0, 1000)} where id = ${id}`;
}

/** The workflow gave up (a permanent SMTP refusal, or its retries ran out): the sweep leaves the row alone. */
export async function markMailFailed(sql: Tx, id: string, error: string, subject: string | null): Promise<void> {
  await sql`update mail_outbox set failed_at = now(), last_error = ${error.slice(0, 1000)}, text_body = null,
                                   html_body = null, message = null, subject = coalesce(subject, ${subject})
            where id = ${id} and sent_at is null`;
}

/** Unsent rows older than `graceSeconds` that have not failed (oldest first): the sweep starts their workflow. */
export async function waitingMails(
  sql: Tx,
  graceSeconds: number,
  limit: number,
): Promise<{ id: string; userId: string | null }[]> {
  return sql<{ id: string; userId: string | null }[]>`
    select id::text as id, user_id as "userId" from mail_outbox
    where sent_at is null and failed_at is null and created_at < now() - make_interval(secs => ${graceSeconds})
    order by created_at limit ${limit}`;
}

/** Unsent rows of one account written in the last `seconds` (a worker activity starts them right after commit). */
export async function recentUnsentMails(sql: Tx, userId: string, seconds: number): Promise<string[]> {
  const rows = await sql<{ id: string }[]>`
    select id::text as id from mail_outbox
    where user_id = ${userId} and sent_at is null and failed_at is null
      and created_at > now() - make_interval(secs => ${seconds})`;
  return rows.map((r) => r.id);
}
