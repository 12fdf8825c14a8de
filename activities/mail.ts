// Mail delivery: one outbox row handed to the SMTP server at SMTP_URL with nodemailer. The row says whether it was
// sent already, so a retry or a second workflow run never sends it again once the server took it.
import { Context } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import { nonRetryable } from './deps';
import type { InboundWorkflows } from './inbound';
import nodemailer, { type Transporter } from 'nodemailer';
import type { Sql } from '../db/client';
import {
  countMailAttempt,
  getOutboxMail,
  markMailFailed,
  markMailSent,
  recentUnsentMails,
  recordMailError,
  waitingMails,
} from '../db/mail-outbox';
import { PUBLIC_BASE_URL_PLACEHOLDER } from '../db/payment-mails';
import type { Config } from '../lib/config';
import { startInboundWorkflow } from '../lib/inbound';
import type { Logger } from '../lib/log';
import { mailStart } from '../lib/mail/start';
import { MAIL_REJECTED, type SendMailInput, type SendMailResult } from '../lib/mail/types';

export interface MailDeps {
  /** The workflows these activities start, by reference (the worker hands them in). */
  inboundWorkflows?: InboundWorkflows;
  sql: Sql;
  config: Config;
  log: Logger;
  temporal?: Client;
}

/** Rows per sweep; a larger backlog is worked off by the next sweeps (one a minute). */
const SWEEP_PAGE = 500;
/** The sweep leaves rows younger than this to whoever wrote them (they start the workflow right after commit). */
const SWEEP_GRACE_SECONDS = 30;

/** The domain of the Message-ID: MAIL_FROM's, or localhost. */
function messageIdDomain(from: string): string {
  const m = /@([A-Za-z0-9.-]+)>?\s*$/.exec(from);
  return m?.[1] ?? 'localhost';
}

export function createMailActivities({ sql, config, log, temporal, inboundWorkflows }: MailDeps) {
  let transport: Transporter | undefined;
  const smtp = () => {
    if (!config.mail.smtpUrl) throw new Error('SMTP_URL is not set: the mail stays in the outbox until it is');
    transport ??= nodemailer.createTransport(config.mail.smtpUrl);
    return transport;
  };

  /** Starts the mail-<id> workflow of each row (one already running or finished is left alone). */
  const startMails = async (rows: { id: string; userId: string | null }[]) => {
    if (!temporal || !inboundWorkflows) throw new Error('starting mail workflows needs a Temporal client');
    let started = 0;
    for (const r of rows)
      if (
        (await startInboundWorkflow(
          temporal,
          config.temporal.taskQueue,
          mailStart(inboundWorkflows.sendMail, r.id, r.userId),
        )) === 'started'
      )
        started++;
    return started;
  };

  return {
    /** Sends one outbox row, unless it was sent already or no longer exists (the account's data was erased). */
    async sendOutboxMail(input: SendMailInput): Promise<SendMailResult> {
      const mail = await getOutboxMail(sql, input.outboxId);
      if (!mail || mail.failedAt) return { status: 'gone' };
      if (mail.sentAt) return { status: 'already_sent' };
      if (mail.text === null || mail.html === null) return { status: 'gone' };
      await countMailAttempt(sql, mail.id);
      // A fixed Message-ID per row: were the server to receive it twice (a crash between its answer and our record
      // of it), the receiving side sees one message.
      const messageId = `<mail-${mail.id}@${messageIdDomain(config.mail.from)}>`;
      try {
        await smtp().sendMail({
          from: config.mail.from,
          to: mail.to,
          subject: mail.subject,
          text: mail.text.replaceAll(PUBLIC_BASE_URL_PLACEHOLDER, config.publicBaseUrl),
          html: mail.html.replaceAll(PUBLIC_BASE_URL_PLACEHOLDER, config.publicBaseUrl),
          messageId,
        });
      } catch (err) {
        const e = err as Error & { responseCode?: number };
        await recordMailError(sql, mail.id, e.message).catch(() => {});
        if (e.responseCode !== undefined && e.responseCode >= 500 && e.responseCode < 600)
          throw nonRetryable(MAIL_REJECTED, e.message);
        throw err;
      }
      await markMailSent(sql, mail.id, messageId, mail.subject);
      log.info('mail sent', { outboxId: mail.id, kind: mail.kind, attempt: Context.current().info.attempt });
      return { status: 'sent', messageId };
    },

    /** The workflow gave up on a row: marked failed, its body erased. */
    async failOutboxMail(input: SendMailInput & { error: string }): Promise<void> {
      const mail = await getOutboxMail(sql, input.outboxId);
      await markMailFailed(sql, input.outboxId, input.error, mail?.subject ?? null);
      log.warn('mail not delivered', { outboxId: input.outboxId, error: input.error });
    },

    /** The mail sweep: starts the workflow of every unsent row older than 30 s (its writer died before starting it). */
    async startWaitingMails(): Promise<{ started: number }> {
      return { started: await startMails(await waitingMails(sql, SWEEP_GRACE_SECONDS, SWEEP_PAGE)) };
    },

    /** Starts the workflows of the mails an account was just written (by a worker step, right after its commit). */
    async startRecentMails(input: { userId: string }): Promise<{ started: number }> {
      const ids = await recentUnsentMails(sql, input.userId, 600);
      return { started: await startMails(ids.map((id) => ({ id, userId: input.userId }))) };
    },
  };
}

export type MailActivities = ReturnType<typeof createMailActivities>;
