// Payments in PostgreSQL: stored Stripe events. Applying an event is one transaction (applyStoredStripeEvent): the
// subscription, the grant, the user's plan and the event's own status change together, so a retried activity or a
// repeated event finds the work done and changes nothing. Plans, customers and subscriptions are in db/billing.ts.
import { checkoutSessionOf, type KnownSession } from '../lib/payments/event-reads';
import {
  DISPUTE_RETURNING_STATUSES,
  PLAN_HOLDING_STATUSES,
  refundedCents,
  refundShare,
  type EventOutcome,
  type MoneyBack,
  type Purchase,
  type UserRef,
} from '../lib/payments/events';
import { randomSuffix } from '../lib/ids';
import type { StripeRead } from '../lib/payments/types';
import type { Sql, Tx } from './client';
import { deletedAccountEvent, type DeletedAccountUndo } from './deleted-account-events';
import { giveBackTokens, grantTokens, takeBackTokens } from './ledger';
import { mailPaymentFailed, mailSubscriptionEnding, mailTokensTakenBack } from './payment-mails';

// ---------------------------------------------------------------- stored events

/**
 * Stores a verified event (unique by id) in one statement that also says whether it was new, its status, and the
 * account it belongs to (for the workflow's AccountId search attribute; null when unknown).
 */
export async function storeStripeEvent(
  sql: Sql,
  e: { id: string; type: string; created: number; livemode: boolean; payload: unknown },
): Promise<{ inserted: boolean; status: string; accountId: string | null; session: KnownSession | null }> {
  const [row] = await sql<
    {
      status: string;
      inserted: boolean;
      accountId: string | null;
      sessionUser: string | null;
      sessionMode: string | null;
    }[]
  >`
    with ins as (
      insert into stripe_events (id, type, created, livemode, payload)
      values (${e.id}, ${e.type}, to_timestamp(${e.created}), ${e.livemode}, ${sql.json(e.payload as never)})
      on conflict (id) do nothing returning id, type, status, payload),
    e as (
      select id, type, status, payload, true as inserted from ins
      union all select id, type, status, payload, false from stripe_events
        where id = ${e.id} and not exists (select 1 from ins))
    select e.status, e.inserted, ${accountOfEvent(sql)} as "accountId",
      cs.user_id as "sessionUser", cs.mode as "sessionMode" from e ${accountJoins(sql)}`;
  return {
    inserted: row?.inserted ?? false,
    status: row?.status ?? 'received',
    accountId: row?.accountId ?? null,
    // the checkout session as recorded when this service created it (a checkout event's), else null
    session: recordedSession(row?.sessionUser, row?.sessionMode),
  };
}

/** A checkout session row joined to an event (`checkout_sessions` user_id, mode), or null when none was recorded. */
const recordedSession = (userId: string | null | undefined, mode: string | null | undefined): KnownSession | null =>
  userId ? { userId, mode: mode ?? '' } : null;

/**
 * The account of a stored event `e`: a checkout session's recorded account, else the user it names, else its
 * customer's, else its subscription's.
 */
const accountOfEvent = (sql: Sql) => sql`coalesce(cs.user_id, u.id, c.user_id, s.user_id)`;
const accountJoins = (sql: Sql) => sql`
  left join checkout_sessions cs on e.type like 'checkout.session.%' and cs.id = e.payload #>> '{data,object,id}'
  left join users u on u.id = coalesce(e.payload #>> '{data,object,client_reference_id}',
    e.payload #>> '{data,object,metadata,userId}')
  left join stripe_customers c on c.customer_id = e.payload #>> '{data,object,customer}'
  left join subscriptions s on s.stripe_subscription_id = coalesce(e.payload #>> '{data,object,subscription}',
    e.payload #>> '{data,object,parent,subscription_details,subscription}', e.payload #>> '{data,object,id}')`;

/** Events still `received` after `olderThanSeconds` (their workflow never started, or is still working). */
export function waitingStripeEvents(sql: Sql, olderThanSeconds: number, limit: number) {
  return sql<{ id: string; userId: string | null }[]>`
    select e.id, ${accountOfEvent(sql)} as "userId" from stripe_events e ${accountJoins(sql)}
    where e.status = 'received' and e.received_at < now() - make_interval(secs => ${olderThanSeconds})
    order by e.received_at limit ${limit}`;
}

export interface StoredStripeEvent {
  id: string;
  type: string;
  status: 'received' | 'processed' | 'ignored' | 'failed';
  payload: unknown;
  result: unknown;
}

/**
 * Records an event that cannot be applied (malformed, or Stripe refused what it needs) with the reason, so neither
 * the sweep nor a repeated delivery starts it again. Only an event still waiting changes.
 */
