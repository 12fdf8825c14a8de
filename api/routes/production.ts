// Production routes (issue 36, docs/production.md): one order with its production, and the production queue.
// Session-authenticated; errors {error: string}.
import { Router } from 'express';
import { requireAppSession } from '../auth/sessions';
import type { AppDeps } from '../context';
import { storefrontIdParam } from '../http/app-schemas';
import { oneOrder, queue } from '../services/production-orders';

export function productionRoutes(deps: AppDeps): Router {
  const r = Router();
  const session = requireAppSession(deps);

  r.get('/storefront/orders/:id', session, async (req, res) => {
    const id = String(req.params.id);
    if (!storefrontIdParam('ord').safeParse(id).success) {
      res.status(404).json({ error: 'Order not found' });
      return;
    }
    res.json(await oneOrder(deps, req.user!.id, id));
  });

  r.get('/storefront/production-queue', session, async (req, res) => {
    res.json({ orders: await queue(deps, req.user!.id) });
  });

  return r;
}
