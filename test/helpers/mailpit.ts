// Reading the mails the service sent, through Mailpit's HTTP API (scripts/test.ts starts it and sets MAILPIT_URL).
import { until } from './wait';

export interface MailSummary {
  ID: string;
  Subject: string;
  To: { Name: string; Address: string }[];
  From: { Name: string; Address: string };
  Created: string;
}

export interface Mail extends MailSummary {
  Text: string;
  HTML: string;
}

function mailpitUrl(): string {
  const url = process.env.MAILPIT_URL;
  if (!url) throw new Error('MAILPIT_URL is not set: run the tests with `npm test`');
  return url;
}

/** Every message Mailpit holds for `to` (newest first). */
export async function mailsTo(to: string): Promise<MailSummary[]> {
  const res = await fetch(`${mailpitUrl()}/api/v1/messages?limit=1000`);
  if (!res.ok) throw new Error(`Mailpit answered ${res.status}`);
  const body = (await res.json()) as { messages: MailSummary[] };
  return body.messages.filter((m) => m.To.some((t) => t.Address.toLowerCase() === to.toLowerCase()));
}

export async function readMail(id: string): Promise<Mail> {
  const res = await fetch(`${mailpitUrl()}/api/v1/message/${encodeURIComponent(id)}`);
  if (!res.ok) throw new Error(`Mailpit answered ${res.status} for message ${id}`);
  return (await res.json()) as Mail;
}

/** Waits (15 s at most) for a mail to `to` whose subject matches, and returns it in full. */
export async function waitForMail(to: string, subject: RegExp, ms = 15_000): Promise<Mail> {
  let seen: string[] = [];
  const hit = await until(
    () => `a mail to ${to} matching ${subject} within ${ms} ms (seen: ${JSON.stringify(seen)})`,
    async () => {
      const mails = await mailsTo(to);
      seen = mails.map((m) => m.Subject);
      return mails.find((m) => subject.test(m.Subject));
    },
    { ms, every: 200 },
  );
  return readMail(hit.ID);
}

/** The first link in a mail's text that starts with `prefix`. */
export function linkIn(mail: Mail, prefix: string): string {
  const escaped = prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const m = new RegExp(`${escaped}\\S*`).exec(mail.Text);
  if (!m) throw new Error(`no link starting with ${prefix} in the mail "${mail.Subject}":\n${mail.Text}`);
  return m[0];
}
