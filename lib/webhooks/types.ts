// The webhook delivery flow's shared contract: the workflow's input and result, what its activities return, and the
// retry schedule (pure, no imports: the workflow uses it inside the Temporal sandbox).
import type { RetrySchedule } from './schedule';

export { BACKOFF_COEFFICIENT, JITTER, MAX_ATTEMPTS, retryDelayMs, type RetrySchedule } from './schedule';

export interface WebhookDeliveryInput {
  generationId: string;
  accountId: string;
  url: string;
  event: 'generation.completed' | 'generation.failed';
  /** A resend (POST /generations/<id>/deliveries): the id of the delivery the API created; absent for the first. */
  resendId?: string;
  /** exact payload sent, built by the generation workflow: {event, timestamp, data: {id, status, mockupUrl, tokensUsed}} or for failures {event, timestamp, data: {id, status: 'failed', error, tokensUsed}} */
  payload: Record<string, unknown>;
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
