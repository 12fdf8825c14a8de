// Activities of the `stripeEvent` workflow: read the stored event, read a subscription from Stripe when the event
// needs it, then apply the event in one transaction (db/payments.ts). Each may run twice: the event row and the
// ledger's unique references make the second run change nothing.
import { ApplicationFailure } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import type { InboundWorkflows } from './inbound';
import { recentUnsentMails } from '../db/mail-outbox';
import { applyStoredStripeEvent, markStripeEventFailed } from '../db/payments';
import { listPlans } from '../db/billing';
import { startInboundWorkflow } from '../lib/inbound';
import { mailStart } from '../lib/mail/start';
import { tokenMoves } from '../lib/metrics';
import type { PlanRow } from '../lib/payments/catalog';
import { checkoutNeeds, firstInvoiceOf, subscriptionFacts } from '../lib/payments/event-reads';
import { interpretEvent, type LineItemFacts } from '../lib/payments/events';
import { MalformedStripeEventError } from '../lib/payments/event-values';
import { createStripeGateway } from '../lib/payments/gateway';
import type { Stripe } from '../lib/payments/stripe';
import { PaymentErrors, type StripeEventResult, type StripeRead, type SubscriptionFacts } from '../lib/payments/types';
import { nonRetryable as fail, type BookkeepingDeps } from './deps';
import { undoForDeletedAccount } from './deleted-account-stripe';

export interface PaymentActivityDeps extends BookkeepingDeps {
  /** The workflows these activities start, by reference (the worker hands them in). */
  inboundWorkflows?: InboundWorkflows;
  /** Starts the mail workflows of what an event wrote to the outbox (the accounts sweep does it otherwise). */
  temporal?: Client;
}

