// The application's own metrics (docs/operations.md), recorded by the worker's activities through the Temporal SDK's
// MetricMeter: under `npm start` the SDK's Prometheus exporter (WORKER_METRICS_ADDRESS) serves them next to its own
// temporal_* metrics, so one endpoint carries both. Without a metrics exporter the SDK's meter records nothing.
import type { MetricMeter } from '@temporalio/common';

export type GenerationOutcome = 'completed' | 'failed';
export type ChatJobOutcome = 'completed' | 'failed';
/** ok: an image came back; retry: a retryable failure the activity's retry policy retries; failover: the provider
 * is given up (its last attempt failed, or it rejected the request) and the next one in the plan is tried; refused:
 * the provider refused the prompt (no other provider is asked). */
export type ProviderOutcome = 'ok' | 'retry' | 'failover' | 'refused';
export type WebhookOutcome = 'delivered' | 'retry' | 'refused';
export type TokenDirection = 'debit' | 'refund' | 'grant' | 'clawback';

/** Every metric name the application exports itself (the tests check alert rules and the dashboard against it). */
export const APP_METRICS = {
  generationDuration: 'mockup_generation_duration_seconds',
  chatJobDuration: 'mockup_chat_job_duration_seconds',
  providerRequests: 'mockup_provider_requests_total',
  webhookDeliveries: 'mockup_webhook_deliveries_total',
  tokens: 'mockup_tokens_total',
  stripeEvents: 'mockup_stripe_events_total',
  shopifyWebhooks: 'mockup_shopify_webhooks_total',
  ledgerDebt: 'mockup_ledger_debt_tokens_total',
} as const;

/** Histogram buckets (seconds) of the two duration metrics: a generation's goal is seconds, a chat job's a minute. */
export const DURATION_BUCKETS: Record<string, number[]> = {
  [APP_METRICS.generationDuration]: [0.25, 0.5, 1, 2, 3, 5, 8, 13, 21, 34, 60, 120],
  [APP_METRICS.chatJobDuration]: [1, 2, 5, 10, 20, 30, 60, 90, 120, 180, 300, 600],
};

export interface AppMetrics {
  /** A generation finished; its duration is counted from its id's creation time (timeId) to now. */
  generationFinished(generationId: string, outcome: GenerationOutcome): void;
  /** A chat render job finished (provider: the one that answered, or `none`), timed from its id like generations. */
  chatJobFinished(jobId: string, provider: string, outcome: ChatJobOutcome): void;
  providerRequest(provider: string, outcome: ProviderOutcome): void;
  /** One webhook delivery attempt (attempt numbers are bucketed: 1, 2, 3, 4-6, 7+). */
  webhookDelivery(outcome: WebhookOutcome, attempt: number): void;
  tokens(direction: TokenDirection, amount: number): void;
  stripeEvent(type: string, outcome: string): void;
  shopifyWebhook(topic: string, outcome: string): void;
  /** Tokens a clawback could not take because they were spent: the account owes them (docs/payments.md). */
  ledgerDebt(amount: number): void;
}

/** Records nothing: the default where no meter is given (tests that do not look at metrics). */
export const noMetrics: AppMetrics = {
  generationFinished: () => {},
  chatJobFinished: () => {},
  providerRequest: () => {},
  webhookDelivery: () => {},
  tokens: () => {},
  stripeEvent: () => {},
  shopifyWebhook: () => {},
  ledgerDebt: () => {},
};

/** Seconds since the creation time a `timeId` carries (`gen_<ms>_…`), or undefined for an id without one. */
export function secondsSinceId(id: string, now = Date.now()): number | undefined {
  const ms = Number(/^[a-z]+_(\d{13})_/.exec(id)?.[1]);
  return Number.isFinite(ms) && ms <= now ? (now - ms) / 1000 : undefined;
}

export function attemptBucket(attempt: number): string {
  if (attempt <= 3) return String(Math.max(1, Math.trunc(attempt)));
  return attempt <= 6 ? '4-6' : '7+';
}

/** Stripe event types and Shopify topics are verified input, yet a label keeps to their shape and length. */
export function typeLabel(v: string): string {
  return /^[a-z0-9_./]{1,64}$/.test(v) ? v : 'other';
}

export function meterMetrics(meter: MetricMeter): AppMetrics {
  const generation = meter.createHistogram(
    APP_METRICS.generationDuration,
    'float',
    's',
    'Time from a generation request to its completion or failure',
  );
  const chat = meter.createHistogram(
    APP_METRICS.chatJobDuration,
    'float',
    's',
    'Time from a chat render job request to its completion or failure',
  );
  const provider = meter.createCounter(APP_METRICS.providerRequests, '', 'Image provider requests by outcome');
  const webhook = meter.createCounter(APP_METRICS.webhookDeliveries, '', 'Webhook delivery attempts by outcome');
  const tokens = meter.createCounter(APP_METRICS.tokens, '', 'Tokens moved by the worker, by direction');
  const stripe = meter.createCounter(APP_METRICS.stripeEvents, '', 'Stripe events applied, by type and outcome');
  const shopify = meter.createCounter(APP_METRICS.shopifyWebhooks, '', 'Shopify webhooks processed, by outcome');
  const debt = meter.createCounter(APP_METRICS.ledgerDebt, '', 'Tokens owed: taken back by a clawback but spent');
  return {
    generationFinished(id, outcome) {
      const s = secondsSinceId(id);
      if (s !== undefined) generation.record(s, { outcome });
    },
    chatJobFinished(id, p, outcome) {
      const s = secondsSinceId(id);
      if (s !== undefined) chat.record(s, { provider: p, outcome });
    },
    providerRequest: (p, outcome) => provider.add(1, { provider: p, outcome }),
    webhookDelivery: (outcome, attempt) => webhook.add(1, { outcome, attempt: attemptBucket(attempt) }),
    tokens: (direction, amount) => {
      if (amount > 0) tokens.add(amount, { direction });
    },
    stripeEvent: (type, outcome) => stripe.add(1, { type: typeLabel(type), outcome }),
    shopifyWebhook: (topic, outcome) => shopify.add(1, { topic: typeLabel(topic), outcome }),
    ledgerDebt: (amount) => {
      if (amount > 0) debt.add(amount);
    },
  };
}

/** The outcome of a failed provider attempt: a retryable failure is retried until the plan's last attempt, after
 * which the workflow fails over (as it does at once on a rejection); a refusal ends the job. */
export function providerOutcome(
  kind: 'retryable' | 'rejected' | 'refused',
  attempt: number,
  attempts: number,
): ProviderOutcome {
  if (kind === 'refused') return 'refused';
  return kind === 'retryable' && attempt < attempts ? 'retry' : 'failover';
}

/** The tokens a Stripe event moved: granted (a purchase, a plan period) and given back (a dispute won) are grants,
 * taken back (a refund, a dispute lost) a clawback. */
export function tokenMoves(a: {
  granted?: number;
  takenBack?: number;
  givenBack?: number;
}): [TokenDirection, number][] {
  const moves: [TokenDirection, number][] = [];
  const grant = (a.granted ?? 0) + (a.givenBack ?? 0);
  if (grant > 0) moves.push(['grant', grant]);
  if ((a.takenBack ?? 0) > 0) moves.push(['clawback', a.takenBack!]);
  return moves;
}
