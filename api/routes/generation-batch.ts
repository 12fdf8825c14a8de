// POST /api/v1/generate/batch: one design on up to 25 garment colours and/or zones in one request. Every item is
// validated before anything happens, then all items are recorded and charged (1 token each) in one transaction
// or nothing is, then one `generationBatch` workflow (id `batch-<first generation id>`) runs every item through
// the generation workflow's steps side by side. Each result is an ordinary generation resource
// (GET /generations[/<id>]).
import { Router } from 'express';
import { z } from 'zod';
import { insertAndChargeGenerations, type BatchGenerationRow } from '../../db/batch-charge';
import { ZONES } from '../../lib/generation/types';
import { timeId } from '../../lib/ids';
import { fileUrl } from '../../lib/storage';
import type { GenerationBatchInput, GenerationBatchResult } from '../../workflows/generation-batch';
import type { AppDeps } from '../context';
import { ApiError, badRequest, notFound, parse } from '../errors';
import { jsonBody } from '../middleware/body';
import { partA } from '../middleware/part-a';
import { garmentQuery } from './garments';
import {
  COLUMNS,
  httpUrl,
  placementSchema,
  prefersAsync,
  present,
  resolveBlank,
  startGenerationWorkflow,
  type GenerationRow,
} from './generations';

export const MAX_BATCH_ITEMS = 25;

const DEFAULT_PLACEMENT = { x: 50, y: 35, scale: 0.8, rotation: 0 };
const garmentId = z.string({ message: 'must be a string' }).trim().min(1, 'is required').max(100);
const zone = z.enum(ZONES, { message: `must be one of ${ZONES.join(', ')}` });
const applyTexture = z.boolean({ message: 'must be true or false' });

/** One mockup: which blank (garment + colour or blank URL) and, optionally, its own zone, placement and texture. */
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
        `must hold at most ${MAX_BATCH_ITEMS} items (one design on up to ${MAX_BATCH_ITEMS} colours or zones)`,
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

type GarmentRow = Awaited<ReturnType<typeof garmentQuery>>[number];

/** Re-labels an item's validation error with the item's position, keeping status and code. */
function forItem(i: number, err: unknown): unknown {
  if (!(err instanceof ApiError)) return err;
  const field = typeof err.details?.field === 'string' ? `items.${i}.${err.details.field}` : `items.${i}`;
  return new ApiError(err.status, err.code, `items[${i}]: ${err.message}`, { ...err.details, field });
}

export function generationBatchRoutes(deps: AppDeps): Router {
  const r = Router();

  r.post('/generate/batch', ...partA(deps, 'generate'), jsonBody(), async (req, res) => {
    const body = parse(batchBody, req.body);
    const user = req.user!;

    const ids = [...new Set(body.items.map((it) => it.garmentId ?? body.garmentId!))];
    const garments = new Map<string, GarmentRow>();
    await Promise.all(
      ids.map(async (id) => {
        const [g] = await garmentQuery(deps, { id, limit: 1 });
        if (g) garments.set(id, g);
      }),
    );

    // Every item is checked before anything is recorded or charged: one bad item refuses the whole batch.
    const rows: BatchGenerationRow[] = body.items.map((item, i) => {
      try {
        const gid = item.garmentId ?? body.garmentId!;
        const garment = garments.get(gid);
        if (!garment) throw notFound(`Garment ${JSON.stringify(gid)} not found`);
        const zoneId = item.zone ?? body.zone;
        const z = garment.zones.find((zz) => zz.id === zoneId);
        if (!z)
          throw badRequest(
            `Garment ${garment.id} has no ${zoneId} print zone; it offers: ${garment.zones.map((zz) => zz.id).join(', ')}`,
            { field: 'zone' },
          );
        let url = item.garmentImageUrl;
        if (url === undefined) {
          // Colour by name only: its blank from the catalogue (resolveBlank picks the zone's view).
          const c = garment.colors.find((cc) => cc.name.toLowerCase() === item.color!.toLowerCase());
          if (!c)
            throw badRequest(
              `Garment ${garment.id} has no colour ${JSON.stringify(item.color)}; it offers: ${garment.colors.map((cc) => cc.name).join(', ')}`,
              { field: 'color' },
            );
          url = fileUrl(deps.config, z.view === 'back' ? c.backKey : c.frontKey);
        }
        const blank = resolveBlank(deps, garment, url, item.color, z.view);
        return {
          id: timeId('gen'),
          garmentId: garment.id,
          color: blank.color,
          zone: zoneId,
          placement: item.placement ?? body.placement,
          applyTexture: item.applyTexture ?? body.applyTexture,
          designUrl: body.designUrl,
          garmentImageUrl: url,
          blankKey: blank.key,
          webhookUrl: body.webhookUrl ?? null,
        };
      } catch (err) {
        throw forItem(i, err);
      }
    });

    const genIds = rows.map((row) => row.id);
    const batchId = `batch-${genIds[0]}`;
    const charge = await insertAndChargeGenerations(deps.sql, {
      userId: user.id,
      apiKeyId: req.apiKeyId ?? null,
      batchId,
      rows,
    });
    if (!charge.ok) {
      throw new ApiError(
        402,
        'insufficient_tokens',
        `Insufficient tokens: this batch of ${charge.required} needs ${charge.required}, the balance is ${charge.available}`,
        {
          required: charge.required,
          available: charge.available,
        },
      );
    }
    res.setHeader('X-Tokens-Remaining', String(charge.balance));

    const input: GenerationBatchInput = {
      batchId,
      accountId: user.id,
      webhookUrl: body.webhookUrl ?? null,
      items: rows.map((row) => ({ generationId: row.id, garmentId: row.garmentId })),
    };
    const handle = await startGenerationWorkflow(deps, {
      workflowType: 'generationBatch',
      workflowId: batchId,
      input,
      searchAttributes: { AccountId: [user.id], ...(ids.length === 1 ? { GarmentId: ids } : {}) },
      generationIds: genIds,
    });
    req.log.info('generation batch started', { batchId, items: genIds.length });

    const async = prefersAsync(req.get('prefer'));
    let finished: GenerationBatchResult | null = null;
    if (!async) {
      finished = await Promise.race([
        handle.result() as Promise<GenerationBatchResult>,
        new Promise<null>((resolve) => setTimeout(() => resolve(null), deps.config.generateSyncTimeoutMs).unref()),
      ]);
    }
    const found = await deps.sql<
      GenerationRow[]
    >`select ${COLUMNS(deps.sql)} from generations where id in ${deps.sql(genIds)} and user_id = ${user.id}`;
    const byId = new Map(found.map((g) => [g.id, g]));
    const generations = genIds.map((id) => present(deps, byId.get(id)!));
    if (finished) {
      res.status(200).json({ batchId, generations });
      return;
    }
    // Asked for, or longer than the synchronous budget: the client polls GET /generations/<id> for each item.
    if (async) res.setHeader('Preference-Applied', 'respond-async');
    res.status(202).json({ batchId, generations });
  });

  return r;
}
