// The Stripe client, built from configuration: the official `stripe` package (its pinned API version), pointed at
// STRIPE_API_URL when set (stripe-mock locally and in tests).
import Stripe from 'stripe';
import type { Config } from '../config';

export class PaymentsNotConfiguredError extends Error {
  constructor() {
    super('Payments are not configured');
  }
}

/** Stripe's signature tolerance for inbound events, in seconds. */
export const STRIPE_SIGNATURE_TOLERANCE_S = 300;

export function createStripeClient(p: Config['payments']): Stripe {
  if (!p.secretKey) throw new PaymentsNotConfiguredError();
  const url = p.apiUrl ? new URL(p.apiUrl) : undefined;
  return new Stripe(p.secretKey, {
    maxNetworkRetries: 2,
    timeout: 20_000,
    telemetry: false,
    ...(url
      ? {
          host: url.hostname,
          port: url.port || (url.protocol === 'https:' ? 443 : 80),
          protocol: url.protocol === 'https:' ? 'https' : 'http',
        }
      : {}),
  });
}

/** Verifies a `Stripe-Signature` over the raw body and parses the event; throws Stripe's verification error. */
export function verifyStripeEvent(rawBody: Buffer, header: string, secret: string): Stripe.Event {
  return webhooks.constructEvent(rawBody, header, secret, STRIPE_SIGNATURE_TOLERANCE_S);
}

/** The library's webhook helpers need no API key. */
const webhooks = new Stripe('sk_test_webhooks_only').webhooks;

/** A correctly signed `Stripe-Signature` header for a payload (tests, `npm run stripe:event`, the benchmark). */
export function signStripePayload(payload: string, secret: string, timestamp?: number): string {
  return webhooks.generateTestHeaderString({ payload, secret, ...(timestamp ? { timestamp } : {}) });
}

export type { Stripe };
