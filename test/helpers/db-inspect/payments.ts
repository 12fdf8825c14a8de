// Payments: Stripe customers, events, subscriptions, grants bought.
import { sql } from './sql';

/** Whether a subscription is stored under its Stripe id (a plan). */
export async function subscriptionStored(stripeSubscriptionId: string): Promise<boolean> {
  const rows = await sql()`select 1 from subscriptions where stripe_subscription_id = ${stripeSubscriptionId}`;
  return rows.length > 0;
}

/** The ids of the stored Stripe events about these objects (a session, subscription, invoice: data.object.id). */
export async function stripeEventIdsAbout(objectIds: string[]): Promise<string[]> {
  const rows = await sql()<{ id: string }[]>`
    select id from stripe_events where payload #>> '{data,object,id}' in ${sql()(objectIds)} order by received_at`;
  return rows.map((r) => r.id);
}

/** A user's token grants other than the free ones, in order. */
export async function paidGrants(
  userId: string,
): Promise<{ source: string; amount: number; reference: string; expiresAt: Date | null }[]> {
  return sql()<{ source: string; amount: number; reference: string; expiresAt: Date | null }[]>`
    select source, amount, reference, expires_at as "expiresAt" from token_grants
    where user_id = ${userId} and source <> 'free' order by id`;
}

/** The subscriptions a user's plan grants name (distinct). */
export async function planGrantSubscriptions(userId: string): Promise<(string | null)[]> {
  const rows = await sql()<{ subscriptionId: string | null }[]>`select distinct subscription_id as "subscriptionId"
    from token_grants where user_id = ${userId} and source = 'plan'`;
  return rows.map((r) => r.subscriptionId);
}

/** What a user's tokens were taken for other than spending (refunds, disputes), in order. */
export async function takenBack(
  userId: string,
): Promise<{ reason: string; amount: number; owed: number; reference: string }[]> {
  return sql()<{ reason: string; amount: number; owed: number; reference: string }[]>`
    select reason, amount, owed, reference from token_debits where user_id = ${userId} and reason <> 'spend'
    order by id`;
}

/** The Stripe customer ids stored for a user. */
export async function stripeCustomerIds(userId: string): Promise<string[]> {
  const rows = await sql()<{ customerId: string }[]>`
    select customer_id as "customerId" from stripe_customers where user_id = ${userId}`;
  return rows.map((r) => r.customerId);
}

/**
 * The stored Stripe events about a user (a Checkout Session's client_reference_id, or the userId in the metadata of
 * the object or of the subscription an invoice is for), in the order they were received.
 */
export async function stripeEventsOfUser(userId: string): Promise<{ id: string; type: string; payload: any }[]> {
  return sql()<{ id: string; type: string; payload: any }[]>`
    select id, type, payload from stripe_events
    where payload->'data'->'object'->>'client_reference_id' = ${userId}
       or payload->'data'->'object'->'metadata'->>'userId' = ${userId}
       or payload->'data'->'object'->'parent'->'subscription_details'->'metadata'->>'userId' = ${userId}
    order by received_at, id`;
}

/** A stored Stripe event, or undefined when none was stored under that id. */
export async function stripeEvent(id: string): Promise<{ status: string; result: any; payload: any } | undefined> {
  const [row] = await sql()<
    { status: string; result: any; payload: any }[]
  >`select status, result, payload from stripe_events where id = ${id}`;
  return row;
}
