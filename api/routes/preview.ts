// POST /api/v1/preview: a free, synchronous JPEG of a placement, at most 640 px on its long side, from
// the engine that renders paid mockups. Body: the generate body without webhookUrl. Keyed like every Part A route
// (or the dashboard's session), with a budget of its own: RATE_LIMIT_PREVIEW_PER_MINUTE (120) per key.
import { Router } from 'express';
import type { AppDeps } from '../context';
import { parse } from '../errors';
import { namesTemplate, templatePreviewBody } from '../http/template-generate-schemas';
import { previewBody } from '../http/schemas';
import { isLive } from '../http/mode';
import { jsonBody } from '../middleware/body';
import { partA } from '../middleware/part-a';
import { createPreviewer, createTemplatePreviewer } from '../services/preview';

export function previewRoutes(deps: AppDeps): Router {
  const r = Router();
  const render = createPreviewer(deps);
  const onTemplate = createTemplatePreviewer(deps);

  r.post('/preview', ...partA(deps, 'preview'), jsonBody(), async (req, res) => {
    if (namesTemplate(req.body)) {
      // on a template: the render of a generation on it, scaled down (docs/templates.md)
      const caller = { userId: req.user!.id, apiKeyId: req.apiKeyId ?? null, livemode: isLive(req) };
      const t = await onTemplate(caller, parse(templatePreviewBody, req.body));
      res.setHeader('Cache-Control', 'no-store');
      res.setHeader('X-Preview-Size', `${t.width}x${t.height}`);
      res.type('image/jpeg').send(t.jpeg);
      return;
    }
    const body = parse(previewBody, req.body);
    const preview = await render(body);
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('X-Preview-Size', `${preview.width}x${preview.height}`);
    // where the print zone and the design landed (preview pixels: left,top,width,height), as in a generation
    const box = (b: { left: number; top: number; width: number; height: number }) =>
      `${b.left},${b.top},${b.width},${b.height}`;
    res.setHeader('X-Print-Area', box(preview.printArea));
    res.setHeader('X-Design-Box', box(preview.designBox));
    res.setHeader('X-Placement-Basis', preview.placementBasis);
    if (preview.garment) res.setHeader('X-Garment-Box', box(preview.garment));
    // garment_not_found / zone_clipped, as on a generation: JSON, non-ASCII escaped (a header is ASCII)
    res.setHeader(
      'X-Warnings',
      JSON.stringify(preview.warnings.map(({ code, message }) => ({ code, message }))).replace(
        /[\u0080-\uffff]/g,
        (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
      ),
    );
    res.type('image/jpeg').send(preview.jpeg);
  });

  return r;
}
