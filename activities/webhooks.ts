// Activities of the webhook delivery workflow: create the delivery (body serialized once), make one signed HTTP
// attempt and record it, record the final state. Every step is idempotent so Temporal may re-run any of them.
import type { Sql } from '../db/client';
import { nonRetryable } from './deps';
import type { Config } from '../lib/config';
import { timeId } from '../lib/ids';
import type { Logger } from '../lib/log';
import type { AppMetrics } from '../lib/metrics';
import { generationAccount } from '../db/generations';
import { bulkAccount } from '../db/bulk';
import {
  deliveryToSend,
  ensureBulkDelivery,
  ensureDelivery,
  findAttempt,
  finishDelivery,
  recordAttempt,
} from '../db/webhook-deliveries';
import { activeSigningSecrets } from '../db/webhook-secrets';
import { postWebhook, WEBHOOK_USER_AGENT } from '../lib/webhooks/send';
import {
  DELIVERY_ID_HEADER,
  EVENT_HEADER,
  SIGNATURE_HEADER,
  signatureHeader,
  TIMESTAMP_HEADER,
} from '../lib/webhooks/signature';
import type { AttemptResult, DeliveryStatus, PreparedDelivery, WebhookDeliveryInput } from '../lib/webhooks/types';

export interface WebhookActivityDeps {
  sql: Sql;
  config: Config;
  log: Logger;
  metrics?: AppMetrics;
}

const EVENTS = new Set(['generation.completed', 'generation.failed', 'bulk.completed']);

/** Non-retryable: input no retry can fix. The workflow lets these fail it instead of retrying the attempt. */
const badInput = (message: string) => nonRetryable('InvalidWebhookDelivery', message);

export function createWebhookActivities({ sql, config, log, metrics }: WebhookActivityDeps) {
  const wh = config.webhooks;

  return {
    /**
     * Creates the delivery for a generation, or returns the existing one: the generation id (unique among the
     * deliveries its workflow starts) makes a re-run (or a second start of `webhook-<id>`) reuse the same delivery id
     * and the same serialized body. A resend is found by its own delivery id instead.
     */
    async prepareWebhookDelivery(input: WebhookDeliveryInput): Promise<PreparedDelivery> {
      if (!EVENTS.has(input.event)) throw badInput(`unknown webhook event ${JSON.stringify(input.event)}`);
      if (typeof input.url !== 'string' || input.url.length === 0 || input.url.length > 2048)
        throw badInput('webhook url missing or longer than 2048 characters');
      if (!input.payload || typeof input.payload !== 'object') throw badInput('webhook payload must be an object');
      // Serialized here, once: every attempt sends these exact bytes, so receivers can dedupe and verify.
      const body = JSON.stringify(input.payload);
      let d: Awaited<ReturnType<typeof ensureDelivery>>;
      if (input.bulkId !== undefined) {
        // a bulk's one bulk.completed (issue 35)
        const owner = await bulkAccount(sql, input.bulkId);
        if (!owner) throw badInput(`bulk ${input.bulkId} not found, or its account was deleted`);
        if (owner !== input.accountId) throw badInput(`bulk ${input.bulkId} does not belong to ${input.accountId}`);
        d = await ensureBulkDelivery(sql, {
          id: timeId('dlv'),
          bulkId: input.bulkId,
          userId: input.accountId,
          event: input.event,
          url: input.url,
          body,
        });
      } else {
        const owner = await generationAccount(sql, input.generationId);
        if (!owner) throw badInput(`generation ${input.generationId} not found, or its account was deleted`);
        if (owner !== input.accountId)
          throw badInput(`generation ${input.generationId} does not belong to ${input.accountId}`);
        d = await ensureDelivery(sql, {
          id: timeId('dlv'),
          generationId: input.generationId,
          userId: input.accountId,
          event: input.event,
          url: input.url,
          body,
          ...(input.resendId ? { resendId: input.resendId } : {}),
        });
      }
      return {
        deliveryId: d.id,
        status: d.status,
        attempts: d.attempts,
        deadline: d.createdAt.getTime() + wh.retryWindowMs,
        timeoutMs: wh.timeoutMs,
        schedule: { initialMs: wh.retryInitialMs, maxIntervalMs: wh.retryMaxIntervalMs },
      };
    },

    /**
     * One HTTP attempt. If this attempt number is recorded already (the activity ran before and its completion was
     * lost), the recorded result is returned without sending again. HTTP failures are results, not exceptions, so
     * the workflow alone decides when to retry and each attempt keeps its own record.
     */
    async attemptWebhookDelivery({
      deliveryId,
      attempt,
    }: {
      deliveryId: string;
      attempt: number;
    }): Promise<AttemptResult> {
      const d = await deliveryToSend(sql, deliveryId);
      if (!d) throw badInput(`webhook delivery ${deliveryId} not found, or its account was deleted`);
      const recorded = await findAttempt(sql, deliveryId, attempt);
      if (recorded) return recorded;

      const secrets = await activeSigningSecrets(sql, d.userId);
      const timestamp = Math.floor(Date.now() / 1000);
      const headers = {
        'content-type': 'application/json',
        'user-agent': WEBHOOK_USER_AGENT,
        [EVENT_HEADER.toLowerCase()]: d.event,
        [DELIVERY_ID_HEADER.toLowerCase()]: deliveryId,
        [TIMESTAMP_HEADER.toLowerCase()]: String(timestamp),
        [SIGNATURE_HEADER.toLowerCase()]: signatureHeader(secrets, timestamp, d.body),
      };
      const attemptedAt = new Date();
      const started = performance.now();
      const res = await postWebhook({
        url: d.url,
        body: d.body,
        headers,
        timeoutMs: wh.timeoutMs,
        allowPrivateUrls: config.allowPrivateUrls,
      });
      const durationMs = Math.max(0, Math.round(performance.now() - started));

      let row: AttemptResult;
      if (res.kind === 'response') {
        const ok = res.statusCode >= 200 && res.statusCode < 300;
        row = {
          attempt,
          outcome: ok ? 'delivered' : 'retry',
          statusCode: res.statusCode,
          durationMs,
          error: ok ? null : `receiver answered HTTP ${res.statusCode}; expected 2xx`,
        };
      } else {
        row = {
          attempt,
          outcome: res.kind === 'refused' ? 'refused' : 'retry',
          statusCode: null,
          durationMs,
          error: res.error,
        };
      }

      const stored = await recordAttempt(sql, deliveryId, row, attemptedAt);
      // A concurrent run of the same attempt (an activity that timed out but kept going) recorded first: its
      // record is the one the workflow and the account see.
      const result = stored ?? (await findAttempt(sql, deliveryId, attempt))!;
      if (stored) metrics?.webhookDelivery(stored.outcome, attempt);
      log.info('webhook attempt', {
        deliveryId,
        attempt,
        outcome: result.outcome,
        statusCode: result.statusCode,
        durationMs: result.durationMs,
        error: result.error,
      });
      return result;
    },

    /** Records the final state once; later calls leave it alone and report the attempts recorded. */
    async finishWebhookDelivery({
      deliveryId,
      status,
    }: {
      deliveryId: string;
      status: 'delivered' | 'failed';
    }): Promise<{ status: DeliveryStatus; attempts: number }> {
      const row = await finishDelivery(sql, deliveryId, status);
      if (!row) throw badInput(`webhook delivery ${deliveryId} not found`);
      if (row.status === 'failed') log.warn('webhook delivery failed', { deliveryId, attempts: row.attempts });
      return row;
    },
  };
}

export type WebhookActivities = ReturnType<typeof createWebhookActivities>;
