// Generation use cases: POST /generate (one), POST /generate/batch (up to 25), and reading generations. A new
// generation is recorded and charged in one statement (db/generation-inserts.ts), then its workflow is started; if
// that start fails, every token goes back and every generation is marked failed in one transaction, so the account
// is whole and each id explains itself.
import type { z } from 'zod';
import { withVerificationReason } from './verification-gate';
import type { GarmentRow } from '../../db/garments';
import { failAndRefund, getGeneration, getGenerations, type GenerationRow } from '../../db/generations';
import { insertAndChargeGenerations, type BatchChargeResult, type NewGeneration } from '../../db/generation-inserts';
import type { IdempotencyRef, RecoveryPoint } from '../../db/idempotency';
import type {
  GenerationBatchInput,
  GenerationBatchResult,
  GenerationWorkflowInput,
  GenerationWorkflowResult,
  TemplateRenderJob,
} from '../../lib/generation/types';
import { generation, generationBatch } from '../../workflows';
import type { AppDeps } from '../context';
import { startCharged } from './charged-start';
import { ApiError, notFound } from '../errors';
import type { batchBody } from '../http/batch-schemas';
import type { generateBody } from '../http/schemas';
import type { templateGenerateBody } from '../http/template-generate-schemas';
import type { FinishedNotice, GenerationNotices } from '../generation-notices';
import { cachedGarment } from './garment-cache';
import { checkDesigns, recordWarnings } from './design-warnings';
import {
  GARMENT_PLACEMENT,
  newGeneration,
  newTemplateGeneration,
  placementWith,
  TEMPLATE_PLACEMENT,
  type Caller,
  type NewGarmentGeneration,
} from './generation-jobs';
import { designsOf } from './upload-library';
import { getTemplate, type TemplateRow } from '../../db/templates';
import type { GenerationWarning } from '../../lib/generation/warnings';
import { within } from '../../lib/wait';

export { resolveBlank, zoneOf, type Caller } from './generation-jobs';

export { MAX_BATCH_ITEMS } from '../http/batch-schemas';

/** POST /generate's body, as its schema parses it. */
export type GenerateRequest = z.infer<typeof generateBody>;
/** POST /generate's body on a template, as its schema parses it. */
export type TemplateGenerateRequest = z.infer<typeof templateGenerateBody>;
/** POST /generate/batch's body, as its schema parses it. */
export type BatchRequest = z.infer<typeof batchBody>;

/** What a generate call produced: the rows, the balance after the charge, and whether they finished in time. */
export interface Started<T> {
  result: T;
  balance: number;
  finished: boolean;
}

/** How a generate call runs: synchronously or not, its logger, and the Idempotency-Key it holds (if any). */
export interface StartOptions {
  sync: boolean;
  log: AppDeps['log'];
  idempotency?: IdempotencyRef | undefined;
}

/** The error of generations whose workflow could not be started (they are failed and refunded at once). */
export const COULD_NOT_START = 'Could not start the generation';

export const keyed = (ref: IdempotencyRef | undefined) => (ref ? { idempotency: ref } : {});

/** Test mode (docs/test-mode.md): no charge, the account's daily test budget instead. */
export const testMode = (deps: AppDeps, caller: Caller) =>
  caller.livemode === false ? { test: { perDay: deps.config.testModeGenerationsPerDay } } : {};

/** The 402 of a live charge (naming the unverified email when that is why), or the 429 of the daily test budget. */
export async function refused(
  deps: AppDeps,
  userId: string,
  charge: Exclude<BatchChargeResult, { ok: true }>,
  what: string,
): Promise<ApiError> {
  if ('testLimit' in charge) {
    const { limit, used, retryAfterSeconds } = charge.testLimit;
    return new ApiError(
      429,
      'rate_limited',
      `Test mode allows ${limit} generations per account in 24 hours (${used} used): retry in ${retryAfterSeconds} s, or use a live key`,
      { retryAfter: retryAfterSeconds, scope: 'test-generations-day', limit },
      { 'Retry-After': String(retryAfterSeconds) },
    );
  }
  return withVerificationReason(deps, userId, insufficient(charge.required, charge.available, what));
}

/**
 * The generations a request created under an Idempotency-Key before it stopped without storing its answer (its
 * API process died, or it failed after charging), as they are now; `finished` when none is still running.
 */
