// POST /api/v1/generate/batch: one design on up to 25 garment colors and/or zones in one request, all charged in
// one transaction or none, run by one `generationBatch` workflow (id `batch-<first generation id>`). Each result
// is an ordinary generation resource (GET /generations[/<id>]). The use case is api/services/generations.ts.
import { Router } from 'express';
import type { AppDeps } from '../context';
import { parse } from '../errors';
import { presentGeneration } from '../http/present';
import { batchBody, prefersAsync } from '../http/schemas';
import { jsonBody } from '../middleware/body';
import { partA, weighRequest } from '../middleware/part-a';
import { createBatch } from '../services/generations';

export function generationBatchRoutes(deps: AppDeps): Router {
  const r = Router();

  r.post('/generate/batch', ...partA(deps, 'generate'), jsonBody(), async (req, res) => {
    const body = parse(batchBody, req.body);
    // a batch of N costs N against the per-minute generate budget, as N single calls would
    await weighRequest(deps, req, res, 'generate', body.items.length);
    const async = prefersAsync(req.get('prefer'));
    const caller = { userId: req.user!.id, apiKeyId: req.apiKeyId ?? null };
    const started = await createBatch(deps, caller, body, { sync: !async, log: req.log });
    res.setHeader('X-Tokens-Remaining', String(started.balance));
    const answer = {
      batchId: started.result.batchId,
      generations: started.result.generations.map((g) => presentGeneration(deps, g)),
    };
    if (started.finished) {
      res.status(200).json(answer);
      return;
    }
    // Asked for, or longer than the synchronous budget: the client polls GET /generations/<id> for each item.
    if (async) res.setHeader('Preference-Applied', 'respond-async');
    res.status(202).json(answer);
  });

  return r;
}
