// Payments in PostgreSQL: plans, Stripe customers, subscriptions and stored Stripe events. Applying an event is one
// transaction (applyStripeOutcome): the subscription, the grant, the user's plan and the event's own status change
// together, so a retried activity or a repeated event finds the work done and changes nothing.
import type { PlanRow } from '../lib/payments/catalog';
import { PLAN_HOLDING_STATUSES, type EventOutcome, type UserRef } from '../lib/payments/events';
import { randomSuffix } from '../lib/ids';
import type { Sql } from './client';
import { grantTokens, type Tx } from './ledger';

export async function listPlans(sql: Sql): Promise<PlanRow[]> {
  return sql<PlanRow[]>`
    select id, name, tokens_per_month as "tokensPerMonth", price_usd::float8 as "priceUsd", rollover
    from plans order by sort_order`;
}

export async function customerOf(sql: Sql, userId: string): Promise<string | null> {
  const [row] = await sql<{ customerId: string }[]>`
    select customer_id as "customerId" from stripe_customers where user_id = ${userId}`;
  return row?.customerId ?? null;
}

/** Keeps the first customer stored for the user; returns the one that is stored. */
export async function storeCustomer(sql: Sql, userId: string, customerId: string): Promise<string> {
  await sql`insert into stripe_customers (user_id, customer_id) values (${userId}, ${customerId})
    on conflict (user_id) do nothing`;
  return (await customerOf(sql, userId)) ?? customerId;
}

export interface SubscriptionRow {
  id: string;
  userId: string;
  planId: string;
  status: string;
  stripeSubscriptionId: string;
  currentPeriodStart: Date | null;
  currentPeriodEnd: Date | null;
  cancelAtPeriodEnd: boolean;
}

const subscriptionColumns = (sql: Sql | Tx) => sql`
  id, user_id as "userId", plan_id as "planId", status, stripe_subscription_id as "stripeSubscriptionId",
  current_period_start as "currentPeriodStart", current_period_end as "currentPeriodEnd",
  cancel_at_period_end as "cancelAtPeriodEnd"`;

/** The user's current subscription: one holding a plan first, else the most recently changed one. */
export async function currentSubscription(sql: Sql, userId: string): Promise<SubscriptionRow | null> {
  const [row] = await sql<SubscriptionRow[]>`
    select ${subscriptionColumns(sql)} from subscriptions where user_id = ${userId}
    order by (status = any(${PLAN_HOLDING_STATUSES})) desc, updated_at desc limit 1`;
  return row ?? null;
}

// ---------------------------------------------------------------- stored events

export async function storeStripeEvent(
  sql: Sql,
  e: { id: string; type: string; created: number; livemode: boolean; payload: unknown },
): Promise<{ inserted: boolean; status: string }> {
  const [row] = await sql<{ status: string; inserted: boolean }[]>`
    with ins as (
      insert into stripe_events (id, type, created, livemode, payload)
      values (${e.id}, ${e.type}, to_timestamp(${e.created}), ${e.livemode}, ${sql.json(e.payload as never)})
      on conflict (id) do nothing returning status)
    select status, true as inserted from ins
    union all select status, false from stripe_events where id = ${e.id} and not exists (select 1 from ins)`;
  return { inserted: row?.inserted ?? false, status: row?.status ?? 'received' };
}

/** The account an event belongs to, for the workflow's AccountId search attribute (null when unknown). */
export async function accountOfEvent(sql: Sql, eventId: string): Promise<string | null> {
  const [row] = await sql<{ userId: string | null }[]>`${accountOfEventQuery(sql)} where e.id = ${eventId}`;
  return row?.userId ?? null;
}

const accountOfEventQuery = (sql: Sql) => sql`
  select e.id, coalesce(u.id, c.user_id, s.user_id) as "userId" from stripe_events e
  left join users u on u.id = coalesce(e.payload #>> '{data,object,client_reference_id}',
    e.payload #>> '{data,object,metadata,userId}')
  left join stripe_customers c on c.customer_id = e.payload #>> '{data,object,customer}'
  left join subscriptions s on s.stripe_subscription_id = coalesce(e.payload #>> '{data,object,subscription}',
    e.payload #>> '{data,object,parent,subscription_details,subscription}', e.payload #>> '{data,object,id}')`;