export async function recoveredGenerations(
  deps: AppDeps,
  userId: string,
  point: RecoveryPoint,
  livemode?: boolean,
): Promise<{ batchId: string | null; generations: GenerationRow[]; finished: boolean }> {
  const generations = await getGenerations(deps.sql, userId, point.generationIds, livemode);
  if (generations.length === 0) throw notFound('The generations of this Idempotency-Key no longer exist');
  const finished = generations.every((g) => g.status === 'completed' || g.status === 'failed');
  return { batchId: point.batchId ?? null, generations, finished };
}

const insufficient = (required: number, available: number, what: string) =>
  new ApiError(
    402,
    'insufficient_tokens',
    `Insufficient tokens: ${what} needs ${required}, the balance is ${available}`,
    {
      required,
      available,
    },
  );

/**
 * POST /generate. Records and charges the generation, starts its workflow (id = generation id) and, when `sync`,
 * waits for the finished row up to GENERATE_SYNC_TIMEOUT_MS (the notice from the statement that finishes it, or
 * the workflow's close, whichever is first).
 */
export async function createGeneration(
  deps: AppDeps,
  notices: GenerationNotices,
  caller: Caller,
  body: GenerateRequest,
  opts: StartOptions,
): Promise<Started<GenerationRow>> {
  const garment = await cachedGarment(deps, body.garmentId);
  if (!garment) throw notFound(`Garment ${JSON.stringify(body.garmentId)} not found`);
  // The row and its charge (keyed by the generation id) in one transaction, as for a batch of one: a debit always
  // has its generation, concurrent requests cannot overdraw, and the render step finds this debit.
  const created = newGeneration(deps, caller, garment, { ...body, webhookUrl: body.webhookUrl ?? null });
  // a deleted upload: 400; a design hard to see on this colour: a low_contrast warning (services/design-warnings.ts)
  const warnings = await checkDesigns(deps, [{ ...created, designUrl: body.designUrl, garment }]);
  return chargeAndStart(deps, notices, caller, created, warnings, opts, { GarmentId: [garment.id] });
}

/**
 * POST /generate with templateId: a design (or several) rendered in the smart objects of one of the account's
 * templates of the caller's mode (docs/templates.md). The same generation row, charge (one token, one debit),
 * workflow, webhooks and synchronous wait as a generation on a garment.
 */
export async function createTemplateGeneration(
  deps: AppDeps,
  notices: GenerationNotices,
  caller: Caller,
  body: TemplateGenerateRequest,
  opts: StartOptions,
): Promise<Started<GenerationRow>> {
  const template = await getTemplate(deps.sql, caller.userId, body.templateId, caller.livemode !== false);
  if (!template) throw notFound(`Template ${JSON.stringify(body.templateId)} not found`);
  const created = newTemplateGeneration(caller, template, { ...body, webhookUrl: body.webhookUrl ?? null });
  // a design URL of a deleted upload: 400 (no contrast warning: a template has no garment colour)
  const job = created.job as TemplateRenderJob;
  await designsOf(
    deps,
    job.designs.map((d, i) => ({ url: d.designUrl, field: body.designs ? `designs.${i}.designUrl` : 'designUrl' })),
  );
  return chargeAndStart(deps, notices, caller, created, new Map(), opts, {});
}

/**
 * The common path of one generation: records and charges it with its warnings, starts its workflow (id =
 * generation id) and, when `opts.sync`, waits for the finished row.
 */
