// POST /api/v1/generate/batch: one design on up to 25 garment colors and/or zones in one request, all charged in
// one transaction or none, run by one `generationBatch` workflow (id `batch-<first generation id>`). Each result
// is an ordinary generation resource (GET /generations[/<id>]). The use case is api/services/generations.ts.
import { Router, type Request, type Response } from 'express';
import type { GenerationRow } from '../../db/generations';
import type { AppDeps } from '../context';
import { parse } from '../errors';
import { sendGenerateAnswer } from '../http/generate-answer';
import { presentGeneration } from '../http/present';
import { isLive } from '../http/mode';
import { batchBody } from '../http/batch-schemas';
import { prefersAsync } from '../http/schemas';
import { jsonBody } from '../middleware/body';
import { idempotent } from '../middleware/idempotency';
import { partA, weighRequest } from '../middleware/part-a';
import { createBatch, recoveredGenerations } from '../services/generations';

export function generationBatchRoutes(deps: AppDeps): Router {
  const r = Router();

  /** 200 when every item finished, else 202 (the client polls GET /generations/<id> for each item). */
  const answer = (req: Request, res: Response, batchId: string, generations: GenerationRow[], finished: boolean) =>
    sendGenerateAnswer(
      req,
      res,
      { batchId, generations: generations.map((g) => presentGeneration(deps, g)) },
      { finished },
    );

  const idempotency = idempotent(deps, {
    body: (req) => req.rawBody,
    recover: async (req, res, point) => {
      const { batchId, generations, finished } = await recoveredGenerations(deps, req.user!.id, point, isLive(req));
      answer(req, res, batchId ?? '', generations, finished);
    },
  });

  r.post('/generate/batch', ...partA(deps, 'generate'), jsonBody(), idempotency, async (req, res) => {
    const body = parse(batchBody, req.body);
    // a batch of N costs N against the per-minute generate budget, as N single calls would (a replay costs one)
    await weighRequest(deps, req, res, 'generate', body.items.length);
    const async = prefersAsync(req.get('prefer'));
    const caller = { userId: req.user!.id, apiKeyId: req.apiKeyId ?? null, livemode: isLive(req) };
    const started = await createBatch(deps, caller, body, { sync: !async, log: req.log, idempotency: req.idempotency });
    res.setHeader('X-Tokens-Remaining', String(started.balance));
    answer(req, res, started.result.batchId, started.result.generations, started.finished);
  });

  return r;
}
