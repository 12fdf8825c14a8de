import { inboundStart, type InboundWorkflowStart } from '../inbound';
import type { StripeEventWorkflow } from './types';

/** The workflow that applies a stored Stripe event (`stripeEvent` of workflows/): `stripe-event-<event id>`. */
export function stripeEventStart(
  workflow: StripeEventWorkflow,
  eventId: string,
  accountId: string | null,
): InboundWorkflowStart {
  return inboundStart(workflow, `stripe-event-${eventId}`, { eventId }, accountId);
}
