// Webhook signing secret (session only, like key management: an API key must not be able to read the secret that
// proves our callbacks are genuine) and the delivery log of a generation (Part A, API key, own account only).
import { Router, type Response } from 'express';
import { generationDeliveries } from '../../db/webhook-deliveries';
import { ensureSigningSecret, rotateSigningSecret, type SigningSecretRow } from '../../db/webhook-secrets';
import { requireSession } from '../auth/sessions';
import type { AppDeps } from '../context';
import { notFound } from '../errors';
import { GENERATION_ID } from '../http/schemas';
import { partA } from '../middleware/part-a';

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
    const rows = GENERATION_ID.test(id) ? await generationDeliveries(deps.sql, req.user!.id, id) : undefined;
    if (!rows) throw notFound('Generation not found');
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
