// stripe-event-<event id>: applies one verified, stored Stripe event. The event was answered before this started;
// a subscription checkout reads the subscription from Stripe first. Everything the event changes is applied in one
// transaction by applyStripeEvent, which a retry or a second run of this workflow finds already done.
import { ActivityFailure, ApplicationFailure, deprecatePatch, proxyLocalActivities } from '@temporalio/workflow';
import type { PaymentActivities } from '../activities/payments';
import {
  NON_RETRYABLE_PAYMENT_ERRORS,
  PaymentErrors,
  type StripeEventInput,
  type StripeEventResult,
} from '../lib/payments/types';
import { inboundBookkeeping, outsideRead } from './policies';

// Reads from Stripe: local activities in the workflow task that needs them, retried for about ten minutes (rate
// limits and blips pass by then).
const stripeLocal = proxyLocalActivities<PaymentActivities>(outsideRead(NON_RETRYABLE_PAYMENT_ERRORS));

/**
 * The reads from Stripe an event needs (a paid pack's line items, a new subscription) run as local activities: a
 * pack purchase is then one workflow task (apply, read, apply) instead of three with an activity task between,
 * which had halved the events applied per second on 2 cores (docs/payments.md). Runs recorded before this patch read
 * through regular activities; that path is gone (issue 34: a run lasts minutes, the patch is from 2026-11-26), and the
 * patch is deprecated so runs that recorded its marker still replay.
 */
export const STRIPE_READS_LOCAL = 'stripe-reads-local';

// PostgreSQL work, as local activities: an event is applied inside its first workflow task (no activity task round
// trip through the server). A malformed event fails at once (non-retryable, recorded `failed`); other errors are
// retried 8 times over about 1.5 minutes, then the run fails with the event still `received`, and the inbound sweep
// starts it again a minute later: an outage delays a grant, never loses it, and nothing is retried in a tight loop.
const db = proxyLocalActivities<PaymentActivities>(inboundBookkeeping(NON_RETRYABLE_PAYMENT_ERRORS));

export async function stripeEvent(
  input: StripeEventInput,
): Promise<StripeEventResult | { status: 'failed'; error: string }> {
  const { eventId, need } = input;
  if (need) {
    // Started with what to read (the API decided it when it stored the event): read and apply in one local activity,
    // retried as a Stripe read is; Stripe refusing the read records the event failed.
    try {
      return used(await stripeLocal.readAndApplyStripeEvent({ eventId, need }));
    } catch (err) {
      if (!(err instanceof ApplicationFailure && err.type === PaymentErrors.Rejected)) throw err;
      return readFailed(eventId, err.message);
    }
  }
  // Nothing to read (need null), or started without knowing (the inbound sweep, runs from before): the first apply
  // applies the event, or says what it needs.
  const first = await db.applyStripeEvent({ eventId, subscription: null });
  if (first.status !== 'needs_subscription' && first.status !== 'needs_line_items') return first;
  // Read from Stripe what the event needs (a subscription checkout: the subscription; a paid pack checkout: its line
  // items), then apply with it. Stripe refusing the read (4xx) records the event failed.
  let read;
  deprecatePatch(STRIPE_READS_LOCAL);
  try {
    read =
      first.status === 'needs_subscription'
        ? { subscription: await stripeLocal.retrieveStripeSubscription({ subscriptionId: first.subscriptionId }) }
        : { subscription: null, lineItems: await stripeLocal.listCheckoutLineItems({ sessionId: first.sessionId }) };
  } catch (err) {
    // a regular activity's failure wraps the activity's error; a local activity's is that error itself
    const cause = err instanceof ActivityFailure ? err.cause : err;
    if (!(cause instanceof ApplicationFailure && cause.nonRetryable)) throw err;
    return readFailed(eventId, cause.message);
  }
  return used(await db.applyStripeEvent({ eventId, ...read }));
}

/** A read from Stripe that can never be used: the event is recorded failed (no sweep starts it again). */
async function readFailed(eventId: string, error: string): Promise<{ status: 'failed'; error: string }> {
  await db.failStripeEvent({ eventId, error });
  return { status: 'failed', error };
}

/** An apply given what it needed from Stripe never asks for it again. */
function used<T extends { status: string }>(
  applied: T,
): Exclude<T, { status: 'needs_subscription' | 'needs_line_items' }> {
  if (applied.status === 'needs_subscription' || applied.status === 'needs_line_items')
    throw ApplicationFailure.nonRetryable(`what was read from Stripe was not used (${applied.status})`);
  return applied as Exclude<T, { status: 'needs_subscription' | 'needs_line_items' }>;
}
