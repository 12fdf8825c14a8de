// Bulk renders (issue 35, docs/generation.md#bulk-renders): POST /api/v1/generate/bulk (202: the bulk, running),
// GET /api/v1/generate/bulk/{id} (the bulk and a page of its generations), POST /api/v1/generate/bulk/{id}/cancel.
// The use cases are api/services/bulk.ts.
import { Router } from 'express';
import type { AppDeps } from '../context';
import { notFound, parse } from '../errors';
import { BULK_ID, bulkBody, bulkQuery } from '../http/bulk-schemas';
import { isLive } from '../http/mode';
import { jsonBody } from '../middleware/body';
import { idempotent } from '../middleware/idempotency';
import { partA } from '../middleware/part-a';
import { cancelOwnBulk, createBulk, presentBulk, readBulk, recoveredBulk } from '../services/bulk';

export function bulkRoutes(deps: AppDeps): Router {
  const r = Router();
  const caller = (req: Parameters<typeof isLive>[0]) => ({ userId: req.user!.id, livemode: isLive(req) });
  const location = (id: string) => `${deps.config.publicBaseUrl}/api/v1/generate/bulk/${id}`;

  const idempotency = idempotent(deps, {
    body: (req) => req.rawBody,
    recover: async (req, res, point) => {
      const row = await recoveredBulk(deps, req.user!.id, point, isLive(req));
      res.setHeader('Location', location(row.id));
      res.status(202).json(await presentBulk(deps, row));
    },
  });

  // One request against the per-minute generate budget, whatever its size (its items are bounded by BULK_MAX_ITEMS
  // and rendered at BULK_CONCURRENCY at once, behind other accounts' single generates).
  r.post('/generate/bulk', ...partA(deps, 'generate'), jsonBody(), idempotency, async (req, res) => {
    const body = parse(bulkBody, req.body);
    const { row, balance } = await createBulk(
      deps,
      { userId: req.user!.id, apiKeyId: req.apiKeyId ?? null, livemode: isLive(req) },
      body,
      { sync: false, log: req.log, idempotency: req.idempotency },
    );
    res.setHeader('X-Tokens-Remaining', String(balance));
    res.setHeader('Location', location(row.id));
    res.status(202).json(await presentBulk(deps, row));
  });

  const bulkId = (raw: unknown) => {
    const id = String(raw);
    if (!BULK_ID.test(id)) throw notFound('Bulk not found');
    return id;
  };

  r.get('/generate/bulk/:bulkId', ...partA(deps), async (req, res) => {
    const q = parse(bulkQuery, req.query, 'query');
    res.json(await readBulk(deps, caller(req), bulkId(req.params.bulkId), q));
  });

  r.post('/generate/bulk/:bulkId/cancel', ...partA(deps), async (req, res) => {
    const row = await cancelOwnBulk(deps, caller(req), bulkId(req.params.bulkId));
    req.log.info('bulk render canceled', { bulkId: row.id, status: row.status });
    res.json(await presentBulk(deps, row));
  });

  return r;
}
