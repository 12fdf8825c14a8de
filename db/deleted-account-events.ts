// A Stripe event for an account whose deletion was asked for (docs/accounts.md#deletion): it never grants tokens
// nor creates or changes a plan. It is recorded ignored, its payload erased at once, and what it started at Stripe
// (a subscription, a paid pack) is named in the result for the event's activity to undo: the subscription cancelled,
// the pack's payment refunded (activities/payments.ts, each with an idempotency key).
import type { EventOutcome } from '../lib/payments/events';
import type { Tx } from './client';

/** What an event for a deleted account asks to undo at Stripe, and what was done (set after the Stripe calls). */
export interface DeletedAccountUndo {
  subscriptionId: string | null;
  paymentIntent: string | null;
  /** set once Stripe answered: the subscription cancelled, the payment refunded (the refund's id) */
  done?: { cancelled: boolean; refundId: string | null };
}

/** The payload an erased event keeps: its object's id and type, nothing of the customer. */
export const ERASED_PAYLOAD = (tx: Tx) => tx`jsonb_build_object('erased', true, 'data',
  jsonb_build_object('object', jsonb_build_object('id', payload #> '{data,object,id}',
                                                  'object', payload #> '{data,object,object}')))`;

/** The recorded result of an event for the deleted account `userId` (locked, and found deleted, by the caller). */
export async function deletedAccountEvent(
  tx: Tx,
  userId: string,
  eventId: string,
  outcome: Extract<EventOutcome, { kind: 'apply' }>,
): Promise<{ status: 'ignored'; granted: 0; userId: string; reason: string; undo?: DeletedAccountUndo }> {
  await tx`update stripe_events set payload = ${ERASED_PAYLOAD(tx)} where id = ${eventId}`;
  const subscriptionId = outcome.subscription?.externalId ?? outcome.user.subscriptionId ?? null;
  // only a pack's payment is refunded here (its grant is what was paid for); a subscription's is its invoice's
  const paymentIntent = outcome.grant && outcome.purchase ? outcome.purchase.paymentIntent : null;
  const undo = subscriptionId || paymentIntent ? { subscriptionId, paymentIntent } : undefined;
  return { status: 'ignored', granted: 0, userId, reason: 'account deleted', ...(undo ? { undo } : {}) };
}

/** Records what was undone at Stripe for an event of a deleted account. */
export async function recordDeletedAccountUndo(
  sql: Tx,
  eventId: string,
  done: NonNullable<DeletedAccountUndo['done']>,
): Promise<void> {
  await sql`update stripe_events set result = jsonb_set(result, '{undo,done}', ${sql.json(done)})
            where id = ${eventId} and result ? 'undo'`;
}
