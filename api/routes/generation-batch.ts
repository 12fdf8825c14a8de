// POST /api/v1/generate/batch: one design on up to 25 garment colors and/or zones in one request, all charged in
// one transaction or none, run by one `generationBatch` workflow (id `batch-<first generation id>`). Each result
// is an ordinary generation resource (GET /generations[/<id>]). The use case is api/services/generations.ts.
import { Router } from 'express';
import { z } from 'zod';
import { ZONES } from '../../lib/generation/types';
import type { AppDeps } from '../context';
import { parse } from '../errors';
import { presentGeneration } from '../http/present';
import { httpUrl, placementSchema, prefersAsync } from '../http/schemas';
import { jsonBody } from '../middleware/body';
import { partA, weighRequest } from '../middleware/part-a';
import { createBatch, MAX_BATCH_ITEMS } from '../services/generations';

const DEFAULT_PLACEMENT = { x: 50, y: 35, scale: 0.8, rotation: 0 };
const garmentId = z.string({ message: 'must be a string' }).trim().min(1, 'is required').max(100);
const zone = z.enum(ZONES, { message: `must be one of ${ZONES.join(', ')}` });
const applyTexture = z.boolean({ message: 'must be true or false' });

/** One mockup: which blank (garment + color or blank URL) and, optionally, its own zone, placement and texture. */
const itemSchema = z.strictObject({
  garmentId: garmentId.optional(),
  garmentImageUrl: httpUrl('garmentImageUrl').optional(),
  color: z.string().trim().min(1).max(60).optional(),
  zone: zone.optional(),
  placement: placementSchema.optional(),
  applyTexture: applyTexture.optional(),
});

const batchBody = z
  .strictObject({
    designUrl: httpUrl('designUrl'),
    // Shared defaults for the items; an item's own value wins.
    garmentId: garmentId.optional(),
    zone: zone.default('front'),
    placement: placementSchema.default(DEFAULT_PLACEMENT),
    applyTexture: applyTexture.default(true),
    webhookUrl: httpUrl('webhookUrl').optional(),
    items: z
      .array(itemSchema, { message: `must be an array of 1 to ${MAX_BATCH_ITEMS} items` })
      .min(1, `must hold 1 to ${MAX_BATCH_ITEMS} items`)
      .max(
        MAX_BATCH_ITEMS,
        `must hold at most ${MAX_BATCH_ITEMS} items (one design on up to ${MAX_BATCH_ITEMS} colors or zones)`,
      ),
  })
  .superRefine((b, ctx) => {
    b.items.forEach((item, i) => {
      if (item.garmentId === undefined && b.garmentId === undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['items', i, 'garmentId'],
          message: 'is required (here or as the shared garmentId)',
        });
      }
      if (item.garmentImageUrl === undefined && item.color === undefined) {
        ctx.addIssue({ code: 'custom', path: ['items', i], message: 'needs garmentImageUrl or color (or both)' });
      }
    });
  });

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
