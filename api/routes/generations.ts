// Part A generation: POST /generate starts the durable workflow (Idempotency-Key: api/middleware/idempotency.ts);
// GET /generations[/<id>] reads the resource.
import { Router, type Request, type Response } from 'express';
import { getGeneration, listGenerations, type GenerationRow } from '../../db/generations';
import { decodeCursor, encodeCursor } from '../../lib/cursor';
import type { AppDeps } from '../context';
import { badRequest, notFound, parse } from '../errors';
import { GenerationNotices } from '../generation-notices';
import { isLive } from '../http/mode';
import { presentGeneration } from '../http/present';
import { GENERATION_ID, generateBody, generationListQuery, prefersAsync } from '../http/schemas';
import { jsonBody } from '../middleware/body';
import { idempotent } from '../middleware/idempotency';
import { partA } from '../middleware/part-a';
import { DEFAULT_PAGE_LIMIT } from '../pagination';
import { createGeneration, recoveredGenerations } from '../services/generations';

export function generationRoutes(deps: AppDeps): Router {
  const r = Router();
  const notices = new GenerationNotices(deps.sql, deps.log);

  /** 200 with the finished generation, or 202 with the resource to poll. */
  const answer = (req: Request, res: Response, row: GenerationRow, finished: boolean) => {
    if (finished) {
      res.status(200).json(presentGeneration(deps, row));
      return;
    }
    // Asked for, or longer than the synchronous budget: hand the client the resource to poll.
    res.setHeader('Location', `${deps.config.publicBaseUrl}/api/v1/generations/${row.id}`);
    if (prefersAsync(req.get('prefer'))) res.setHeader('Preference-Applied', 'respond-async');
    res.status(202).json(presentGeneration(deps, row));
  };

  const idempotency = idempotent(deps, {
    body: (req) => req.rawBody,
    recover: async (req, res, point) => {
      const { generations, finished } = await recoveredGenerations(deps, req.user!.id, point, isLive(req));
      answer(req, res, generations[0]!, finished);
    },
  });

  r.post('/generate', ...partA(deps, 'generate'), jsonBody(), idempotency, async (req, res) => {
    const body = parse(generateBody, req.body);
    const async = prefersAsync(req.get('prefer'));
    const caller = { userId: req.user!.id, apiKeyId: req.apiKeyId ?? null, livemode: isLive(req) };
    const started = await createGeneration(deps, notices, caller, body, {
      sync: !async,
      log: req.log,
      idempotency: req.idempotency,
    });
    res.setHeader('X-Tokens-Remaining', String(started.balance));
    answer(req, res, started.result, started.finished);
  });

  r.get('/generations', ...partA(deps), async (req, res) => {
    const q = parse(generationListQuery, req.query, 'query');
    const limit = q.limit ?? DEFAULT_PAGE_LIMIT;
    // a cursor of one mode is refused in the other
    const scope = isLive(req) ? 'generations' : 'generations:test';
    let after: { c: string; i: string } | undefined;
    if (q.cursor !== undefined) {
      const c = decodeCursor<{ c: unknown; i: unknown }>(q.cursor, deps.config.appSecret, scope);
      if (!c || typeof c.c !== 'string' || typeof c.i !== 'string' || Number.isNaN(Date.parse(c.c))) {
        throw badRequest('Invalid cursor: pass nextCursor from the previous page unchanged');
      }
      after = { c: c.c, i: c.i };
    }
    const rows = await listGenerations(deps.sql, req.user!.id, { after, limit: limit + 1, livemode: isLive(req) });
    const hasMore = rows.length > limit;
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    res.json({
      generations: page.map((g) => presentGeneration(deps, g)),
      pagination: {
        hasMore,
        nextCursor:
          hasMore && last
            ? encodeCursor({ c: last.createdAt.toISOString(), i: last.id }, deps.config.appSecret, scope)
            : null,
      },
    });
  });

  r.get('/generations/:generationId', ...partA(deps), async (req, res) => {
    const id = String(req.params.generationId);
    const row = GENERATION_ID.test(id) ? await getGeneration(deps.sql, req.user!.id, id, isLive(req)) : undefined;
    if (!row) throw notFound('Generation not found');
    res.json(presentGeneration(deps, row));
  });

  return r;
}
