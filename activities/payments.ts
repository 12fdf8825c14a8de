// Activities of the `stripeEvent` workflow: read the stored event, read a subscription from Stripe when the event
// needs it, then apply the event in one transaction (db/payments.ts). Each may run twice: the event row and the
// ledger's unique references make the second run change nothing.
import { ApplicationFailure } from '@temporalio/activity';
import type { Sql } from '../db/client';
import { applyStripeOutcome, failStripeEvent, getStripeEvent, listPlans } from '../db/payments';
import type { Config } from '../lib/config';
import type { Logger } from '../lib/log';
import type { PlanRow } from '../lib/payments/catalog';
import {
  firstInvoiceOf,
  interpretEvent,
  subscriptionFacts,
  subscriptionToRetrieve,
  type EventOutcome,
} from '../lib/payments/events';
import { createStripeClient, type Stripe } from '../lib/payments/stripe';
import { PaymentErrors, type StripeEventResult, type SubscriptionFacts } from '../lib/payments/types';

export interface PaymentActivityDeps {
  sql: Sql;
  config: Config;
  log: Logger;
}

const fail = (type: string, message: string) => ApplicationFailure.nonRetryable(message, type);

export function createPaymentActivities({ sql, config, log }: PaymentActivityDeps) {
  let stripe: Stripe | undefined;
  const client = () => (stripe ??= createStripeClient(config.payments));

  // The plans table changes only with a migration: read once per worker, then every minute at most.
  let plansCache: { at: number; map: Map<string, PlanRow> } | undefined;
  const plans = async () => {
    if (!plansCache || Date.now() - plansCache.at > 60_000)
      plansCache = { at: Date.now(), map: new Map((await listPlans(sql)).map((p) => [p.id, p])) };
    return plansCache.map;
  };

  const stored = async (eventId: string) => {
    const ev = await getStripeEvent(sql, eventId);
    if (!ev) throw fail(PaymentErrors.EventNotFound, `Stripe event ${eventId} is not stored`);
    return ev;
  };

  return {
    /**
     * Reads a subscription's current state from Stripe, with its first invoice: from the expanded latest invoice
     * while that is the one that created the subscription, else by listing its invoices. A 4xx other than 429 is
     * final.
     */
    async retrieveStripeSubscription({ subscriptionId }: { subscriptionId: string }): Promise<SubscriptionFacts> {
      try {
        const sub = await client().subscriptions.retrieve(subscriptionId, { expand: ['latest_invoice'] });
        let facts: SubscriptionFacts;
        try {
          facts = subscriptionFacts(sub, Math.floor(Date.now() / 1000));
        } catch (err) {
          throw fail(PaymentErrors.Malformed, `subscription ${subscriptionId}: ${(err as Error).message}`);
        }
        if (!facts.firstInvoiceId) {
          const invoices: { id?: string; billing_reason: string | null; created: number }[] = [];
          for await (const inv of client().invoices.list({ subscription: subscriptionId, limit: 100 })) {
            invoices.push({ id: inv.id, billing_reason: inv.billing_reason, created: inv.created });
            if (inv.billing_reason === 'subscription_create') break;
          }
          facts.firstInvoiceId = firstInvoiceOf(invoices);
        }
        return facts;
      } catch (err) {
        if (err instanceof ApplicationFailure) throw err;
        const status = (err as { statusCode?: number }).statusCode;
        if (status && status >= 400 && status < 500 && status !== 429)
          throw fail(PaymentErrors.Rejected, `Stripe refused to read ${subscriptionId}: ${(err as Error).message}`);
        throw err;
      }
    },

    /**
     * Applies the stored event once. A subscription checkout needs the subscription read from Stripe first: without
     * it, the answer says which one (`needs_subscription`) and nothing is changed.
     */
    async applyStripeEvent(input: {
      eventId: string;
      subscription: SubscriptionFacts | null;
    }): Promise<StripeEventResult | { status: 'needs_subscription'; subscriptionId: string }> {
      const ev = await stored(input.eventId);
      // Failed before (malformed, or a retry after the worker died having recorded it): fails the same way.
      if (ev.status === 'failed')
        throw fail(PaymentErrors.Malformed, (ev.result as { error?: string } | null)?.error ?? 'the event failed');
      if (ev.status !== 'received' && ev.result) {
        const r = ev.result as Awaited<ReturnType<typeof applyStripeOutcome>>;
        return { status: r.status, type: ev.type, granted: 0, ...(r.reason ? { reason: r.reason } : {}) };
      }
      const event = ev.payload as Stripe.Event;
      // The engine is pure: what it throws on an event it throws every time, so the event is recorded as failed and
      // the step is not retried (nor restarted by the sweep, which only starts events still `received`).
      const planRows = await plans();
      let outcome: EventOutcome | { status: 'needs_subscription'; subscriptionId: string };
      try {
        const toRead = subscriptionToRetrieve(event);
        outcome =
          toRead && !input.subscription
            ? { status: 'needs_subscription', subscriptionId: toRead }
            : interpretEvent(event, {
                catalog: config.payments,
                plans: planRows,
                ...(input.subscription ? { subscription: input.subscription } : {}),
              });
      } catch (err) {
        const error = `malformed ${ev.type} event: ${(err as Error).message}`;
        await failStripeEvent(sql, ev.id, error);
        log.warn('stripe event failed: malformed', { eventId: ev.id, type: ev.type, error });
        throw fail(PaymentErrors.Malformed, error);
      }
      if ('status' in outcome) return outcome;
      const applied = await applyStripeOutcome(sql, ev.id, outcome);
      if (applied.granted > 0)
        log.info('stripe event granted tokens', {
          eventId: ev.id,
          type: ev.type,
          userId: applied.userId,
          tokens: applied.granted,
        });
      return {
        status: applied.status,
        type: ev.type,
        granted: applied.granted,
        ...(applied.reason ? { reason: applied.reason } : {}),
      };
    },

    /** Records an event that cannot be applied (Stripe refused what it needs), so no sweep starts it again. */
    async failStripeEvent({ eventId, error }: { eventId: string; error: string }): Promise<void> {
      await failStripeEvent(sql, eventId, error);
    },
  };
}

export type PaymentActivities = ReturnType<typeof createPaymentActivities>;
