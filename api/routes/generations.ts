// Part A generation: POST /generate starts the durable workflow (Idempotency-Key: api/middleware/idempotency.ts);
// GET /generations[/<id>] reads the resource.
import { Router, type Request, type Response } from 'express';
import { listGenerations, type GenerationRow } from '../../db/generations';
import type { AppDeps } from '../context';
import { parse } from '../errors';
import { GenerationNotices } from '../generation-notices';
import { sendGenerateAnswer } from '../http/generate-answer';
import { isLive } from '../http/mode';
import { presentGeneration } from '../http/present';
import { generateBody, generationListQuery, prefersAsync } from '../http/schemas';
import { namesTemplate, templateGenerateBody } from '../http/template-generate-schemas';
import { jsonBody } from '../middleware/body';
import { idempotent } from '../middleware/idempotency';
import { partA } from '../middleware/part-a';
import { createdAtAndId, cursorPage, DEFAULT_PAGE_LIMIT } from '../pagination';
import { generationById } from '../services/generation-lookup';
import { createGeneration, createTemplateGeneration, recoveredGenerations } from '../services/generations';

export function generationRoutes(deps: AppDeps): Router {
  const r = Router();
  const notices = new GenerationNotices(deps.sql, deps.log);

  /** 200 with the finished generation, or 202 with the resource to poll (asked for, or past the budget). */
  const answer = (req: Request, res: Response, row: GenerationRow, finished: boolean) =>
    sendGenerateAnswer(req, res, presentGeneration(deps, row), {
      finished,
      location: `${deps.config.publicBaseUrl}/api/v1/generations/${row.id}`,
    });

  const idempotency = idempotent(deps, {
    body: (req) => req.rawBody,
    recover: async (req, res, point) => {
      const { generations, finished } = await recoveredGenerations(deps, req.user!.id, point, isLive(req));
      answer(req, res, generations[0]!, finished);
    },
  });

  r.post('/generate', ...partA(deps, 'generate'), jsonBody(), idempotency, async (req, res) => {
    const async = prefersAsync(req.get('prefer'));
    const caller = { userId: req.user!.id, apiKeyId: req.apiKeyId ?? null, livemode: isLive(req) };
    const opts = { sync: !async, log: req.log, idempotency: req.idempotency };
    // on a template (the body names templateId) or on a garment: one generation resource, charge and workflow
    const started = namesTemplate(req.body)
      ? await createTemplateGeneration(deps, notices, caller, parse(templateGenerateBody, req.body), opts)
      : await createGeneration(deps, notices, caller, parse(generateBody, req.body), opts);
    res.setHeader('X-Tokens-Remaining', String(started.balance));
    answer(req, res, started.result, started.finished);
  });

  r.get('/generations', ...partA(deps), async (req, res) => {
    const q = parse(generationListQuery, req.query, 'query');
    // a cursor of one mode is refused in the other
    const livemode = isLive(req);
    const { page, pagination } = await cursorPage(
      { secret: deps.config.appSecret, scope: livemode ? 'generations' : 'generations:test', codec: createdAtAndId },
      { cursor: q.cursor, limit: q.limit ?? DEFAULT_PAGE_LIMIT },
      (after, limit) => listGenerations(deps.sql, req.user!.id, { after, limit, livemode }),
    );
    res.json({ generations: page.map((g) => presentGeneration(deps, g)), pagination });
  });

  r.get('/generations/:generationId', ...partA(deps), async (req, res) => {
    const row = await generationById(deps, req.user!.id, String(req.params.generationId), isLive(req));
    res.json(presentGeneration(deps, row));
  });

  return r;
}