async function chargeAndStart(
  deps: AppDeps,
  notices: GenerationNotices,
  caller: Caller,
  created: NewGeneration,
  warnings: Map<string, GenerationWarning[]>,
  opts: StartOptions,
  searchAttributes: { GarmentId?: string[] },
): Promise<Started<GenerationRow>> {
  const { id } = created;
  const charge = await insertAndChargeGenerations(deps.sql, {
    userId: caller.userId,
    apiKeyId: caller.apiKeyId,
    batchId: null,
    rows: [created],
    ...keyed(opts.idempotency),
    ...testMode(deps, caller),
  });
  if (!charge.ok) throw await refused(deps, caller.userId, charge, 'this generation');
  await recordWarnings(deps, warnings);
  // test mode spends no token
  if (caller.livemode !== false) deps.metrics?.tokens('debit', 1);

  const input: GenerationWorkflowInput = {
    generationId: id,
    accountId: caller.userId,
    garmentId: created.garmentId,
    ...(created.job.kind === 'template' ? { templateId: created.job.templateId } : {}),
    webhookUrl: created.webhookUrl,
    ...(caller.livemode === false ? { livemode: false } : {}),
    job: created.job,
  };
  // listening before the start, so the notice cannot come first
  const notice = opts.sync ? await notices.wait(id) : null;
  try {
    const handle = await startCharged(
      deps.temporal,
      generation,
      {
        workflowId: id,
        taskQueue: deps.config.temporal.taskQueue,
        args: [input],
        searchAttributes: { AccountId: [caller.userId], ...searchAttributes },
      },
      () => failAndRefund(deps.sql, [id], COULD_NOT_START),
    );
    opts.log.info('generation started', {
      generationId: id,
      ...(created.garmentId ? { garmentId: created.garmentId } : {}),
      ...(created.job.kind === 'template' ? { templateId: created.job.templateId } : {}),
    });
    if (notice) {
      const row = await awaitFinished(deps, caller.userId, id, notice, () => handle.result());
      if (row) return { result: row, balance: charge.balance, finished: true };
    }
  } finally {
    notice?.cancel();
  }
  const row = await getGeneration(deps.sql, caller.userId, id);
  return { result: row!, balance: charge.balance, finished: false };
}

/**
 * How long a synchronous generate waits for its notice before it also asks Temporal for the workflow's result. The
 * notice normally comes first (the render step's finishing statement sends it); asking at once would cost every
 * generation a long poll of its history on the Temporal server and in this process, ~2-4 ms of CPU per mockup, for
 * the rare notice lost to a dropped listening connection or a workflow that ended without finishing its row.
 */
export const RESULT_FALLBACK_AFTER_MS = 1000;

/**
 * The finished row, as soon as the generation's notice arrives or its workflow closes (whichever is first), or
 * undefined when the synchronous budget runs out first. The workflow's result is asked for only when no notice can
 * come (this process is not listening) or none came within RESULT_FALLBACK_AFTER_MS. A failing workflow result
 * still fails the request.
 */
async function awaitFinished(
  deps: AppDeps,
  userId: string,
  id: string,
  notice: FinishedNotice,
  workflowResult: () => Promise<GenerationWorkflowResult>,
): Promise<GenerationRow | undefined> {
  let fallbackTimer: NodeJS.Timeout | undefined;
  const closed = new Promise<'closed'>((resolve, reject) => {
    const ask = () => {
      const result = workflowResult();
      result.catch(() => {}); // awaited below while it matters; once the row has answered, its outcome is the workflow's
      result.then(() => resolve('closed'), reject);
    };
    if (!notice.listening) ask();
    else fallbackTimer = setTimeout(ask, Math.min(RESULT_FALLBACK_AFTER_MS, deps.config.generateSyncTimeoutMs)).unref();
  });
  closed.catch(() => {});
  const finishedRow = async () => {
    let first = await Promise.race([notice.finished.then(() => 'notice' as const), closed]);
    for (;;) {
      const row = await getGeneration(deps.sql, userId, id);
      if (first === 'closed' || (row && (row.status === 'completed' || row.status === 'failed'))) return row;
      // a notice for a row that is not finished (cannot happen with the worker's statements): wait for the workflow
      first = await closed;
    }
  };
  try {
    return await within(deps.config.generateSyncTimeoutMs, finishedRow());
  } finally {
    clearTimeout(fallbackTimer);
  }
}

/** Re-labels an item's validation error with the item's position, keeping status and code. */
function forItem(i: number, err: unknown): unknown {
  if (!(err instanceof ApiError)) return err;
  const field = typeof err.details?.field === 'string' ? `items.${i}.${err.details.field}` : `items.${i}`;
  return new ApiError(err.status, err.code, `items[${i}]: ${err.message}`, { ...err.details, field });
}

/**
 * POST /generate/batch: one design on up to 25 garment colors and/or zones. Every item is validated before
 * anything happens, then all items are recorded and charged (1 token each) in one transaction or nothing is, then
 * one `generationBatch` workflow (id `batch-<first generation id>`) runs every item.
 */
