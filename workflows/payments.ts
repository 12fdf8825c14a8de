// stripe-event-<event id>: applies one verified, stored Stripe event. The event was answered before this started;
// a subscription checkout reads the subscription from Stripe first. Everything the event changes is applied in one
// transaction by applyStripeEvent, which a retry or a second run of this workflow finds already done.
import { ActivityFailure, ApplicationFailure, proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { PaymentActivities } from '../activities/payments';
import { NON_RETRYABLE_PAYMENT_ERRORS, type StripeEventInput, type StripeEventResult } from '../lib/payments/types';
import { inboundBookkeeping, outsideCall } from './policies';

// Calls to Stripe: 30 s each, retried for about ten minutes (rate limits and blips pass by then).
const stripe = proxyActivities<PaymentActivities>(outsideCall(NON_RETRYABLE_PAYMENT_ERRORS));

// PostgreSQL work, as local activities: an event is applied inside its first workflow task (no activity task round
// trip through the server). A malformed event fails at once (non-retryable, recorded `failed`); other errors are
// retried 8 times over about 1.5 minutes, then the run fails with the event still `received`, and the inbound sweep
// starts it again a minute later: an outage delays a grant, never loses it, and nothing is retried in a tight loop.
const db = proxyLocalActivities<PaymentActivities>(inboundBookkeeping(NON_RETRYABLE_PAYMENT_ERRORS));

export async function stripeEvent(
  input: StripeEventInput,
): Promise<StripeEventResult | { status: 'failed'; error: string }> {
  const first = await db.applyStripeEvent({ eventId: input.eventId, subscription: null });
  if (first.status !== 'needs_subscription' && first.status !== 'needs_line_items') return first;
  // Read from Stripe what the event needs (a subscription checkout: the subscription; a paid pack checkout: its line
  // items), then apply with it. Stripe refusing the read (4xx) records the event failed.
  let read;
  try {
    read =
      first.status === 'needs_subscription'
        ? { subscription: await stripe.retrieveStripeSubscription({ subscriptionId: first.subscriptionId }) }
        : { subscription: null, lineItems: await stripe.listCheckoutLineItems({ sessionId: first.sessionId }) };
  } catch (err) {
    if (!(err instanceof ActivityFailure && err.cause instanceof ApplicationFailure && err.cause.nonRetryable))
      throw err;
    const error = err.cause.message;
    await db.failStripeEvent({ eventId: input.eventId, error });
    return { status: 'failed', error };
  }
  const applied = await db.applyStripeEvent({ eventId: input.eventId, ...read });
  if (applied.status === 'needs_subscription' || applied.status === 'needs_line_items')
    throw ApplicationFailure.nonRetryable(`what was read from Stripe was not used (${applied.status})`);
  return applied;
}
