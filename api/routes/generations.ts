// Part A generation: POST /generate starts the durable workflow; GET /generations[/<id>] reads the resource.
import { Router } from 'express';
import { WorkflowExecutionAlreadyStartedError, type WorkflowHandle } from '@temporalio/client';
import { z } from 'zod';
import { insertAndChargeGenerations } from '../../db/batch-charge';
import { refundDebit } from '../../db/ledger';
import { decodeCursor, encodeCursor } from '../../lib/cursor';
import {
  ZONES,
  type GenerationWorkflowInput,
  type GenerationWorkflowResult,
  type Placement,
} from '../../lib/generation/types';
import { timeId } from '../../lib/ids';
import { fileUrl } from '../../lib/storage';
import { ownFileKey } from '../../lib/fetch';
import type { AppDeps } from '../context';
import { GenerationNotices, type FinishedNotice } from '../generation-notices';
import { ApiError, badRequest, notFound, parse } from '../errors';
import { jsonBody } from '../middleware/body';
import { partA } from '../middleware/part-a';
import { cursorParam, DEFAULT_PAGE_LIMIT, pageLimitParam } from '../pagination';
import { garmentQuery } from './garments';

export const httpUrl = (field: string) =>
  z
    .string({ message: `${field} must be a string URL` })
    .trim()
    .min(1, 'is required')
    .max(2048, 'must be at most 2048 characters')
    .pipe(z.url({ protocol: /^https?$/, message: 'must be an absolute http(s) URL' }));

const range = (min: number, max: number, def: number) =>
  z
    .number({ message: `must be a number from ${min} to ${max}` })
    .min(min, `must be from ${min} to ${max}`)
    .max(max, `must be from ${min} to ${max}`)
    .default(def);

export const placementSchema = z.strictObject({
  x: range(0, 100, 50),
  y: range(0, 100, 35),
  scale: range(0.1, 1, 0.8),
  rotation: range(-180, 180, 0),
});

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

export interface GenerationRow {
  id: string;
  status: string;
  mockupKey: string | null;
  thumbnailKey: string | null;
  tokensUsed: number;
  createdAt: Date;
  completedAt: Date | null;
  error: string | null;
  garmentId: string;
  color: string;
  zone: string;
  placement: Placement;
  applyTexture: boolean;
  designUrl: string;
}

export const COLUMNS = (sql: AppDeps['sql']) => sql`
  id, status, mockup_key as "mockupKey", thumbnail_key as "thumbnailKey", tokens_used as "tokensUsed",
  created_at as "createdAt", completed_at as "completedAt", error, garment_id as "garmentId", color, zone, placement,
  apply_texture as "applyTexture", design_url as "designUrl"`;

export function present(deps: AppDeps, g: GenerationRow) {
  return {
    id: g.id,
    status: g.status,
    ...(g.status === 'completed' && g.mockupKey ? { mockupUrl: fileUrl(deps.config, g.mockupKey) } : {}),
    ...(g.status === 'completed' && g.thumbnailKey ? { thumbnailUrl: fileUrl(deps.config, g.thumbnailKey) } : {}),
    tokensUsed: g.tokensUsed,
    createdAt: g.createdAt.toISOString(),
    ...(g.completedAt ? { completedAt: g.completedAt.toISOString() } : {}),
    ...(g.status === 'failed' ? { error: g.error ?? 'Generation failed' } : {}),
    garmentId: g.garmentId,
    color: g.color,
    zone: g.zone,
    placement: g.placement,
    applyTexture: g.applyTexture,
    designUrl: g.designUrl,
  };
}

/**
 * Starts the workflow that runs already charged generations. If it cannot be started, nothing will run them: every
 * token goes back and every generation is marked failed with the reason, so the account is whole and each id
 * explains itself. A workflow that already exists (a retried request) is simply returned.
 */
