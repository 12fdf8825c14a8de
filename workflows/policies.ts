// The activity options the workflows share, one definition each. Each takes the flow's non-retryable error types
// (lib/<flow>/types.ts), so bad input fails at once under every policy.
import type { Duration } from '@temporalio/common';
import type { ActivityOptions, LocalActivityOptions, RetryPolicy } from '@temporalio/workflow';

/** Retries from `initialInterval`, doubling, at most `maximumInterval` apart; `maximumAttempts` in all (0: no limit). */
const doubling = (
  initialInterval: Duration,
  maximumInterval: Duration,
  maximumAttempts: number,
  nonRetryableErrorTypes: string[],
): RetryPolicy => ({
  initialInterval,
  backoffCoefficient: 2,
  maximumInterval,
  ...(maximumAttempts > 0 ? { maximumAttempts } : {}),
  nonRetryableErrorTypes,
});

/**
 * Bookkeeping in PostgreSQL as local activities, for paid work (generation, chat): retried patiently (20 attempts,
 * backoff to 30 s), since a database blip must not fail a paid job. Backoffs above localRetryThreshold wait on a
 * server timer instead of inside the workflow task, so a long retry does not hold one workflow task open.
 */
export const paidBookkeeping = (nonRetryableErrorTypes: string[]): LocalActivityOptions => ({
  startToCloseTimeout: '30 seconds',
  localRetryThreshold: '2 seconds',
  retry: doubling('500 milliseconds', '30 seconds', 20, nonRetryableErrorTypes),
});

/** The retry of image work and image providers: from 1 s, doubling, at most 10 s apart, `maximumAttempts`. */
export const imageRetry = (maximumAttempts: number, nonRetryableErrorTypes: string[]): RetryPolicy =>
  doubling('1 second', '10 seconds', maximumAttempts, nonRetryableErrorTypes);

/** Image work as local activities: bounded (2 minutes), a few attempts for transient trouble, none for bad input. */
export const imageWork = (nonRetryableErrorTypes: string[]): LocalActivityOptions => ({
  startToCloseTimeout: '2 minutes',
  localRetryThreshold: '2 seconds',
  retry: imageRetry(4, nonRetryableErrorTypes),
});

/**
 * Calls to an outside service (Stripe, a Shopify shop): 30 s each (a lost worker's call is retried after that),
 * retried for about ten minutes (rate limits and blips pass by then).
 */
export const outsideCall = (nonRetryableErrorTypes: string[]): ActivityOptions => ({
  startToCloseTimeout: '30 seconds',
  retry: doubling('1 second', '1 minute', 12, nonRetryableErrorTypes),
});

/**
 * A read from an outside service inside the workflow task that needs it, as a local activity (a paid pack's line
 * items from Stripe): the retries of outsideCall (30 s each, about ten minutes in all), backoffs above 2 s on a
 * server timer, and no activity task round trip through the server on the way.
 */
export const outsideRead = (nonRetryableErrorTypes: string[]): LocalActivityOptions => ({
  startToCloseTimeout: '30 seconds',
  localRetryThreshold: '2 seconds',
  retry: doubling('1 second', '1 minute', 12, nonRetryableErrorTypes),
});

/**
 * Applying an inbound event in PostgreSQL, as local activities: 8 attempts over about 1.5 minutes, then the run fails
 * with the event still waiting and the inbound sweep starts it again a minute later (nothing retried in a tight loop).
 */
export const inboundBookkeeping = (nonRetryableErrorTypes: string[]): LocalActivityOptions => ({
  startToCloseTimeout: '30 seconds',
  retry: doubling('1 second', '30 seconds', 8, nonRetryableErrorTypes),
});

/**
 * Bookkeeping in PostgreSQL that must outlast any outage (a storefront record, a webhook delivery's): retried
 * without limit, at most a minute apart.
 */
export const durableBookkeeping = (nonRetryableErrorTypes: string[] = []): ActivityOptions => ({
  startToCloseTimeout: '30 seconds',
  retry: doubling('1 second', '1 minute', 0, nonRetryableErrorTypes),
});
