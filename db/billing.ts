// What a user buys with, in PostgreSQL: the plans, the recorded Checkout Sessions, the Stripe customers and the
// subscriptions (read by the payment routes; written by applying Stripe events in db/payments.ts).
import type { PlanRow } from '../lib/payments/catalog';
import { PLAN_HOLDING_STATUSES } from '../lib/payments/events';
import type { Sql, Tx } from './client';

/**
 * Records a Checkout Session this service created, before its URL is handed out: only events about recorded sessions
 * grant anything, and only to the account recorded here.
 */
export async function recordCheckoutSession(
  sql: Sql,
  s: { id: string; userId: string; mode: 'payment' | 'subscription'; priceId: string },
): Promise<void> {
  await sql`insert into checkout_sessions (id, user_id, mode, price_id)
    values (${s.id}, ${s.userId}, ${s.mode}, ${s.priceId}) on conflict (id) do nothing`;
}

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
