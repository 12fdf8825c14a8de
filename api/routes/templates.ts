// Part A templates (docs/templates.md): POST /templates imports a PSD/PSB (multipart `file` or JSON {url}); GET
// /templates lists (cursor pages), GET /templates/<id> reads, DELETE /templates/<id> deletes. A request sees only
// templates of its own mode (test keys the test ones).
import { createHash } from 'node:crypto';
import { Router } from 'express';
import { getTemplate } from '../../db/templates';
import type { AppDeps } from '../context';
import { notFound, parse } from '../errors';
import { isLive } from '../http/mode';
import { prefersAsync } from '../http/schemas';
import { receiveTemplate, templateBody } from '../http/template-body';
import { TEMPLATE_ID, templateListQuery } from '../http/template-schemas';
import { idempotent } from '../middleware/idempotency';
import { partA } from '../middleware/part-a';
import { templatePage } from '../services/template-list';
import { importTemplate, presentTemplate, removeTemplate } from '../services/templates';

export function templateRoutes(deps: AppDeps): Router {
  const r = Router();
  const caller = (req: Parameters<typeof isLive>[0]) => ({ userId: req.user!.id, livemode: isLive(req) });

  // Idempotency-Key: the fingerprint is the file's bytes and name (a multipart boundary differs from one try to the
  // next), or the JSON body as sent. An import charges nothing: no recovery point, a retry imports again.
  const idempotency = idempotent(deps, {
    body: (req, res) => {
      const b = templateBody(res);
      if (b.kind === 'url') return req.rawBody;
      return createHash('sha256')
        .update(b.name ?? '')
        .update('\n')
        .update(b.bytes)
        .digest();
    },
  });

  r.post('/templates', ...partA(deps, 'upload'), receiveTemplate(deps), idempotency, async (req, res) => {
    const { row, finished } = await importTemplate(deps, caller(req), templateBody(res), {
      sync: !prefersAsync(req.get('prefer')),
      log: req.log,
    });
    if (finished && row.status === 'ready') {
      res.status(201).json(presentTemplate(deps, row));
      return;
    }
    // still importing: the client polls the resource (an import that fails later says why in `error`)
    res.setHeader('Location', `${deps.config.publicBaseUrl}/api/v1/templates/${row.id}`);
    if (prefersAsync(req.get('prefer'))) res.setHeader('Preference-Applied', 'respond-async');
    res.status(202).json(presentTemplate(deps, row));
  });

  r.get('/templates', ...partA(deps), async (req, res) => {
    res.json(await templatePage(deps, caller(req), parse(templateListQuery, req.query, 'query')));
  });

  r.get('/templates/:templateId', ...partA(deps), async (req, res) => {
    const id = String(req.params.templateId);
    const row = TEMPLATE_ID.test(id) ? await getTemplate(deps.sql, req.user!.id, id, isLive(req)) : undefined;
    if (!row) throw notFound('Template not found');
    res.json(presentTemplate(deps, row));
  });

  r.delete('/templates/:templateId', ...partA(deps), async (req, res) => {
    const id = String(req.params.templateId);
    const row = TEMPLATE_ID.test(id) ? await removeTemplate(deps, caller(req), id) : undefined;
    if (!row) throw notFound('Template not found');
    req.log.info('template deleted', { templateId: id });
    res.status(204).end();
  });

  return r;
}
