import type { InboundWorkflowStart } from '../inbound';
import type { StripeEventInput } from './types';

/** The workflow that applies a stored Stripe event: `stripe-event-<event id>`. */
export function stripeEventStart(eventId: string, accountId: string | null): InboundWorkflowStart {
  const input: StripeEventInput = { eventId };
  return { workflowType: 'stripeEvent', workflowId: `stripe-event-${eventId}`, args: [input], accountId };
}