export function createPaymentActivities({
  sql,
  config,
  log,
  metrics,
  temporal,
  inboundWorkflows,
}: PaymentActivityDeps) {
  const stripe = createStripeGateway(config.payments);

  // The plans table changes only with a migration: read once per worker, then every minute at most.
  let plansCache: { at: number; map: Map<string, PlanRow> } | undefined;
  const plans = async () => {
    if (!plansCache || Date.now() - plansCache.at > 60_000)
      plansCache = { at: Date.now(), map: new Map((await listPlans(sql)).map((p) => [p.id, p])) };
    return plansCache.map;
  };

  /**
   * Reads a subscription's current state from Stripe, with its first invoice: from the expanded latest invoice
   * while that is the one that created the subscription, else by listing its invoices. A 4xx other than 429 is
   * final.
   */
  async function retrieveStripeSubscription({
    subscriptionId,
  }: {
    subscriptionId: string;
  }): Promise<SubscriptionFacts> {
    try {
      const sub = await stripe.retrieveSubscription(subscriptionId);
      let facts: SubscriptionFacts;
      try {
        facts = subscriptionFacts(sub, Math.floor(Date.now() / 1000));
      } catch (err) {
        throw fail(PaymentErrors.Malformed, `subscription ${subscriptionId}: ${(err as Error).message}`);
      }
      if (!facts.firstInvoiceId) {
        const invoices: { id?: string; billing_reason: string | null; created: number }[] = [];
        for await (const inv of stripe.subscriptionInvoices(subscriptionId)) {
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
  }

  /**
   * The line items of a Checkout Session (what was paid for: price and quantity), read from Stripe. A 4xx other
   * than 429 is final.
   */
  async function listCheckoutLineItems({ sessionId }: { sessionId: string }): Promise<LineItemFacts[]> {
    try {
      const items: LineItemFacts[] = [];
      for await (const li of stripe.checkoutLineItems(sessionId))
        items.push({ priceId: li.price?.id ?? null, quantity: li.quantity ?? 0 });
      return items;
    } catch (err) {
      const status = (err as { statusCode?: number }).statusCode;
      if (status && status >= 400 && status < 500 && status !== 429)
        throw fail(
          PaymentErrors.Rejected,
          `Stripe refused to list the items of ${sessionId}: ${(err as Error).message}`,
        );
      throw err;
    }
  }

  const activities = {
    retrieveStripeSubscription,
    listCheckoutLineItems,

    /**
     * Reads from Stripe what a stored event needs (told by the API when it stored the event), then applies it: one
     * local activity for a pack purchase or a subscription checkout instead of two. A read that cannot be used (a 4xx,
     * a malformed subscription) is final as `StripeRejected`; the workflow records the event failed.
     */
    async readAndApplyStripeEvent({ eventId, need }: { eventId: string; need: StripeRead }) {
      let read;
      try {
        read =
          'subscriptionId' in need
            ? { subscription: await retrieveStripeSubscription(need) }
            : { subscription: null, lineItems: await listCheckoutLineItems({ sessionId: need.lineItemsOf }) };
      } catch (err) {
        // a read that can never be used (refused, or a subscription that cannot be read as one): the workflow records
        // the event failed with this message, as when the read is its own step; the apply's own failures stay theirs
        if (err instanceof ApplicationFailure && err.nonRetryable) throw fail(PaymentErrors.Rejected, err.message);
        throw err;
      }
      return activities.applyStripeEvent({ eventId, ...read });
    },

    /**
     * Applies the stored event once. A subscription checkout needs the subscription read from Stripe first, a paid
     * pack checkout its line items: without them, the answer says what (`needs_subscription`, `needs_line_items`) and
     * nothing is changed. The event is read, decided and applied in one transaction (db/payments.ts).
     */
    async applyStripeEvent(input: {
      eventId: string;
      subscription: SubscriptionFacts | null;
      lineItems?: LineItemFacts[] | null;
    }): Promise<
      | StripeEventResult
      | { status: 'needs_subscription'; subscriptionId: string }
      | { status: 'needs_line_items'; sessionId: string }
    > {
      const planMap = await plans();
      let r: Awaited<ReturnType<typeof applyStoredStripeEvent>>;
      let eventType = 'unknown';
      try {
        r = await applyStoredStripeEvent(sql, input.eventId, (ev, session) => {
          const event = ev.payload as Stripe.Event;
          eventType = ev.type;
          // The engine is pure: what it throws on an event it throws every time, so the event is recorded as failed
          // and the step is not retried (nor restarted by the sweep, which only starts events still `received`).
          try {
            const need = checkoutNeeds(event, session);
            if (need && 'subscriptionId' in need && !input.subscription) return { kind: 'defer', need };
            if (need && 'lineItemsOf' in need && !input.lineItems) return { kind: 'defer', need };
            return interpretEvent(event, {
              catalog: config.payments,
              plans: planMap,
              session,
              ...(input.subscription ? { subscription: input.subscription } : {}),
              ...(input.lineItems ? { lineItems: input.lineItems } : {}),
            });
          } catch (err) {
            throw new MalformedStripeEventError(`malformed ${ev.type} event: ${(err as Error).message}`);
          }
        });
      } catch (err) {
        if (!(err instanceof MalformedStripeEventError)) throw err;
        await markStripeEventFailed(sql, input.eventId, err.message);
        metrics?.stripeEvent(eventType, 'failed');
        log.warn('stripe event failed: malformed', { eventId: input.eventId, error: err.message });
        throw fail(PaymentErrors.Malformed, err.message);
      }
      if (r.kind === 'missing') throw fail(PaymentErrors.EventNotFound, `Stripe event ${input.eventId} is not stored`);
      // Failed before (malformed, or a retry after the worker died having recorded it): fails the same way.
      if (r.kind === 'failed') throw fail(PaymentErrors.Malformed, r.error);
      if (r.kind === 'deferred')
        return 'subscriptionId' in r.need
          ? { status: 'needs_subscription', subscriptionId: r.need.subscriptionId }
          : { status: 'needs_line_items', sessionId: r.need.lineItemsOf };
      const { applied } = r;
      if (applied.undo) await undoForDeletedAccount({ sql, log, stripe }, input.eventId, applied.undo);
      // Applied before (a retry, or a second run): nothing granted now.
      const granted = r.kind === 'applied' ? applied.granted : 0;
      if (granted > 0)
        log.info('stripe event granted tokens', {
          eventId: input.eventId,
          type: r.type,
          userId: applied.userId,
          tokens: granted,
        });
      const fresh = r.kind === 'applied';
      metrics?.stripeEvent(r.type, fresh ? applied.status : 'replayed');
      if (fresh) for (const [d, n] of tokenMoves(applied)) metrics?.tokens(d, n);
      if (fresh) metrics?.ledgerDebt(applied.owed ?? 0);
      if (fresh && (applied.takenBack || applied.givenBack))
        log.info('stripe event changed a purchase', {
          eventId: input.eventId,
          type: r.type,
          userId: applied.userId,
          takenBack: applied.takenBack ?? 0,
          owed: applied.owed ?? 0,
          givenBack: applied.givenBack ?? 0,
        });
      if (r.kind === 'applied' && r.mailed && applied.userId && temporal && inboundWorkflows) {
        // the mails the event wrote (payment failed, subscription ending, tokens taken back), started after its commit
        for (const id of await recentUnsentMails(sql, applied.userId, 600))
          await startInboundWorkflow(
            temporal,
            config.temporal.taskQueue,
            mailStart(inboundWorkflows.sendMail, id, applied.userId),
          );
      }
      return {
        status: applied.status,
        type: r.type,
        granted,
        ...(applied.reason ? { reason: applied.reason } : {}),
        ...(applied.takenBack !== undefined ? { takenBack: fresh ? applied.takenBack : 0 } : {}),
        ...(applied.owed !== undefined ? { owed: fresh ? applied.owed : 0 } : {}),
        ...(applied.givenBack !== undefined ? { givenBack: fresh ? applied.givenBack : 0 } : {}),
      };
    },

    /** Records an event that cannot be applied (Stripe refused what it needs), so no sweep starts it again. */
    async failStripeEvent({ eventId, error }: { eventId: string; error: string }): Promise<void> {
      await markStripeEventFailed(sql, eventId, error);
    },
  };
  return activities;
}

export type PaymentActivities = ReturnType<typeof createPaymentActivities>;
