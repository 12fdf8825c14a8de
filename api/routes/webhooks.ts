// Webhook signing secret (session only, like key management: an API key must not be able to read the secret that
// proves our callbacks are genuine). A generation's delivery log and resends: ./deliveries.ts.
import { Router, type Response } from 'express';
import { ensureSigningSecret, rotateSigningSecret, type SigningSecretRow } from '../../db/webhook-secrets';
import { requireSession } from '../auth/sessions';
import type { AppDeps } from '../context';

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

  return r;
}
