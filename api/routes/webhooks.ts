// Webhook signing secret (session only, like key management: an API key must not be able to read the secret that
// proves our callbacks are genuine) and the delivery log of a generation (Part A, API key, own account only).
import { Router, type Response } from 'express';
import { ensureSigningSecret, rotateSigningSecret, type SigningSecretRow } from '../../db/webhook-secrets';
import { requireSession } from '../auth/sessions';
import type { AppDeps } from '../context';
import { notFound } from '../errors';
import { isLive } from '../http/mode';
import { GENERATION_ID } from '../http/schemas';
import { partA } from '../middleware/part-a';

interface DeliveryRow {
  id: string;
  event: string;
  url: string;
  status: string;
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

function presentSecret(res: Response, s: SigningSecretRow) {
  // A credential: never cached by a browser or proxy.
  res.setHeader('Cache-Control', 'no-store');
  res.json({
    secret: s.secret,
    createdAt: s.createdAt.toISOString(),
    // While set, deliveries carry a second v1 signature made with the previous secret.
    previousSecretExpiresAt: s.previousExpiresAt?.toISOString() ?? null,
  });
}

export function webhookRoutes(deps: AppDeps): Router {
  const r = Router();
  const session = requireSession(deps);

  r.get('/webhooks/secret', session, async (req, res) => {
    presentSecret(res, await ensureSigningSecret(deps.sql, req.user!.id));
  });

  r.post('/webhooks/secret/rotate', session, async (req, res) => {
    const row = await rotateSigningSecret(deps.sql, req.user!.id, deps.config.webhooks.secretGraceMs);
    req.log.info('webhook signing secret rotated', { userId: req.user!.id });
    presentSecret(res, row);
  });

  r.get('/generations/:generationId/deliveries', ...partA(deps), async (req, res) => {
    const id = String(req.params.generationId);
    // Someone else's generation answers exactly like a missing one, so ids cannot be probed.
    const [gen] = GENERATION_ID.test(id)
      ? await deps.sql`select id from generations where id = ${id} and user_id = ${req.user!.id} and livemode = ${isLive(req)}`
      : [];
    if (!gen) throw notFound('Generation not found');
    const rows = await deps.sql<DeliveryRow[]>`
      select d.id, d.event, d.url, d.status, d.created_at as "createdAt", d.finished_at as "finishedAt",
        (select coalesce(json_agg(json_build_object('number', a.attempt, 'statusCode', a.status_code,
                'durationMs', a.duration_ms, 'error', a.error, 'attemptedAt', a.attempted_at) order by a.attempt), '[]')
           from webhook_attempts a where a.delivery_id = d.id) as attempts
      from webhook_deliveries d where d.generation_id = ${id}
      order by d.created_at, d.id`;
    res.json({
      deliveries: rows.map((d) => ({
        id: d.id,
        event: d.event,
        url: d.url,
        status: d.status,
        createdAt: d.createdAt.toISOString(),
        finishedAt: d.finishedAt?.toISOString() ?? null,
        attempts: d.attempts.map((a) => ({ ...a, attemptedAt: new Date(a.attemptedAt).toISOString() })),
      })),
    });
  });

  return r;
}