/** Events still `received` after `olderThanSeconds` (their workflow never started, or is still working). */
export function waitingStripeEvents(sql: Sql, olderThanSeconds: number, limit: number) {
  return sql<{ id: string; userId: string | null }[]>`
    ${accountOfEventQuery(sql)}
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

export async function getStripeEvent(sql: Sql, id: string): Promise<StoredStripeEvent | null> {
  const [row] = await sql<StoredStripeEvent[]>`select id, type, status, payload, result from stripe_events
    where id = ${id}`;
  return row ?? null;
}

/**
 * Records an event that cannot be applied (malformed, or Stripe refused what it needs) with the reason, so neither
 * the sweep nor a repeated delivery starts it again. Only an event still waiting changes.
 */
export async function failStripeEvent(sql: Sql, eventId: string, error: string): Promise<void> {
  await sql`update stripe_events set status = 'failed', result = ${sql.json({ error })}, processed_at = now()
    where id = ${eventId} and status = 'received'`;
}

export interface AppliedEvent {
  status: 'processed' | 'ignored';
  granted: number;
  userId: string | null;
  reason?: string;
}

/** Finds the user an event is for: the id it names (if it exists), else its subscription's, else its customer's. */
async function resolveUser(tx: Tx, ref: UserRef): Promise<string | null> {
  const [row] = await tx<{ id: string }[]>`
    select coalesce(
      (select id from users where id = ${ref.userId ?? ''}),
      (select user_id from subscriptions where stripe_subscription_id = ${ref.subscriptionId ?? ''}),
      (select user_id from stripe_customers where customer_id = ${ref.customerId ?? ''})) as id`;
  return row?.id ?? null;
}

/**
 * Applies what an event means, once: locks the event row; if it was already applied, returns what was recorded.
 * Otherwise, under the user's row lock: the subscription change (only when not older than the stored state), the
 * grant (unique reference: a second event for the same invoice grants nothing), the user's plan from their
 * subscriptions, and the event's status, all in one transaction.
 */
export async function applyStripeOutcome(sql: Sql, eventId: string, outcome: EventOutcome): Promise<AppliedEvent> {
  return sql.begin(async (tx) => {
    const [ev] = await tx<{ status: string; result: AppliedEvent | null }[]>`
      select status, result from stripe_events where id = ${eventId} for update`;
    if (!ev) throw new Error(`stripe event ${eventId} is not stored`);
    if (ev.status !== 'received' && ev.result) return ev.result;

    const finish = async (r: AppliedEvent) => {
      await tx`update stripe_events set status = ${r.status}, result = ${tx.json(r as never)}, processed_at = now()
        where id = ${eventId}`;
      return r;
    };
    if (outcome.kind === 'ignore')
      return finish({ status: 'ignored', granted: 0, userId: null, reason: outcome.reason });

    const userId = await resolveUser(tx, outcome.user);
    if (!userId) return finish({ status: 'ignored', granted: 0, userId: null, reason: 'no account for this event' });
    await tx`select id from users where id = ${userId} for update`;

    let subscriptionId: string | null = null;
    const c = outcome.subscription;
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
    }

    let granted = 0;
    const g = outcome.grant;
    if (g) {
      const made = await grantTokens(tx, {
        userId,
        source: g.source,
        amount: g.amount,
        expiresAt: g.expiresAt == null ? null : new Date(g.expiresAt * 1000),
        reference: g.reference,
        subscriptionId,
      });
      if (made) granted = g.amount;
    }

    if (c) {
      // The user's plan follows their subscriptions: one holding a plan gives its plan; none gives Free. Enterprise
      // is arranged by hand and left alone.
      await tx`update users set plan = coalesce(
          (select plan_id from subscriptions where user_id = ${userId} and status = any(${PLAN_HOLDING_STATUSES})
           order by current_period_end desc nulls last limit 1), 'free')
        where id = ${userId} and plan <> 'enterprise'`;
    }
    return finish({ status: 'processed', granted, userId });
  });
}