export async function markStripeEventFailed(sql: Sql, eventId: string, error: string): Promise<void> {
  await sql`update stripe_events set status = 'failed', result = ${sql.json({ error })}, processed_at = now()
    where id = ${eventId} and status = 'received'`;
}

export interface AppliedEvent {
  status: 'processed' | 'ignored';
  granted: number;
  userId: string | null;
  reason?: string;
  /** a refund or dispute: tokens taken back now, and what of it the account did not have (owed) */
  takenBack?: number;
  owed?: number;
  /** a dispute won: tokens given back */
  givenBack?: number;
  /** an event for a deleted account: what is undone at Stripe (db/deleted-account-events.ts) */
  undo?: DeletedAccountUndo;
}

/** What a deferred event needs read from Stripe first. */
export type EventNeed = StripeRead;

/**
 * Locks the user an event is for and returns their id and whether the account is deleted: the id it names (if it
 * exists), else its subscription's, else its customer's.
 */
async function lockUserOf(tx: Tx, ref: UserRef): Promise<{ id: string; deleted: boolean } | null> {
  const [row] = await tx<{ id: string; deleted: boolean }[]>`
    select id, deleted_at is not null as deleted from users where id = coalesce(
      (select id from users where id = ${ref.userId ?? ''}),
      (select user_id from subscriptions where stripe_subscription_id = ${ref.subscriptionId ?? ''}),
      (select user_id from stripe_customers where customer_id = ${ref.customerId ?? ''}))
    for update`;
  return row ?? null;
}

/** What `applyStoredStripeEvent` found and did. */
export type StoredEventApplication =
  | { kind: 'missing' }
  /** `decide` needs something first (a subscription or line items read from Stripe); nothing was changed */
  | { kind: 'deferred'; need: EventNeed }
  /** applied before: what was recorded then */
  | { kind: 'recorded'; type: string; applied: AppliedEvent }
  /** recorded as failed before (malformed, or Stripe refused what it needs): fails the same way */
  | { kind: 'failed'; type: string; error: string }
  /** applied now; `mailed`: it may have written mails to the outbox (a failed payment, a subscription's change, money
   * back), which the caller starts after the commit; a pack's grant writes none */
  | { kind: 'applied'; type: string; applied: AppliedEvent; mailed: boolean };

/**
 * Applies a stored event once, in one transaction. It locks the event row and reads it; if it was already applied,
 * returns what was recorded. Otherwise `decide` (pure) says what the event means, and under the user's row lock the
 * subscription change (only when not older than the stored state), the grant (unique reference: a second event for
 * the same invoice grants nothing), the user's plan from their subscriptions, and the event's status are written.
 */
