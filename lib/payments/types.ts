// The payment flow's shared contract (workflows import this: plain data only).

/** Input of the `stripeEvent` workflow (id `stripe-event-<event id>`): the event itself is read from PostgreSQL. */
export interface StripeEventInput {
  eventId: string;
  /**
   * What the event needs read from Stripe before it is applied (a subscription checkout: its subscription; a paid
   * pack: its line items), decided when it was stored, from the payload and the checkout session this service
   * recorded (checkoutNeeds of lib/payments/events.ts); null: nothing. The workflow then reads first and applies
   * once. Absent in runs started before it and by the inbound sweep: the first apply says what it needs.
   */
  need?: StripeRead | null;
}

/** A line item of a Checkout Session, as read from Stripe. */
export interface LineItemFacts {
  priceId: string | null;
  quantity: number;
}

/** A read from Stripe a stored event needs before it can be applied. */
export type StripeRead = { subscriptionId: string } | { lineItemsOf: string };

/** The `stripeEvent` workflow's signature: what the API and the inbound sweep start it by (lib/payments/start.ts). */
export type StripeEventWorkflow = (
  input: StripeEventInput,
) => Promise<StripeEventResult | { status: 'failed'; error: string }>;

export interface StripeEventResult {
  status: 'processed' | 'ignored' | 'failed';
  type: string;
  /** Tokens granted by this event (0 when the grant had already been made by another event). */
  granted: number;
  reason?: string;
  /** A refund or dispute: tokens taken back by this event, and what of it the account owes. */
  takenBack?: number;
  owed?: number;
  /** A dispute won: tokens given back by this event. */
  givenBack?: number;
}

/** The few facts of a Stripe subscription the service keeps, as read from the API or carried by an event. */
export interface SubscriptionFacts {
  id: string;
  customerId: string | null;
  status: string;
  cancelAtPeriodEnd: boolean;
  /** Price of the first item: matches a plan. */
  priceId: string | null;
  /** Seconds since the epoch, from the first item (API 2026-10-28 keeps periods on items). */
  periodStart: number | null;
  periodEnd: number | null;
  /**
   * The subscription's first invoice (billing_reason `subscription_create`, else its oldest), when known: the
   * reference of a checkout's grant when the session names no invoice.
   */
  firstInvoiceId: string | null;
  userId: string | null;
  /** Seconds since the epoch: when this state was true at Stripe (event `created`, or when it was read). */
  asOf: number;
}

export const PaymentErrors = {
  /** The event is not in the database (never stored): nothing to process. */
  EventNotFound: 'StripeEventNotFound',
  /** Stripe refused the request (4xx other than 429): retrying will not help. */
  Rejected: 'StripeRejected',
  /** The stored event cannot be applied as it is (the engine refused or threw on it): retrying will not help. */
  Malformed: 'StripeEventMalformed',
} as const;

export const NON_RETRYABLE_PAYMENT_ERRORS: string[] = Object.values(PaymentErrors);
