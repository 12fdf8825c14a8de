// Part B, signed in or out (issue 39): the built-in sample designs (GET /api/samples) and the front page's mockups
// of them (GET /api/showcase, rendered on the first request and kept). Both are public: the front page shows them to
// visitors, and "Try a sample" uploads a sample's PNG as the person's own design.
import { Router } from 'express';
import { SAMPLE_LICENCE, SAMPLE_SIDE, SAMPLES, sampleKey } from '../../lib/samples';
import { fileUrl } from '../../lib/storage';
import type { AppDeps } from '../context';
import { createShowcase } from '../services/showcase';

export function sampleRoutes(deps: AppDeps): Router {
  const r = Router();
  const showcase = createShowcase(deps);

  r.get('/samples', (_req, res) => {
    res.setHeader('Cache-Control', 'public, max-age=300');
    res.json({
      samples: SAMPLES.map((s) => ({
        id: s.id,
        name: s.name,
        description: s.description,
        licence: SAMPLE_LICENCE,
        url: fileUrl(deps.config, sampleKey(s.id)),
        width: SAMPLE_SIDE,
        height: SAMPLE_SIDE,
      })),
    });
  });

  r.get('/showcase', async (_req, res) => {
    const mockups = await showcase();
    res.setHeader('Cache-Control', 'public, max-age=300');
    res.json({ mockups });
  });

  return r;
}