export async function applyStoredStripeEvent(
  sql: Sql,
  eventId: string,
  decide: (ev: StoredStripeEvent, session: KnownSession | null) => EventOutcome | { kind: 'defer'; need: EventNeed },
): Promise<StoredEventApplication> {
  return sql.begin(async (tx): Promise<StoredEventApplication> => {
    // The event row, locked, and for a checkout event the session as this service recorded it (or none): whose it is.
    const [ev] = await tx<(StoredStripeEvent & { sessionUserId: string | null; sessionMode: string | null })[]>`
      select e.id, e.type, e.status, e.payload, e.result, cs.user_id as "sessionUserId", cs.mode as "sessionMode"
      from stripe_events e
      left join checkout_sessions cs on e.type like 'checkout.session.%' and cs.id = e.payload #>> '{data,object,id}'
      where e.id = ${eventId} for update of e`;
    if (!ev) return { kind: 'missing' };
    if (ev.status === 'failed')
      return { kind: 'failed', type: ev.type, error: (ev.result as { error?: string } | null)?.error ?? 'failed' };
    if (ev.status !== 'received' && ev.result)
      return { kind: 'recorded', type: ev.type, applied: ev.result as AppliedEvent };
    const session = checkoutSessionOf(ev.payload as never) ? recordedSession(ev.sessionUserId, ev.sessionMode) : null;
    const outcome = decide(ev, session);
    if (outcome.kind === 'defer') return { kind: 'deferred', need: outcome.need };

    const finish = async (r: AppliedEvent, mailed = false) => {
      await tx`update stripe_events set status = ${r.status}, result = ${tx.json(r as never)}, processed_at = now()
        where id = ${eventId}`;
      return { kind: 'applied' as const, type: ev.type, applied: r, mailed };
    };
    if (outcome.kind === 'ignore')
      return finish({ status: 'ignored', granted: 0, userId: null, reason: outcome.reason });
    if (outcome.kind === 'money_back') return finish(await applyMoneyBack(tx, outcome.moneyBack), true);

    const user = await lockUserOf(tx, outcome.user);
    if (!user) return finish({ status: 'ignored', granted: 0, userId: null, reason: 'no account for this event' });
    const userId = user.id;
    // A deleted account is never granted nor given a plan; what the event started at Stripe is undone.
    if (user.deleted) return finish(await deletedAccountEvent(tx, userId, eventId, outcome));

    let subscriptionId: string | null = null;
    const c = outcome.subscription;
    if (outcome.paymentFailed) await mailPaymentFailed(tx, userId, outcome.paymentFailed.amountDue);
    const [was] = c
      ? await tx<{ status: string; ending: boolean }[]>`select status, cancel_at_period_end as ending
          from subscriptions where stripe_subscription_id = ${c.externalId}`
      : [];
    if (c) {
      const asOf = new Date(c.asOf * 1000);
      const ts = (s: number | null | undefined) => (s == null ? null : new Date(s * 1000));
      // A new row needs a plan and a status; an event that cannot give them (an unknown price) only updates.
      const [row] = await tx<{ id: string }[]>`
        insert into subscriptions (id, user_id, plan_id, status, stripe_subscription_id, stripe_customer_id,
          current_period_start, current_period_end, cancel_at_period_end, state_as_of)
        select ${`subs_${randomSuffix(16)}`}, ${userId}, ${c.planId ?? null}, ${c.status ?? 'active'}, ${c.externalId},
          ${c.customerId}, ${ts(c.periodStart)}, ${ts(c.periodEnd)}, ${c.cancelAtPeriodEnd ?? false}, ${asOf}
        where ${c.planId ?? null}::text is not null
        on conflict (stripe_subscription_id) do update set
          plan_id = coalesce(${c.planId ?? null}, subscriptions.plan_id),
          status = case when subscriptions.status = 'canceled' then 'canceled'
                        else coalesce(${c.status ?? null}, subscriptions.status) end,
          current_period_start = coalesce(${ts(c.periodStart)}, subscriptions.current_period_start),
          current_period_end = coalesce(${ts(c.periodEnd)}, subscriptions.current_period_end),
          cancel_at_period_end = coalesce(${c.cancelAtPeriodEnd ?? null}, subscriptions.cancel_at_period_end),
          state_as_of = ${asOf}, updated_at = now()
        where subscriptions.state_as_of <= ${asOf}
        returning id`;
      subscriptionId =
        row?.id ??
        (await tx<{ id: string }[]>`select id from subscriptions where stripe_subscription_id = ${c.externalId}`)[0]
          ?.id ??
        null;
      // A canceled subscription is final at Stripe: a late event never revives it, whatever its time.
      if (c.status === 'canceled')
        await tx`update subscriptions set status = 'canceled', updated_at = now()
          where stripe_subscription_id = ${c.externalId}`;
      // Cancelled now, or set to end with its period: the owner is told once, on that change.
      const [now] = await tx<{ status: string; ending: boolean; end: Date | null }[]>`
        select status, cancel_at_period_end as ending, current_period_end as end
        from subscriptions where stripe_subscription_id = ${c.externalId}`;
      if (was && now && was.status !== 'canceled') {
        if (now.status === 'canceled') await mailSubscriptionEnding(tx, userId, null);
        else if (now.ending && !was.ending) await mailSubscriptionEnding(tx, userId, now.end);
      }
    }

    let granted = 0;
    const g = outcome.grant;
    let amount = g?.amount ?? 0;
    if (g?.topUpTo && subscriptionId) {
      // A plan change tops the period's plan tokens up to the new plan's month, never beyond: once.
      const [row] = await tx<{ granted: number }[]>`
        select coalesce(sum(amount), 0)::int as granted from token_grants
        where subscription_id = ${subscriptionId} and source = 'plan'
          and expires_at = ${new Date(g.topUpTo.periodEnd * 1000)} and reference <> ${g.reference}`;
      amount = Math.min(amount, g.topUpTo.planTokens - (row?.granted ?? 0));
    }
    if (g && amount > 0) {
      const made = await grantTokens(tx, {
        userId,
        source: g.source,
        amount,
        expiresAt: g.expiresAt == null ? null : new Date(g.expiresAt * 1000),
        reference: g.reference,
        subscriptionId,
      });
      if (made) granted = amount;
    }
    const p = outcome.purchase;
    if (p && g) {
      // The payment the pack was paid with: a refund or dispute of it is matched to this purchase.
      await tx`update checkout_sessions set payment_intent = coalesce(payment_intent, ${p.paymentIntent}),
          amount_total = coalesce(amount_total, ${p.amountTotal}), tokens_granted = greatest(tokens_granted, ${g.amount})
        where id = ${p.sessionId}`;
    }

    if (c) {
      // The user's plan follows their subscriptions: one holding a plan gives its plan; none gives Free. Enterprise
      // is arranged by hand and left alone.
      await tx`update users set plan = coalesce(
          (select plan_id from subscriptions where user_id = ${userId} and status = any(${PLAN_HOLDING_STATUSES})
           order by current_period_end desc nulls last limit 1), 'free')
        where id = ${userId} and plan <> 'enterprise'`;
    }
    return finish({ status: 'processed', granted, userId }, Boolean(outcome.paymentFailed || c));
  });
}

