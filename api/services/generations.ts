// Generation use cases: POST /generate (one), POST /generate/batch (up to 25), and reading generations. A new
// generation is recorded and charged in one transaction (db/generations.ts), then its workflow is started; if that
// start fails, every token goes back and every generation is marked failed in one transaction, so the account is
// whole and each id explains itself.
import type { z } from 'zod';
import { withVerificationReason } from './verification-gate';
import type { GarmentRow } from '../../db/garments';
import {
  failAndRefund,
  getGeneration,
  getGenerations,
  insertAndChargeGenerations,
  type BatchChargeResult,
  type BatchGenerationRow,
  type GenerationRow,
} from '../../db/generations';
import type { IdempotencyRef, RecoveryPoint } from '../../db/idempotency';
import type {
  GenerationBatchInput,
  GenerationBatchResult,
  GenerationWorkflowInput,
  GenerationWorkflowResult,
} from '../../lib/generation/types';
import { ownFileKey } from '../../lib/fetch';
import { timeId } from '../../lib/ids';
import { fileUrl } from '../../lib/storage';
import { generation, generationBatch } from '../../workflows';
import type { AppDeps } from '../context';
import { startCharged } from './charged-start';
import { ApiError, badRequest, notFound } from '../errors';
import type { batchBody, generateBody } from '../http/schemas';
import type { FinishedNotice, GenerationNotices } from '../generation-notices';
import { cachedGarment } from './garment-cache';

export { MAX_BATCH_ITEMS } from '../http/schemas';

/** Who asks: the account, the key the request came with, and its mode (false: test mode). */
export interface Caller {
  userId: string;
  apiKeyId: string | null;
  livemode?: boolean;
}

/** POST /generate's body, as its schema parses it. */
export type GenerateRequest = z.infer<typeof generateBody>;
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
const COULD_NOT_START = 'Could not start the generation';

const keyed = (ref: IdempotencyRef | undefined) => (ref ? { idempotency: ref } : {});

/** Test mode (docs/test-mode.md): no charge, the account's daily test budget instead. */
const testMode = (deps: AppDeps, caller: Caller) =>
  caller.livemode === false ? { test: { perDay: deps.config.testModeGenerationsPerDay } } : {};

