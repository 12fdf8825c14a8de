// Outbound webhook deliveries (one per generation) and their HTTP attempts: what the webhook delivery workflow's
// activities record and what GET /api/v1/generations/:id/deliveries shows.
import type { Sql } from './client';
import type { AttemptResult, DeliveryStatus } from '../lib/webhooks/types';

type PreparedRow = { id: string; status: DeliveryStatus; attempts: number; createdAt: Date };

/**
 * Creates the generation's first delivery (`trigger = 'generation'`), or keeps the one it has (unique by generation:
 * a second call with another id or body changes nothing), and returns it. A resend (POST /generations/<id>/deliveries,
 * `resendId`) names its own delivery: the API created the row already; one it could not create is created here with
 * the same id.
 */
export async function ensureDelivery(
  sql: Sql,
  d: { id: string; generationId: string; userId: string; event: string; url: string; body: string; resendId?: string },
): Promise<PreparedRow> {
  if (d.resendId) {
    await sql`
      insert into webhook_deliveries (id, generation_id, user_id, event, url, body, trigger)
      values (${d.resendId}, ${d.generationId}, ${d.userId}, ${d.event}, ${d.url}, ${d.body}, 'resend')
      on conflict (id) do nothing`;
    const [row] = await sql<PreparedRow[]>`
      select id, status, attempts, created_at as "createdAt" from webhook_deliveries where id = ${d.resendId}`;
    return row!;
  }
  await sql`
    insert into webhook_deliveries (id, generation_id, user_id, event, url, body)
    values (${d.id}, ${d.generationId}, ${d.userId}, ${d.event}, ${d.url}, ${d.body})
    on conflict (generation_id) where trigger = 'generation' do nothing`;
  const [row] = await sql<PreparedRow[]>`
    select id, status, attempts, created_at as "createdAt" from webhook_deliveries
    where generation_id = ${d.generationId} and trigger = 'generation'`;
  return row!;
}

/** Creates the bulk's one delivery (bulk.completed), or keeps the one it has, and returns it. */
export async function ensureBulkDelivery(
  sql: Sql,
  d: { id: string; bulkId: string; userId: string; event: string; url: string; body: string },
): Promise<PreparedRow> {
  await sql`
    insert into webhook_deliveries (id, bulk_id, user_id, event, url, body, trigger)
    values (${d.id}, ${d.bulkId}, ${d.userId}, ${d.event}, ${d.url}, ${d.body}, 'bulk')
    on conflict (bulk_id) where bulk_id is not null do nothing`;
  const [row] = await sql<PreparedRow[]>`
    select id, status, attempts, created_at as "createdAt" from webhook_deliveries where bulk_id = ${d.bulkId}`;
  return row!;
}

/**
 * What an attempt sends: the account (whose secrets sign), the URL, the serialized body and the event. Undefined when
 * the delivery is gone or its account's deletion was asked for (nothing more is sent for it).
 */
export async function deliveryToSend(
  sql: Sql,
  deliveryId: string,
): Promise<{ userId: string; url: string; body: string; event: string } | undefined> {
  const [row] = await sql<{ userId: string; url: string; body: string; event: string }[]>`
    select d.user_id as "userId", d.url, d.body, d.event from webhook_deliveries d join users u on u.id = d.user_id
    where d.id = ${deliveryId} and u.deleted_at is null`;
  return row;
}

/** The recorded result of attempt number `attempt`, or undefined. */
export async function findAttempt(sql: Sql, deliveryId: string, attempt: number): Promise<AttemptResult | undefined> {
  const [row] = await sql<AttemptResult[]>`
    select attempt, outcome, status_code as "statusCode", duration_ms as "durationMs", error
    from webhook_attempts where delivery_id = ${deliveryId} and attempt = ${attempt}`;
  return row;
}

/**
 * Records an attempt and counts it on its delivery, in one transaction; null when that attempt number is recorded
 * already (by an earlier run of the same attempt), whose record then stands.
 */
export function recordAttempt(
  sql: Sql,
  deliveryId: string,
  a: AttemptResult,
  attemptedAt: Date,
): Promise<AttemptResult | null> {
  return sql.begin(async (tx) => {
    const [inserted] = await tx<AttemptResult[]>`
      insert into webhook_attempts (delivery_id, attempt, outcome, status_code, duration_ms, error, attempted_at)
      values (${deliveryId}, ${a.attempt}, ${a.outcome}, ${a.statusCode}, ${a.durationMs}, ${a.error}, ${attemptedAt})
      on conflict (delivery_id, attempt) do nothing
      returning attempt, outcome, status_code as "statusCode", duration_ms as "durationMs", error`;
    if (!inserted) return null;
    await tx`
      update webhook_deliveries
      set attempts = greatest(attempts, ${a.attempt}), last_attempt_at = greatest(last_attempt_at, ${attemptedAt})
      where id = ${deliveryId}`;
    return inserted;
  });
}

/**
 * Sets the final state of a pending delivery (a finished one keeps its own) and its count of recorded attempts;
 * undefined when there is no such delivery.
 */
export async function finishDelivery(
  sql: Sql,
  deliveryId: string,
  status: 'delivered' | 'failed',
): Promise<{ status: DeliveryStatus; attempts: number } | undefined> {
  const [row] = await sql<{ status: DeliveryStatus; attempts: number }[]>`
    update webhook_deliveries d
    set status = case when d.status = 'pending' then ${status} else d.status end,
        finished_at = coalesce(d.finished_at, now()),
        attempts = (select coalesce(max(attempt), 0) from webhook_attempts a where a.delivery_id = d.id)
    where d.id = ${deliveryId}
    returning d.status, d.attempts`;
  return row;
}
