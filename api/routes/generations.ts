// Part A generation: POST /generate starts the durable workflow; GET /generations[/<id>] reads the resource.
import { Router } from 'express';
import { z } from 'zod';
import { getGeneration, listGenerations } from '../../db/generations';
import { decodeCursor, encodeCursor } from '../../lib/cursor';
import { ZONES } from '../../lib/generation/types';
import type { AppDeps } from '../context';
import { badRequest, notFound, parse } from '../errors';
import { GenerationNotices } from '../generation-notices';
import { presentGeneration } from '../http/present';
import { httpUrl, placementSchema, prefersAsync } from '../http/schemas';
import { jsonBody } from '../middleware/body';
import { partA } from '../middleware/part-a';
import { cursorParam, DEFAULT_PAGE_LIMIT, pageLimitParam } from '../pagination';
import { createGeneration } from '../services/generations';

const generateBody = z.strictObject({
  designUrl: httpUrl('designUrl'),
  garmentId: z.string({ message: 'is required' }).trim().min(1, 'is required').max(100),
  garmentImageUrl: httpUrl('garmentImageUrl'),
  color: z.string().trim().min(1).max(60).optional(),
  zone: z.enum(ZONES, { message: `must be one of ${ZONES.join(', ')}` }).default('front'),
  placement: placementSchema.default({ x: 50, y: 35, scale: 0.8, rotation: 0 }),
  applyTexture: z.boolean({ message: 'must be true or false' }).default(true),
  webhookUrl: httpUrl('webhookUrl').optional(),
});

const listQuery = z.strictObject({
  limit: pageLimitParam,
  cursor: cursorParam,
});

export function generationRoutes(deps: AppDeps): Router {
  const r = Router();
  const notices = new GenerationNotices(deps.sql, deps.log);

  r.post('/generate', ...partA(deps, 'generate'), jsonBody(), async (req, res) => {
    const body = parse(generateBody, req.body);
    const async = prefersAsync(req.get('prefer'));
    const caller = { userId: req.user!.id, apiKeyId: req.apiKeyId ?? null };
    const started = await createGeneration(deps, notices, caller, body, { sync: !async, log: req.log });
    res.setHeader('X-Tokens-Remaining', String(started.balance));
    if (started.finished) {
      res.status(200).json(presentGeneration(deps, started.result));
      return;
    }
    // Asked for, or longer than the synchronous budget: hand the client the resource to poll.
    res.setHeader('Location', `${deps.config.publicBaseUrl}/api/v1/generations/${started.result.id}`);
    if (async) res.setHeader('Preference-Applied', 'respond-async');
    res.status(202).json(presentGeneration(deps, started.result));
  });

  r.get('/generations', ...partA(deps), async (req, res) => {
    const q = parse(listQuery, req.query, 'query');
    const limit = q.limit ?? DEFAULT_PAGE_LIMIT;
    const scope = 'generations';
    let after: { c: string; i: string } | undefined;
    if (q.cursor !== undefined) {
      const c = decodeCursor<{ c: unknown; i: unknown }>(q.cursor, deps.config.appSecret, scope);
      if (!c || typeof c.c !== 'string' || typeof c.i !== 'string' || Number.isNaN(Date.parse(c.c))) {
        throw badRequest('Invalid cursor: pass nextCursor from the previous page unchanged');
      }
      after = { c: c.c, i: c.i };
    }
    const rows = await listGenerations(deps.sql, req.user!.id, { after, limit: limit + 1 });
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
    const row = /^gen_\d+_[a-z0-9]+$/.test(id) ? await getGeneration(deps.sql, req.user!.id, id) : undefined;
    if (!row) throw notFound('Generation not found');
    res.json(presentGeneration(deps, row));
  });

  return r;
}
