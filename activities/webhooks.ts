// Activities of the webhook delivery workflow: create the delivery (body serialized once), make one signed HTTP
// attempt and record it, record the final state. Every step is idempotent so Temporal may re-run any of them.
import { ApplicationFailure } from '@temporalio/activity';
import type { Sql } from '../db/client';
import type { Config } from '../lib/config';
import { timeId } from '../lib/ids';
import type { Logger } from '../lib/log';
import type { AppMetrics } from '../lib/metrics';
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

const EVENTS = new Set(['generation.completed', 'generation.failed']);

/** Non-retryable: input no retry can fix. The workflow lets these fail it instead of retrying the attempt. */
const badInput = (message: string) => ApplicationFailure.nonRetryable(message, 'InvalidWebhookDelivery');

interface AttemptRow {
  attempt: number;
  outcome: AttemptResult['outcome'];
  statusCode: number | null;
  durationMs: number;
  error: string | null;
}

export function createWebhookActivities({ sql, config, log, metrics }: WebhookActivityDeps) {
  const wh = config.webhooks;

  return {
    /**
     * Creates the delivery for a generation, or returns the existing one: the unique generation id makes a re-run
     * (or a second start of `webhook-<id>`) reuse the same delivery id and the same serialized body.
     */
    async prepareWebhookDelivery(input: WebhookDeliveryInput): Promise<PreparedDelivery> {
      if (!EVENTS.has(input.event)) throw badInput(`unknown webhook event ${JSON.stringify(input.event)}`);
      if (typeof input.url !== 'string' || input.url.length === 0 || input.url.length > 2048)
        throw badInput('webhook url missing or longer than 2048 characters');
      if (!input.payload || typeof input.payload !== 'object') throw badInput('webhook payload must be an object');
      const [gen] = await sql<
        { userId: string }[]
      >`select user_id as "userId" from generations where id = ${input.generationId}`;
      if (!gen) throw badInput(`generation ${input.generationId} not found`);
      if (gen.userId !== input.accountId)
        throw badInput(`generation ${input.generationId} does not belong to ${input.accountId}`);

      // Serialized here, once: every attempt sends these exact bytes, so receivers can dedupe and verify.
      const body = JSON.stringify(input.payload);
      await sql`
        insert into webhook_deliveries (id, generation_id, user_id, event, url, body)
        values (${timeId('dlv')}, ${input.generationId}, ${input.accountId}, ${input.event}, ${input.url}, ${body})
        on conflict (generation_id) do nothing`;
      const [d] = await sql<{ id: string; status: DeliveryStatus; attempts: number; createdAt: Date }[]>`
        select id, status, attempts, created_at as "createdAt" from webhook_deliveries where generation_id = ${input.generationId}`;
      return {
        deliveryId: d!.id,
        status: d!.status,
        attempts: d!.attempts,
        deadline: d!.createdAt.getTime() + wh.retryWindowMs,
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
      const [d] = await sql<{ userId: string; url: string; body: string; event: string }[]>`
        select user_id as "userId", url, body, event from webhook_deliveries where id = ${deliveryId}`;
      if (!d) throw badInput(`webhook delivery ${deliveryId} not found`);
      const recorded = await findAttempt(deliveryId, attempt);
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

      let row: AttemptRow;
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

      const stored = await sql.begin(async (tx) => {
        const [inserted] = await tx<AttemptRow[]>`
          insert into webhook_attempts (delivery_id, attempt, outcome, status_code, duration_ms, error, attempted_at)
          values (${deliveryId}, ${attempt}, ${row.outcome}, ${row.statusCode}, ${row.durationMs}, ${row.error}, ${attemptedAt})
          on conflict (delivery_id, attempt) do nothing
          returning attempt, outcome, status_code as "statusCode", duration_ms as "durationMs", error`;
        if (!inserted) return null;
        await tx`
          update webhook_deliveries
          set attempts = greatest(attempts, ${attempt}), last_attempt_at = greatest(last_attempt_at, ${attemptedAt})
          where id = ${deliveryId}`;
        return inserted;
      });
      // A concurrent run of the same attempt (an activity that timed out but kept going) recorded first: its
      // record is the one the workflow and the account see.
      const result = stored ?? (await findAttempt(deliveryId, attempt))!;
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
      const [row] = await sql<{ status: DeliveryStatus; attempts: number }[]>`
        update webhook_deliveries d
        set status = case when d.status = 'pending' then ${status} else d.status end,
            finished_at = coalesce(d.finished_at, now()),
            attempts = (select coalesce(max(attempt), 0) from webhook_attempts a where a.delivery_id = d.id)
        where d.id = ${deliveryId}
        returning d.status, d.attempts`;
      if (!row) throw badInput(`webhook delivery ${deliveryId} not found`);
      if (row.status === 'failed') log.warn('webhook delivery failed', { deliveryId, attempts: row.attempts });
      return row;
    },
  };

  async function findAttempt(deliveryId: string, attempt: number): Promise<AttemptResult | undefined> {
    const [r] = await sql<AttemptRow[]>`
      select attempt, outcome, status_code as "statusCode", duration_ms as "durationMs", error
      from webhook_attempts where delivery_id = ${deliveryId} and attempt = ${attempt}`;
    return r;
  }
}

export type WebhookActivities = ReturnType<typeof createWebhookActivities>;
