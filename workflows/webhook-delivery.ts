// Webhook delivery, started by the generation workflow as a child with id `webhook-<generation id>` (ABANDON, not
// awaited). One activity call per HTTP attempt with the attempt number chosen here, so every attempt has exactly
// one record; the backoff between attempts is a durable timer, so a worker restart neither loses nor repeats a wait.
import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  isCancellation,
  log,
  proxyActivities,
  sleep,
} from '@temporalio/workflow';
import type { WebhookActivities } from '../activities/webhooks';
import {
  MAX_ATTEMPTS,
  retryDelayMs,
  type AttemptResult,
  type WebhookDeliveryInput,
  type WebhookDeliveryResult,
} from '../lib/webhooks/types';
import { durableBookkeeping } from './policies';

// Bookkeeping activities only touch PostgreSQL: retried without limit (a database outage must delay a delivery,
// not lose it); bad input is raised non-retryable by the activity itself.
const { prepareWebhookDelivery, finishWebhookDelivery } = proxyActivities<WebhookActivities>(durableBookkeeping());

export async function webhookDelivery(input: WebhookDeliveryInput): Promise<WebhookDeliveryResult> {
  // Serializes the payload once and fixes the delivery id; returns the existing delivery if this is a re-run.
  const d = await prepareWebhookDelivery(input);
  if (d.status !== 'pending') return { delivered: d.status === 'delivered', attempts: d.attempts };

  // The HTTP timeout lives in config, which only activities read; the activity gets headroom for its two queries.
  // Its own retries only cover infrastructure trouble (worker lost, database blip): HTTP failures are results.
  const { attemptWebhookDelivery } = proxyActivities<WebhookActivities>({
    startToCloseTimeout: d.timeoutMs + 15_000,
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '10 seconds', maximumAttempts: 3 },
  });

  const finish = async (status: 'delivered' | 'failed') => {
    const { attempts } = await finishWebhookDelivery({ deliveryId: d.deliveryId, status });
    return { delivered: status === 'delivered', attempts };
  };

  let attempt = d.attempts + 1;
  let waits = d.attempts;
  try {
    for (;;) {
      let result: AttemptResult | undefined;
      try {
        result = await attemptWebhookDelivery({ deliveryId: d.deliveryId, attempt });
      } catch (err) {
        // The activity gave up on infrastructure trouble; whether it recorded the attempt is unknown, so the same
        // attempt number is tried again after the usual backoff: a recorded attempt is then returned, not re-sent.
        if (!(err instanceof ActivityFailure) || (err.cause instanceof ApplicationFailure && err.cause.nonRetryable))
          throw err;
        log.warn('webhook attempt activity failed; will try again', {
          deliveryId: d.deliveryId,
          attempt,
          error: err.cause?.message ?? err.message,
        });
      }
      if (result?.outcome === 'delivered') return await finish('delivered');
      // Refused by the SSRF guard: another attempt would be refused too.
      if (result?.outcome === 'refused') return await finish('failed');

      const remaining = d.deadline - Date.now();
      if (remaining <= 0 || (result && attempt >= MAX_ATTEMPTS)) return await finish('failed');
      waits++;
      // Capped at the time left so one last attempt happens when the window closes.
      await sleep(Math.min(retryDelayMs(waits, d.schedule, Math.random()), remaining));
      if (result) attempt++;
    }
  } catch (err) {
    // Cancelled by an operator: record the delivery as failed (it will not be retried) before ending.
    if (isCancellation(err))
      await CancellationScope.nonCancellable(() =>
        finishWebhookDelivery({ deliveryId: d.deliveryId, status: 'failed' }),
      );
    throw err;
  }
}
