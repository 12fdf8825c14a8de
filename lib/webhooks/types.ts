// The webhook delivery flow's shared contract: the payloads (spec "Outbound: generation completion", built by the
// generation workflow), the workflow's input and result, what its activities return, and the retry schedule (pure,
// no I/O: the workflows use it inside the Temporal sandbox).
import type { RetrySchedule } from './schedule';

export { BACKOFF_COEFFICIENT, JITTER, MAX_ATTEMPTS, retryDelayMs, type RetrySchedule } from './schedule';

export type WebhookEvent = 'generation.completed' | 'generation.failed' | 'bulk.completed';

export interface GenerationCompletedPayload {
  event: 'generation.completed';
  /** ISO 8601 time of completion. */
  timestamp: string;
  /** false for a test-mode generation */
  livemode: boolean;
  data: { id: string; status: 'completed'; mockupUrl: string; tokensUsed: number };
}

export interface GenerationFailedPayload {
  event: 'generation.failed';
  /** ISO 8601 time the generation was marked failed. */
  timestamp: string;
  /** false for a test-mode generation */
  livemode: boolean;
  data: { id: string; status: 'failed'; error: string; tokensUsed: number };
}

/** A bulk render has ended (issue 35): every item finished, or it was canceled; sent once per bulk. */
export interface BulkCompletedPayload {
  event: 'bulk.completed';
  /** ISO 8601 time the bulk ended. */
  timestamp: string;
  /** false for a test-mode bulk */
  livemode: boolean;
  data: {
    id: string;
    status: 'completed' | 'canceled';
    total: number;
    completed: number;
    failed: number;
    /** the ZIP of every completed mockup, or null when none completed */
    archiveUrl: string | null;
    tokensCharged: number;
    tokensRefunded: number;
  };
}

export type WebhookPayload = GenerationCompletedPayload | GenerationFailedPayload | BulkCompletedPayload;

const iso = (t: Date | string) => (typeof t === 'string' ? new Date(t) : t).toISOString();

/**
 * The spec's fields plus `livemode` (test mode, docs/test-mode.md); nothing else, so receivers written against the
 * spec see what they expect.
 */
export function generationCompletedPayload(g: {
  id: string;
  mockupUrl: string;
  tokensUsed: number;
  completedAt: Date | string;
  livemode?: boolean;
}): GenerationCompletedPayload {
  const { id, mockupUrl, tokensUsed } = g;
  return {
    event: 'generation.completed',
    timestamp: iso(g.completedAt),
    livemode: g.livemode ?? true,
    data: { id, status: 'completed', mockupUrl, tokensUsed },
  };
}

/** The failure counterpart: same envelope, status `failed`, the generation's error message instead of a mockup. */
export function generationFailedPayload(g: {
  id: string;
  error: string;
  tokensUsed: number;
  failedAt: Date | string;
  livemode?: boolean;
}): GenerationFailedPayload {
  const { id, error, tokensUsed } = g;
  return {
    event: 'generation.failed',
    timestamp: iso(g.failedAt),
    livemode: g.livemode ?? true,
    data: { id, status: 'failed', error, tokensUsed },
  };
}

/** A delivery is of a generation (its completion callback, or a resend) or of a bulk (its one bulk.completed). */
export type WebhookDeliveryInput = (
  { generationId: string; bulkId?: undefined } | { bulkId: string; generationId?: undefined }
) &
  WebhookDeliveryFields;

interface WebhookDeliveryFields {
  accountId: string;
  url: string;
  event: WebhookEvent;
  /** A resend (POST /generations/<id>/deliveries): the id of the delivery the API created; absent for the first. */
  resendId?: string;
  /** the exact payload sent, built by the generation workflow */
  payload: WebhookPayload;
}

export interface WebhookDeliveryResult {
  delivered: boolean;
  /** HTTP attempts recorded for the delivery. */
  attempts: number;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface PreparedDelivery {
  deliveryId: string;
  status: DeliveryStatus;
  /** Attempts already recorded (non-zero only when a delivery is picked up again). */
  attempts: number;
  /** Epoch ms after which no further attempt starts: creation time + retry window. */
  deadline: number;
  timeoutMs: number;
  schedule: Pick<RetrySchedule, 'initialMs' | 'maxIntervalMs'>;
}

export interface AttemptResult {
  attempt: number;
  /** delivered: 2xx. retry: any other answer, a timeout or a network error. refused: the URL failed the SSRF guard. */
  outcome: 'delivered' | 'retry' | 'refused';
  statusCode: number | null;
  durationMs: number;
  error: string | null;
}
