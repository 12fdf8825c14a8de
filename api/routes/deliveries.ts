// A generation's callback deliveries (Part A, key or session, own account and mode only): the log of every attempt,
// and POST to resend the callback as a new signed delivery (docs/test-mode.md).
import { Router } from 'express';
import type { AppDeps } from '../context';
import { notFound, parse } from '../errors';
import { resendBody } from '../http/logs';
import { isLive } from '../http/mode';
import { GENERATION_ID } from '../http/schemas';
import { jsonBody } from '../middleware/body';
import { partA } from '../middleware/part-a';
import { deliveriesOf, resendDelivery } from '../services/deliveries';

export function deliveryRoutes(deps: AppDeps): Router {
  const r = Router();

  r.get('/generations/:generationId/deliveries', ...partA(deps), async (req, res) => {
    const id = String(req.params.generationId);
    // Someone else's generation (or one of the other mode) answers exactly like a missing one.
    if (!GENERATION_ID.test(id)) throw notFound('Generation not found');
    res.json({ deliveries: await deliveriesOf(deps, req.user!.id, id, isLive(req)) });
  });

  r.post('/generations/:generationId/deliveries', ...partA(deps), jsonBody(), async (req, res) => {
    const id = String(req.params.generationId);
    if (!GENERATION_ID.test(id)) throw notFound('Generation not found');
    // an empty body is allowed: send to the generation's webhookUrl
    const body = parse(resendBody, req.body ?? {});
    const delivery = await resendDelivery(deps, { userId: req.user!.id, livemode: isLive(req) }, id, body, req.log);
    res.status(202).json({ delivery });
  });

  return r;
}
