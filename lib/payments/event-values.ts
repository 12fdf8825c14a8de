// Values read out of Stripe's payloads (ids, times in seconds, amounts in cents), and the error an event that can
// never be applied as it is raises: shared by what an event needs read (event-reads.ts) and what it means (events.ts).

export const idOf = (v: string | { id: string } | null | undefined): string | null =>
  v == null ? null : typeof v === 'string' ? v : v.id;

/**
 * An event that can never be applied as it is (a subscription checkout without a subscription, a time out of range).
 * The activity turns this, and anything else this engine throws on an event, into a non-retryable failure and marks
 * the stored event `failed`.
 */
export class MalformedStripeEventError extends Error {
  override name = 'MalformedStripeEventError';
}

/** Latest second PostgreSQL and JavaScript dates both hold comfortably: 9999-12-31T23:59:59Z. */
export const MAX_STRIPE_SECONDS = 253_402_300_799;

/** A Stripe time in seconds, or null when absent; anything else is malformed. */
export function seconds(v: unknown, what: string): number | null {
  if (v == null) return null;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > MAX_STRIPE_SECONDS)
    throw new MalformedStripeEventError(`${what} is not a time in seconds: ${JSON.stringify(v)}`);
  return v;
}

/** A count of cents, or null when absent; anything else is malformed. */
export function cents(v: unknown, what: string): number | null {
  if (v == null) return null;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > 1e12)
    throw new MalformedStripeEventError(`${what} is not an amount in cents: ${JSON.stringify(v)}`);
  return v;
}