/** A purchase as read here: the engine's Purchase, its session id in the row's `id`. */
type PurchaseRow = Omit<Purchase, 'sessionId'> & { id: string };

/**
 * A refund or dispute of a pack's payment, under the purchase's and the account's row locks: a refund takes back the
 * refunded share of the pack's tokens (cumulative, so each refund once however often it is reported), a dispute takes
 * back its share when opened and gives it back when won; what the account no longer has is owed (db/ledger.ts).
 */
async function applyMoneyBack(tx: Tx, mb: MoneyBack): Promise<AppliedEvent> {
  const [p] = await tx<PurchaseRow[]>`
    select id, user_id as "userId", amount_total as "amountTotal", tokens_granted as "tokensGranted",
      refunded_amount as "refundedAmount", refunds, tokens_refunded as "tokensRefunded"
    from checkout_sessions where payment_intent = ${mb.paymentIntent} for update`;
  if (!p || p.tokensGranted === 0)
    return { status: 'ignored', granted: 0, userId: null, reason: `no purchase paid with ${mb.paymentIntent}` };
  await tx`select id from users where id = ${p.userId} for update`;
  const granting = `stripe-checkout:${p.id}`;
  const done = (r: Partial<AppliedEvent>): AppliedEvent => ({
    status: 'processed',
    granted: 0,
    userId: p.userId,
    ...r,
  });

  if (mb.kind === 'refund') {
    const refunds = { ...p.refunds, ...mb.refunds };
    const refundedAmount = Math.max(p.refundedAmount, mb.amountRefunded ?? 0);
    const refunded = refundedCents({ refundedAmount, refunds });
    const target = refundShare(p.tokensGranted, refunded, mb.amount ?? p.amountTotal);
    const take = target - p.tokensRefunded;
    await tx`update checkout_sessions set refunds = ${tx.json(refunds)}, refunded_amount = ${refundedAmount},
        tokens_refunded = greatest(tokens_refunded, ${target}) where id = ${p.id}`;
    if (take <= 0) return done({ takenBack: 0, owed: 0 });
    const r = await takeBackTokens(tx, {
      userId: p.userId,
      amount: take,
      reference: `stripe-refund:${mb.paymentIntent}:${refunded}`,
      reason: 'refund',
      preferReference: granting,
    });
    await mailTokensTakenBack(tx, p.userId, { tokens: take, owed: r?.owed ?? 0, why: 'refund' });
    return done({ takenBack: r?.taken ?? 0, owed: r?.owed ?? 0 });
  }

  const [d] = await tx<{ status: string; tokensTaken: number }[]>`
    select status, tokens_taken as "tokensTaken" from stripe_disputes where id = ${mb.disputeId} for update`;
  const returning = DISPUTE_RETURNING_STATUSES.includes(mb.status);
  if (mb.closed && returning) {
    // Won: what the dispute took comes back (what it still owed is forgiven). A dispute closed before its opening
    // event arrived is recorded, so the late opening takes nothing.
    await tx`insert into stripe_disputes (id, session_id, status) values (${mb.disputeId}, ${p.id}, ${mb.status})
      on conflict (id) do update set status = excluded.status`;
    const given = d
      ? await giveBackTokens(tx, `stripe-dispute:${mb.disputeId}`, `stripe-dispute-won:${mb.disputeId}`, 'dispute_won')
      : 0;
    return done({ givenBack: given });
  }
  if (d) {
    // Opened before (taken then), or closed already: only the status changes.
    if (mb.closed) await tx`update stripe_disputes set status = ${mb.status} where id = ${mb.disputeId}`;
    return done({ takenBack: 0, owed: 0 });
  }
  // Opened (or lost with its opening never seen): take back the disputed share of what refunds left.
  const share = Math.min(refundShare(p.tokensGranted, mb.amount, p.amountTotal), p.tokensGranted - p.tokensRefunded);
  await tx`insert into stripe_disputes (id, session_id, status, tokens_taken)
    values (${mb.disputeId}, ${p.id}, ${mb.status}, ${Math.max(share, 0)})`;
  if (share <= 0) return done({ takenBack: 0, owed: 0 });
  const r = await takeBackTokens(tx, {
    userId: p.userId,
    amount: share,
    reference: `stripe-dispute:${mb.disputeId}`,
    reason: 'dispute',
    preferReference: granting,
  });
  await mailTokensTakenBack(tx, p.userId, { tokens: share, owed: r?.owed ?? 0, why: 'dispute' });
  return done({ takenBack: r?.taken ?? 0, owed: r?.owed ?? 0 });
}
