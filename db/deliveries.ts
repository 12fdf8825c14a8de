// Callback deliveries as the API reads and resends them: a generation's deliveries with their attempts, and a
// resend (POST /api/v1/generations/<id>/deliveries) recorded under the account's hourly budget.
import type { GenerationStatus } from '../lib/generation/types';
import { timeId } from '../lib/ids';
import type { Sql } from './client';

export interface DeliveryRow {
  id: string;
  event: string;
  url: string;
  status: string;
  trigger: 'generation' | 'resend';
  createdAt: Date;
  finishedAt: Date | null;
  attempts: {
    number: number;
    statusCode: number | null;
    durationMs: number;
    error: string | null;
    attemptedAt: string;
  }[];
}

/** Whether the account has this generation in this mode (another account's or mode's reads as missing). */
export async function generationInMode(sql: Sql, userId: string, id: string, livemode: boolean): Promise<boolean> {
  const [g] = await sql`select 1 from generations where id = ${id} and user_id = ${userId} and livemode = ${livemode}`;
  return g !== undefined;
}

/** A generation's deliveries, oldest first, each with its attempts. */
export function listDeliveries(sql: Sql, generationId: string) {
  return sql<DeliveryRow[]>`
    select d.id, d.event, d.url, d.status, d.trigger, d.created_at as "createdAt", d.finished_at as "finishedAt",
      (select coalesce(json_agg(json_build_object('number', a.attempt, 'statusCode', a.status_code,
              'durationMs', a.duration_ms, 'error', a.error, 'attemptedAt', a.attempted_at) order by a.attempt), '[]')
         from webhook_attempts a where a.delivery_id = d.id) as attempts
    from webhook_deliveries d where d.generation_id = ${generationId}
    order by d.created_at, d.id`;
}

/** What a resend needs of the generation: its outcome, its webhook URL and the body of its first callback. */
export interface ResendSource {
  id: string;
  status: GenerationStatus;
  webhookUrl: string | null;
  mockupKey: string | null;
  error: string | null;
  tokensUsed: number;
  completedAt: Date | null;
  livemode: boolean;
  /** the exact body of the generation's first delivery, when it had one */
  firstBody: string | null;
}

export async function resendSource(
  sql: Sql,
  userId: string,
  generationId: string,
  livemode: boolean,
): Promise<ResendSource | undefined> {
  const [row] = await sql<ResendSource[]>`
    select g.id, g.status, g.webhook_url as "webhookUrl", g.mockup_key as "mockupKey", g.error,
           g.tokens_used as "tokensUsed", g.completed_at as "completedAt", g.livemode,
           (select d.body from webhook_deliveries d where d.generation_id = g.id and d.trigger = 'generation') as "firstBody"
    from generations g where g.id = ${generationId} and g.user_id = ${userId} and g.livemode = ${livemode}`;
  return row;
}

export type ResendResult =
  { ok: true; delivery: DeliveryRow } | { ok: false; limit: number; retryAfterSeconds: number };

/**
 * Records a resend delivery (status pending, trigger resend), unless the account has made `perHour` resends in the
 * last hour. The account row lock serializes the count with the account's other resends.
 */
export async function createResend(
  sql: Sql,
  r: {
    userId: string;
    generationId: string;
    event: 'generation.completed' | 'generation.failed';
    url: string;
    body: string;
    perHour: number;
  },
): Promise<ResendResult> {
  return sql.begin(async (tx): Promise<ResendResult> => {
    await tx`select id from users where id = ${r.userId} for update`;
    const [used] = await tx<{ n: number; oldest: Date | null }[]>`
      select count(*)::int as n, min(created_at) as oldest from webhook_deliveries
      where user_id = ${r.userId} and trigger = 'resend' and created_at > now() - interval '1 hour'`;
    if ((used?.n ?? 0) >= r.perHour) {
      const freesAt = used?.oldest ? used.oldest.getTime() + 3600_000 : Date.now();
      return { ok: false, limit: r.perHour, retryAfterSeconds: Math.max(1, Math.ceil((freesAt - Date.now()) / 1000)) };
    }
    const [d] = await tx<DeliveryRow[]>`
      insert into webhook_deliveries (id, generation_id, user_id, event, url, body, trigger)
      values (${timeId('dlv')}, ${r.generationId}, ${r.userId}, ${r.event}, ${r.url}, ${r.body}, 'resend')
      returning id, event, url, status, trigger, created_at as "createdAt", finished_at as "finishedAt",
                '[]'::json as attempts`;
    return { ok: true, delivery: d! };
  });
}

/** A resend whose workflow could not be started: failed at once, so it does not stay pending for ever. */
export async function failDelivery(sql: Sql, deliveryId: string): Promise<void> {
  await sql`update webhook_deliveries set status = 'failed', finished_at = now() where id = ${deliveryId} and status = 'pending'`;
}