export async function createBatch(
  deps: AppDeps,
  caller: Caller,
  body: BatchRequest,
  opts: StartOptions,
): Promise<Started<{ batchId: string; generations: GenerationRow[] }>> {
  const onTemplate = (it: BatchRequest['items'][number]) => it.templateId !== undefined;
  const ids = [...new Set(body.items.filter((it) => !onTemplate(it)).map((it) => it.garmentId ?? body.garmentId!))];
  const templateIds = [...new Set(body.items.flatMap((it) => (it.templateId !== undefined ? [it.templateId] : [])))];
  const garments = new Map<string, GarmentRow>();
  const templates = new Map<string, TemplateRow>();
  await Promise.all([
    ...ids.map(async (id) => {
      const g = await cachedGarment(deps, id);
      if (g) garments.set(id, g);
    }),
    ...templateIds.map(async (id) => {
      const t = await getTemplate(deps.sql, caller.userId, id, caller.livemode !== false);
      if (t) templates.set(id, t);
    }),
  ]);

  // Every item is checked before anything is recorded or charged: one bad item refuses the whole batch. An item's
  // placement replaces the shared one as a whole; the members left out take its kind's defaults.
  const onGarments: { row: NewGarmentGeneration; garment: GarmentRow }[] = [];
  const rows: NewGeneration[] = body.items.map((item, i) => {
    const placement = item.placement ?? body.placement ?? {};
    try {
      if (item.templateId !== undefined) {
        const template = templates.get(item.templateId);
        if (!template) throw notFound(`Template ${JSON.stringify(item.templateId)} not found`);
        return newTemplateGeneration(caller, template, {
          designUrl: body.designUrl,
          smartObjectId: item.smartObjectId,
          placement: placementWith(TEMPLATE_PLACEMENT, placement),
          displace: item.displace ?? 'auto',
          webhookUrl: body.webhookUrl ?? null,
        });
      }
      const gid = item.garmentId ?? body.garmentId!;
      const garment = garments.get(gid);
      if (!garment) throw notFound(`Garment ${JSON.stringify(gid)} not found`);
      const row = newGeneration(deps, caller, garment, {
        designUrl: body.designUrl,
        zone: item.zone ?? body.zone,
        garmentImageUrl: item.garmentImageUrl,
        color: item.color,
        placement: placementWith(GARMENT_PLACEMENT, placement),
        applyTexture: item.applyTexture ?? body.applyTexture,
        printArea: item.printArea ?? null,
        webhookUrl: body.webhookUrl ?? null,
      });
      onGarments.push({ row, garment });
      return row;
    } catch (err) {
      throw forItem(i, err);
    }
  });

  // a deleted upload: 400; low_contrast warnings on the garments' colours (a template has none)
  const warnings = await checkDesigns(
    deps,
    onGarments.map(({ row, garment }) => ({ ...row, designUrl: body.designUrl, garment })),
  );
  if (onGarments.length === 0) await designsOf(deps, [{ url: body.designUrl, field: 'designUrl' }]);
  const genIds = rows.map((row) => row.id);
  const batchId = `batch-${genIds[0]}`;
  const charge = await insertAndChargeGenerations(deps.sql, {
    userId: caller.userId,
    apiKeyId: caller.apiKeyId,
    batchId,
    rows,
    ...keyed(opts.idempotency),
    ...testMode(deps, caller),
  });
  if (!charge.ok) throw await refused(deps, caller.userId, charge, `this batch of ${rows.length}`);
  await recordWarnings(deps, warnings);
  if (caller.livemode !== false) deps.metrics?.tokens('debit', rows.length);

  const input: GenerationBatchInput = {
    batchId,
    accountId: caller.userId,
    webhookUrl: body.webhookUrl ?? null,
    ...(caller.livemode === false ? { livemode: false } : {}),
    items: rows.map((row) => ({ generationId: row.id, garmentId: row.garmentId, job: row.job })),
  };
  const handle = await startCharged(
    deps.temporal,
    generationBatch,
    {
      workflowId: batchId,
      taskQueue: deps.config.temporal.taskQueue,
      args: [input],
      searchAttributes: { AccountId: [caller.userId], ...(ids.length === 1 ? { GarmentId: ids } : {}) },
    },
    () => failAndRefund(deps.sql, genIds, COULD_NOT_START),
  );
  opts.log.info('generation batch started', { batchId, items: genIds.length });

  let finished: GenerationBatchResult | null = null;
  if (opts.sync) {
    finished = (await within(deps.config.generateSyncTimeoutMs, handle.result())) ?? null;
  }
  const generations = await getGenerations(deps.sql, caller.userId, genIds);
  return { result: { batchId, generations }, balance: charge.balance, finished: finished !== null };
}
