import { inboundStart, type InboundWorkflowStart } from '../inbound';
import type { StripeEventWorkflow, StripeRead } from './types';

/** The workflow that applies a stored Stripe event (`stripeEvent` of workflows/): `stripe-event-<event id>`. */
export function stripeEventStart(
  workflow: StripeEventWorkflow,
  eventId: string,
  accountId: string | null,
  need?: StripeRead | null,
): InboundWorkflowStart {
  return inboundStart(
    workflow,
    `stripe-event-${eventId}`,
    need === undefined ? { eventId } : { eventId, need },
    accountId,
  );
}
