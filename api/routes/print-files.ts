// Print files (issue 36, docs/production.md): Part A GET /generations/<id>/print-file (free), POST /print-preflight
// (free: a placement's print checked before Generate, nothing kept), Part B GET /chat/jobs/<id>/print-file?mockupIndex=
// (session).
import { Router } from 'express';
import { generationPrintSource } from '../../db/print-files';
import { getGeneration } from '../../db/generations';
import { requireAppSession } from '../auth/sessions';
import type { AppDeps } from '../context';
import { notFound, parse } from '../errors';
import { isLive } from '../http/mode';
import { chatPrintFileQuery, printFileQuery, printPreflightBody } from '../http/print-schemas';
import { GENERATION_ID } from '../http/schemas';
import { jsonBody } from '../middleware/body';
import { partA } from '../middleware/part-a';
import { createPrintFiles } from '../services/print-files';

export function printFileRoutes(deps: AppDeps): Router {
  const r = Router();
  const files = createPrintFiles(deps);

  r.get('/v1/generations/:generationId/print-file', ...partA(deps), async (req, res) => {
    const id = String(req.params.generationId);
    const q = parse(printFileQuery, req.query, 'query');
    const row = GENERATION_ID.test(id) ? await getGeneration(deps.sql, req.user!.id, id, isLive(req)) : undefined;
    if (!row) throw notFound('Generation not found');
    res.json(await files.forGeneration(await generationPrintSource(deps.sql, id, req.user!.id), q.size));
  });

  r.post('/v1/print-preflight', ...partA(deps), jsonBody(), async (req, res) => {
    const body = parse(printPreflightBody, req.body);
    res.setHeader('Cache-Control', 'no-store');
    res.json(await files.preflight(body));
  });

  r.get('/chat/jobs/:jobId/print-file', requireAppSession(deps), async (req, res) => {
    const q = parse(chatPrintFileQuery, req.query, 'query');
    res.json(await files.forChatMockup(req.user!.id, String(req.params.jobId), q.mockupIndex, q.size));
  });

  return r;
}