export async function startGenerationWorkflow(
  deps: AppDeps,
  opts: {
    workflowType: string;
    workflowId: string;
    input: unknown;
    searchAttributes: Record<string, string[]>;
    generationIds: string[];
  },
): Promise<WorkflowHandle> {
  try {
    return await deps.temporal.workflow.start(opts.workflowType, {
      workflowId: opts.workflowId,
      taskQueue: deps.config.temporal.taskQueue,
      args: [opts.input],
      searchAttributes: opts.searchAttributes,
    });
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return deps.temporal.workflow.getHandle(opts.workflowId);
    for (const id of opts.generationIds) await refundDebit(deps.sql, id);
    await deps.sql`update generations set status = 'failed', error = 'Could not start the generation', tokens_used = 0,
                   completed_at = now() where id in ${deps.sql(opts.generationIds)}`;
    throw err;
  }
}

/** `Prefer: respond-async` (RFC 7240), possibly among other preferences. */
export const prefersAsync = (header: string | undefined) =>
  !!header && header.split(',').some((p) => p.trim().split(/[;=]/)[0]!.trim().toLowerCase() === 'respond-async');

export function generationRoutes(deps: AppDeps): Router {
  const r = Router();

  async function fetchGeneration(userId: string, id: string): Promise<GenerationRow | undefined> {
    const [row] = await deps.sql<
      GenerationRow[]
    >`select ${COLUMNS(deps.sql)} from generations where id = ${id} and user_id = ${userId}`;
    return row;
  }

  const notices = new GenerationNotices(deps.sql, deps.log);

  /**
   * The finished row, as soon as the generation's notice arrives or its workflow closes (whichever is first), or
   * undefined when the synchronous budget runs out first. A failing workflow result still fails the request.
   */
  async function awaitFinished(
    userId: string,
    id: string,
    notice: FinishedNotice,
    result: Promise<GenerationWorkflowResult>,
  ): Promise<GenerationRow | undefined> {
    result.catch(() => {}); // awaited below while it matters; once the row has answered, its outcome is the workflow's business
    let timer: NodeJS.Timeout | undefined;
    const budget = new Promise<'timeout'>(
      (resolve) => (timer = setTimeout(() => resolve('timeout'), deps.config.generateSyncTimeoutMs).unref()),
    );
    try {
      let first = await Promise.race([
        notice.finished.then(() => 'notice' as const),
        result.then(() => 'closed' as const),
        budget,
      ]);
      while (first !== 'timeout') {
        const row = await fetchGeneration(userId, id);
        if (first === 'closed' || (row && (row.status === 'completed' || row.status === 'failed'))) return row;
        // a notice for a row that is not finished (cannot happen with the worker's statements): wait for the workflow
        first = await Promise.race([result.then(() => 'closed' as const), budget]);
      }
      return undefined;
    } finally {
      clearTimeout(timer);
    }
  }

  r.post('/generate', ...partA(deps, 'generate'), jsonBody(), async (req, res) => {
    const body = parse(generateBody, req.body);
    const user = req.user!;
    const [garment] = await garmentQuery(deps, { id: body.garmentId, limit: 1 });
    if (!garment) throw notFound(`Garment ${JSON.stringify(body.garmentId)} not found`);
    const zone = garment.zones.find((z) => z.id === body.zone);
    if (!zone) {
      throw badRequest(
        `Garment ${garment.id} has no ${body.zone} print zone; it offers: ${garment.zones.map((z) => z.id).join(', ')}`,
        {
          field: 'zone',
        },
      );
    }
    const blank = resolveBlank(deps, garment, body.garmentImageUrl, body.color, zone.view);

    // The row and its charge (keyed by the generation id) in one transaction, as for a batch of one: a debit always
    // has its generation, concurrent requests cannot overdraw, and the workflow's own charge step finds this debit
    // instead of charging again.
    const id = timeId('gen');
    const charge = await insertAndChargeGenerations(deps.sql, {
      userId: user.id,
      apiKeyId: req.apiKeyId ?? null,
      batchId: null,
      rows: [
        {
          id,
          garmentId: garment.id,
          color: blank.color,
          zone: body.zone,
          placement: body.placement,
          applyTexture: body.applyTexture,
          designUrl: body.designUrl,
          garmentImageUrl: body.garmentImageUrl,
          blankKey: blank.key,
          webhookUrl: body.webhookUrl ?? null,
        },
      ],
    });
    if (!charge.ok) {
      throw new ApiError(
        402,
        'insufficient_tokens',
        `Insufficient tokens: this generation needs 1, the balance is ${charge.available}`,
        {
          required: 1,
          available: charge.available,
        },
      );
    }
    res.setHeader('X-Tokens-Remaining', String(charge.balance));

    const input: GenerationWorkflowInput = {
      generationId: id,
      accountId: user.id,
      garmentId: garment.id,
      webhookUrl: body.webhookUrl ?? null,
    };
    const sync = !prefersAsync(req.get('prefer'));
    // listening before the start, so the notice cannot come first
    const notice = sync ? await notices.wait(id) : null;
    try {
      const handle = await startGenerationWorkflow(deps, {
        workflowType: 'generation',
        workflowId: id,
        input,
        searchAttributes: { AccountId: [user.id], GarmentId: [garment.id] },
        generationIds: [id],
      });
      req.log.info('generation started', { generationId: id, garmentId: garment.id });

      if (notice) {
        const row = await awaitFinished(user.id, id, notice, handle.result() as Promise<GenerationWorkflowResult>);
        if (row) {
          res.status(200).json(present(deps, row));
          return;
        }
        // Took longer than the synchronous budget: hand the client the resource to poll, as for async.
      }
    } finally {
      notice?.cancel();
    }
    const row = await fetchGeneration(user.id, id);
    res.setHeader('Location', `${deps.config.publicBaseUrl}/api/v1/generations/${id}`);
    if (prefersAsync(req.get('prefer'))) res.setHeader('Preference-Applied', 'respond-async');
    res.status(202).json(present(deps, row!));
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
    const rows = await deps.sql<GenerationRow[]>`
      select ${COLUMNS(deps.sql)} from generations
      where user_id = ${req.user!.id}
        ${after ? deps.sql`and (created_at, id) < (${after.c}::timestamptz, ${after.i})` : deps.sql``}
      order by created_at desc, id desc
      limit ${limit + 1}`;
    const hasMore = rows.length > limit;
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    res.json({
      generations: page.map((g) => present(deps, g)),
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
    const row = /^gen_\d+_[a-z0-9]+$/.test(id) ? await fetchGeneration(req.user!.id, id) : undefined;
    if (!row) throw notFound('Generation not found');
    res.json(present(deps, row));
  });

  return r;
}

type GarmentRow = Awaited<ReturnType<typeof garmentQuery>>[number];

/**
 * Which blank to composite on. A URL of one of this garment's own blanks names its colour (and the zone's view is
 * used: a back print goes on that colour's back view). Any other URL is the client's own blank photo, fetched
 * through the SSRF guard by the worker; `color` then only labels it, and must name one of the garment's colours.
 */
export function resolveBlank(
  deps: AppDeps,
  garment: GarmentRow,
  url: string,
  color: string | undefined,
  view: string,
): { key: string; color: string } {
  const named = color ? garment.colors.find((c) => c.name.toLowerCase() === color.toLowerCase()) : undefined;
  if (color && !named) {
    throw badRequest(
      `Garment ${garment.id} has no colour ${JSON.stringify(color)}; it offers: ${garment.colors.map((c) => c.name).join(', ')}`,
      {
        field: 'color',
      },
    );
  }
  const key = ownFileKey(deps.config.publicBaseUrl, url);
  if (key !== null) {
    const own = garment.colors.find((c) => c.frontKey === key || c.backKey === key);
    if (!own)
      throw badRequest(
        `garmentImageUrl is not a blank of garment ${garment.id}: use a colors[].imageUrl from the garment listing`,
        { field: 'garmentImageUrl' },
      );
    if (named && named !== own)
      throw badRequest(
        `color ${JSON.stringify(color)} does not match garmentImageUrl, which is the ${own.name} blank`,
        { field: 'color' },
      );
    if (!own.available)
      throw badRequest(`Colour ${own.name} of garment ${garment.id} is not available`, { field: 'color' });
    return { key: view === 'back' ? own.backKey : own.frontKey, color: own.name };
  }
  if (named && !named.available)
    throw badRequest(`Colour ${named.name} of garment ${garment.id} is not available`, { field: 'color' });
  return { key: `url:${url}`, color: named?.name ?? 'custom' };
}
