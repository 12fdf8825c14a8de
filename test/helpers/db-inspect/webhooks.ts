// Webhook deliveries (their attempts) and the signing secrets.
import { sql } from './sql';

/** The delivery attempts recorded for a generation's webhook, in order. */
export async function webhookAttempts(generationId: string) {
  return sql()<
    { attempt: number; statusCode: number | null; durationMs: number; error: string | null; outcome: string }[]
  >`
    select a.attempt, a.status_code as "statusCode", a.duration_ms as "durationMs", a.error, a.outcome
    from webhook_attempts a join webhook_deliveries d on d.id = a.delivery_id
    where d.generation_id = ${generationId} order by a.attempt`;
}

/** The webhook delivery recorded for a generation. */
export async function webhookDelivery(generationId: string) {
  const [d] = await sql()<{ id: string; status: string; attempts: number; body: string; finishedAt: Date | null }[]>`
    select id, status, attempts, body, finished_at as "finishedAt" from webhook_deliveries
    where generation_id = ${generationId}`;
  if (!d) throw new Error(`no webhook delivery for ${generationId}`);
  return d;
}

/** Ends the grace of a user's previous webhook signing secret (its expiry a second ago). */
export async function expirePreviousSigningSecret(userId: string): Promise<void> {
  await sql()`update webhook_signing_secrets set previous_expires_at = now() - interval '1 second'
    where user_id = ${userId}`;
}
