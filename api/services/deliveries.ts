// Callback deliveries for the API: a generation's delivery log, and a resend (POST /generations/<id>/deliveries): a
// new signed delivery of the generation's callback, its own workflow `webhook-<delivery id>`, under the account's
// hourly resend budget (DELIVERY_RESENDS_PER_HOUR).
import type { z } from 'zod';
import {
  createResend,
  failDelivery,
  generationInMode,
  listDeliveries,
  resendSource,
  type DeliveryRow,
} from '../../db/deliveries';
import { fileUrl } from '../../lib/storage';
import { generationCompletedPayload, generationFailedPayload } from '../../lib/webhooks/types';
import type { WebhookDeliveryInput } from '../../lib/webhooks/types';
import { webhookDelivery } from '../../workflows';
import type { AppDeps } from '../context';
import { ApiError, badRequest, conflict, notFound } from '../errors';
import type { deliveryResource } from '../http/logs';

export function presentDelivery(d: DeliveryRow): z.infer<typeof deliveryResource> {
  return {
    id: d.id,
    event: d.event as 'generation.completed' | 'generation.failed',
    url: d.url,
    status: d.status as 'pending' | 'delivered' | 'failed',
    trigger: d.trigger,
    createdAt: d.createdAt.toISOString(),
    finishedAt: d.finishedAt?.toISOString() ?? null,
    attempts: d.attempts.map((a) => ({ ...a, attemptedAt: new Date(a.attemptedAt).toISOString() })),
  };
}

/** GET /generations/<id>/deliveries: 404 for a generation of another account or mode, as for a missing one. */
export async function deliveriesOf(deps: AppDeps, userId: string, generationId: string, livemode: boolean) {
  if (!(await generationInMode(deps.sql, userId, generationId, livemode))) throw notFound('Generation not found');
  return (await listDeliveries(deps.sql, generationId)).map(presentDelivery);
}

/** POST /generations/<id>/deliveries. */
export async function resendDelivery(
  deps: AppDeps,
  caller: { userId: string; livemode: boolean },
  generationId: string,
  body: { url?: string | undefined },
  log: AppDeps['log'],
) {
  const g = await resendSource(deps.sql, caller.userId, generationId, caller.livemode);
  if (!g) throw notFound('Generation not found');
  if (g.status !== 'completed' && g.status !== 'failed')
    throw conflict(`Generation is ${g.status}: a callback can be resent once it has completed or failed`);
  const url = body.url ?? g.webhookUrl;
  if (!url)
    throw badRequest('The generation has no webhookUrl: give the url to send the callback to', { field: 'url' });

  // The first callback's exact bytes when there was one; otherwise the payload the generation would have sent.
  const payload: WebhookDeliveryInput['payload'] = g.firstBody
    ? (JSON.parse(g.firstBody) as WebhookDeliveryInput['payload'])
    : g.status === 'completed' && g.mockupKey
      ? {
          ...generationCompletedPayload({
            id: g.id,
            mockupUrl: fileUrl(deps.config, g.mockupKey),
            tokensUsed: g.tokensUsed,
            completedAt: g.completedAt ?? new Date(),
            livemode: g.livemode,
          }),
        }
      : {
          ...generationFailedPayload({
            id: g.id,
            error: g.error ?? 'Generation failed',
            tokensUsed: g.tokensUsed,
            failedAt: g.completedAt ?? new Date(),
            livemode: g.livemode,
          }),
        };
  const event = payload.event === 'generation.failed' ? 'generation.failed' : 'generation.completed';
  const bodyText = g.firstBody ?? JSON.stringify(payload);

  const created = await createResend(deps.sql, {
    userId: caller.userId,
    generationId: g.id,
    event,
    url,
    body: bodyText,
    perHour: deps.config.deliveryResendsPerHour,
  });
  if (!created.ok)
    throw new ApiError(
      429,
      'rate_limited',
      `At most ${created.limit} callback resends per account per hour: retry in ${created.retryAfterSeconds} s`,
      { retryAfter: created.retryAfterSeconds, scope: 'delivery-resends-hour', limit: created.limit },
      { 'Retry-After': String(created.retryAfterSeconds) },
    );
  const d = created.delivery;
  try {
    await deps.temporal.workflow.start(webhookDelivery, {
      workflowId: `webhook-${d.id}`,
      taskQueue: deps.config.temporal.taskQueue,
      args: [{ generationId: g.id, accountId: caller.userId, url, event, payload, resendId: d.id }],
      searchAttributes: { AccountId: [caller.userId] },
    });
  } catch (err) {
    await failDelivery(deps.sql, d.id);
    throw err;
  }
  log.info('callback resend started', { generationId: g.id, deliveryId: d.id });
  return presentDelivery(d);
}