/** The 402 of a live charge (naming the unverified email when that is why), or the 429 of the daily test budget. */
async function refused(
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
 * Which blank to composite on. A URL of one of this garment's own blanks names its color (and the zone's view is
 * used: a back print goes on that color's back view). Any other URL is the client's own blank photo, fetched
 * through the SSRF guard by the worker; `color` then only labels it, and must name one of the garment's colors.
 */
export function resolveBlank(
  deps: Pick<AppDeps, 'config'>,
  garment: GarmentRow,
  url: string,
  color: string | undefined,
  view: string,
): { key: string; color: string } {
  const named = color ? garment.colors.find((c) => c.name.toLowerCase() === color.toLowerCase()) : undefined;
  if (color && !named) {
    throw badRequest(
      `Garment ${garment.id} has no color ${JSON.stringify(color)}; it offers: ${garment.colors.map((c) => c.name).join(', ')}`,
      { field: 'color' },
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
        {
          field: 'color',
        },
      );
    if (!own.available)
      throw badRequest(`Color ${own.name} of garment ${garment.id} is not available`, { field: 'color' });
    return { key: view === 'back' ? own.backKey : own.frontKey, color: own.name };
  }
  if (named && !named.available)
    throw badRequest(`Color ${named.name} of garment ${garment.id} is not available`, { field: 'color' });
  return { key: `url:${url}`, color: named?.name ?? 'custom' };
}

/** The zone of a garment, or a 400 naming the zones it offers. */
export function zoneOf(garment: GarmentRow, zone: string) {
  const z = garment.zones.find((zz) => zz.id === zone);
  if (!z)
    throw badRequest(
      `Garment ${garment.id} has no ${zone} print zone; it offers: ${garment.zones.map((zz) => zz.id).join(', ')}`,
      { field: 'zone' },
    );
  return z;
}

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
  const zone = zoneOf(garment, body.zone);
  const blank = resolveBlank(deps, garment, body.garmentImageUrl, body.color, zone.view);

  // The row and its charge (keyed by the generation id) in one transaction, as for a batch of one: a debit always
  // has its generation, concurrent requests cannot overdraw, and the workflow's begin step finds this debit.
  const id = timeId('gen');
  const charge = await insertAndChargeGenerations(deps.sql, {
    userId: caller.userId,
    apiKeyId: caller.apiKeyId,
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
        printArea: body.printArea ?? null,
      },
    ],
    ...keyed(opts.idempotency),
    ...testMode(deps, caller),
  });
  if (!charge.ok) throw await refused(deps, caller.userId, charge, 'this generation');
  // test mode spends no token
  if (caller.livemode !== false) deps.metrics?.tokens('debit', 1);

  const mode = caller.livemode === false ? { livemode: false } : {};
  const input: GenerationWorkflowInput = {
    generationId: id,
    accountId: caller.userId,
    garmentId: garment.id,
    webhookUrl: body.webhookUrl ?? null,
    ...mode,
    // the row just recorded, as the render reads it (db/generations.ts markGenerationProcessing)
    job: {
      userId: caller.userId,
      designUrl: body.designUrl,
      blankKey: blank.key,
      zone: { x: zone.x, y: zone.y, width: zone.w, height: zone.h },
      placement: body.placement,
      applyTexture: body.applyTexture,
      view: zone.view,
      silhouette: garment.silhouette,
      printArea: body.printArea ?? null,
      ...mode,
    },
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
        searchAttributes: { AccountId: [caller.userId], GarmentId: [garment.id] },
      },
      () => failAndRefund(deps.sql, [id], COULD_NOT_START),
    );
    opts.log.info('generation started', { generationId: id, garmentId: garment.id });
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
  let timer: NodeJS.Timeout | undefined;
  let fallbackTimer: NodeJS.Timeout | undefined;
  const budget = new Promise<'timeout'>(
    (resolve) => (timer = setTimeout(() => resolve('timeout'), deps.config.generateSyncTimeoutMs).unref()),
  );
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
  try {
    let first = await Promise.race([notice.finished.then(() => 'notice' as const), closed, budget]);
    while (first !== 'timeout') {
      const row = await getGeneration(deps.sql, userId, id);
      if (first === 'closed' || (row && (row.status === 'completed' || row.status === 'failed'))) return row;
      // a notice for a row that is not finished (cannot happen with the worker's statements): wait for the workflow
      first = await Promise.race([closed, budget]);
    }
    return undefined;
  } finally {
    clearTimeout(timer);
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
  const ids = [...new Set(body.items.map((it) => it.garmentId ?? body.garmentId!))];
  const garments = new Map<string, GarmentRow>();
  await Promise.all(
    ids.map(async (id) => {
      const g = await cachedGarment(deps, id);
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
      const z = zoneOf(garment, zoneId);
      let url = item.garmentImageUrl;
      if (url === undefined) {
        // Color by name only: its blank from the catalogue (resolveBlank picks the zone's view).
        const c = garment.colors.find((cc) => cc.name.toLowerCase() === item.color!.toLowerCase());
        if (!c)
          throw badRequest(
            `Garment ${garment.id} has no color ${JSON.stringify(item.color)}; it offers: ${garment.colors.map((cc) => cc.name).join(', ')}`,
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
        printArea: item.printArea ?? null,
      };
    } catch (err) {
      throw forItem(i, err);
    }
  });

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
  if (caller.livemode !== false) deps.metrics?.tokens('debit', rows.length);

  const input: GenerationBatchInput = {
    batchId,
    accountId: caller.userId,
    webhookUrl: body.webhookUrl ?? null,
    ...(caller.livemode === false ? { livemode: false } : {}),
    items: rows.map((row) => ({ generationId: row.id, garmentId: row.garmentId })),
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
    finished = await Promise.race([
      handle.result(),
      new Promise<null>((resolve) => setTimeout(() => resolve(null), deps.config.generateSyncTimeoutMs).unref()),
    ]);
  }
  const generations = await getGenerations(deps.sql, caller.userId, genIds);
  return { result: { batchId, generations }, balance: charge.balance, finished: finished !== null };
}
