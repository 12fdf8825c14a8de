// The one way the app talks to Stripe: every Stripe API call of the service (checkout, the billing portal, reading
// what an event needs, undoing at Stripe what a deleted account left) is a method here, made with the official
// `stripe` client (lib/payments/stripe.ts) built from configuration on the first call. Errors are Stripe's own
// (statusCode, code, type): each caller decides what a refusal means for it.
import type { Config } from '../config';
import { createStripeClient, type Stripe } from './stripe';

/** A call that must not happen twice: the library's own retries, or a retried activity, send the same key. */
export interface Once {
  idempotencyKey: string;
}

export interface StripeGateway {
  // ------------------------------------------------------------ the customer's own steps (api/services/payments.ts)
  createCustomer(params: Stripe.CustomerCreateParams, once: Once): Promise<Stripe.Customer>;
  createCheckoutSession(params: Stripe.Checkout.SessionCreateParams, once: Once): Promise<Stripe.Checkout.Session>;
  createPortalSession(
    params: Stripe.BillingPortal.SessionCreateParams,
    once: Once,
  ): Promise<Stripe.BillingPortal.Session>;

  // ------------------------------------------------------------ what an event needs read (activities/payments.ts)
  /** The subscription with its latest invoice expanded. */
  retrieveSubscription(subscriptionId: string): Promise<Stripe.Subscription>;
  /** Every invoice of the subscription, newest first, page by page as they are read. */
  subscriptionInvoices(subscriptionId: string): AsyncIterable<Stripe.Invoice>;
  /** Every line item of a Checkout Session, page by page as they are read. */
  checkoutLineItems(sessionId: string): AsyncIterable<Stripe.LineItem>;

  // ------------------------------------------------------------ account deletion and what it left behind
  cancelSubscription(subscriptionId: string, once: Once): Promise<Stripe.Subscription>;
  expireCheckoutSession(sessionId: string, once: Once): Promise<Stripe.Checkout.Session>;
  deleteCustomer(customerId: string): Promise<Stripe.DeletedCustomer>;
  /** The subscription's paid invoices, at most `limit` (one page). */
  paidInvoices(subscriptionId: string, limit: number): Promise<Stripe.Invoice[]>;
  /** The paid payments of an invoice (one page of at most 10). */
  paidInvoicePayments(invoiceId: string): Promise<Stripe.InvoicePayment[]>;
  createRefund(params: Stripe.RefundCreateParams, once: Once): Promise<Stripe.Refund>;
}

/**
 * The gateway for this configuration. The client is built on the first call, so a process without STRIPE_SECRET_KEY
 * can hold a gateway: its first call throws PaymentsNotConfiguredError.
 */
export function createStripeGateway(payments: Config['payments']): StripeGateway {
  let client: Stripe | undefined;
  const stripe = () => (client ??= createStripeClient(payments));
  return {
    createCustomer: (params, once) => stripe().customers.create(params, once),
    createCheckoutSession: (params, once) => stripe().checkout.sessions.create(params, once),
    createPortalSession: (params, once) => stripe().billingPortal.sessions.create(params, once),

    retrieveSubscription: (subscriptionId) =>
      stripe().subscriptions.retrieve(subscriptionId, { expand: ['latest_invoice'] }),
    subscriptionInvoices: (subscriptionId) => stripe().invoices.list({ subscription: subscriptionId, limit: 100 }),
    checkoutLineItems: (sessionId) => stripe().checkout.sessions.listLineItems(sessionId, { limit: 100 }),

    cancelSubscription: (subscriptionId, once) => stripe().subscriptions.cancel(subscriptionId, {}, once),
    expireCheckoutSession: (sessionId, once) => stripe().checkout.sessions.expire(sessionId, {}, once),
    deleteCustomer: (customerId) => stripe().customers.del(customerId),
    paidInvoices: async (subscriptionId, limit) =>
      (await stripe().invoices.list({ subscription: subscriptionId, status: 'paid', limit })).data,
    paidInvoicePayments: async (invoiceId) =>
      (await stripe().invoicePayments.list({ invoice: invoiceId, status: 'paid', limit: 10 })).data,
    createRefund: (params, once) => stripe().refunds.create(params, once),
  };
}
