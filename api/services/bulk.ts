// Bulk renders (issue 35, docs/generation.md#bulk-renders): POST /generate/bulk expands designs x garment targets x
// colours x zones into ordinary generations (api/services/generation-jobs.ts newGeneration, one render job each),
// records and charges them with the bulk's row and items in one statement (db/generation-inserts.ts
// insertAndChargeGenerations: one debit per generation, refund:<generation id> gives one back), then starts workflow
// `bulk-<id>` (workflows/bulk.ts). GET reads the bulk and a page of its generations; cancel refunds what was not
// rendered and tells the workflow to stop.
import { WorkflowNotFoundError } from '@temporalio/client';
import type { z } from 'zod';
import {
  bulkCounts,
  bulkGenerations,
  cancelBulk,
  closeBulk,
  getBulk,
  type BulkRow,
  type NewBulkItem,
} from '../../db/bulk';
import type { GarmentRow } from '../../db/garments';
import { failAndRefund } from '../../db/generations';
import { insertAndChargeGenerations, type NewGeneration } from '../../db/generation-inserts';
import { getTemplate, type TemplateRow } from '../../db/templates';
import type { RecoveryPoint } from '../../db/idempotency';
import { darkColor } from '../../lib/analysis/contrast';
import { archiveEntryNames, designNameOf, type NamedItem } from '../../lib/bulk/names';
import { BULK_CANCEL_SIGNAL, bulkWorkflowId, type BulkWorkflowInput } from '../../lib/bulk/types';
import type { TemplateRenderJob } from '../../lib/generation/types';
import { timeId } from '../../lib/ids';
import { fileUrl } from '../../lib/storage';
import { bulkRender } from '../../workflows';
import type { AppDeps } from '../context';
import { ApiError, badRequest, notFound } from '../errors';
import type { bulkBody, bulkPageResource, bulkResource } from '../http/bulk-schemas';
import { presentGeneration } from '../http/present';
import { cursorPage, type CursorCodec } from '../pagination';
import { startCharged } from './charged-start';
import { itemWarnings, recordWarnings } from './design-warnings';
import { cachedGarment } from './garment-cache';
import {
  GARMENT_PLACEMENT,
  newGeneration,
  newTemplateGeneration,
  placementWith,
  templateDesigns,
  TEMPLATE_PLACEMENT,
  type Caller,
  type NewGarmentGeneration,
} from './generation-jobs';
import { COULD_NOT_START, keyed, refused, testMode, type StartOptions } from './generations';
import { designsOf } from './upload-library';

export type BulkRequest = z.infer<typeof bulkBody>;
export type BulkResource = z.infer<typeof bulkResource>;

/** The bulk as the API shows it (POST's 202, GET, cancel). */
export async function presentBulk(deps: AppDeps, row: BulkRow): Promise<BulkResource> {
  const counts = await bulkCounts(deps.sql, row.id);
  return {
    id: row.id,
    status: row.status,
    total: row.total,
    completed: counts.completed,
    failed: counts.failed,
    tokensCharged: row.tokensCharged,
    tokensRefunded: row.tokensCharged - counts.tokensHeld,
    archiveUrl: row.archiveKey ? fileUrl(deps.config, row.archiveKey) : null,
    createdAt: row.createdAt.toISOString(),
    finishedAt: row.finishedAt ? row.finishedAt.toISOString() : null,
    livemode: row.livemode,
  };
}

/** Re-labels an error with where in the body it comes from, keeping status and code. */
function at(path: string, err: unknown): unknown {
  if (!(err instanceof ApiError)) return err;
  const field = typeof err.details?.field === 'string' ? `${path}.${err.details.field}` : path;
  return new ApiError(err.status, err.code, `${path}: ${err.message}`, { ...err.details, field });
}

type TemplateTarget = { templateId: string; smartObjectId?: string | undefined };
const isTemplate = (t: BulkRequest['targets'][number]): t is TemplateTarget => 'templateId' in t;

/** The items of a bulk, before anything is read: how many, or a 400 naming BULK_MAX_ITEMS. */
function countItems(body: BulkRequest, garments: Map<string, GarmentRow>): number {
  let perDesign = 0;
  for (const t of body.targets) {
    if (isTemplate(t)) {
      perDesign += 1;
      continue;
    }
    const g = garments.get(t.garmentId)!;
    const colors = t.colors?.length ?? g.colors.filter((c) => c.available).length;
    perDesign += colors * (t.zones?.length ?? 1);
  }
  return perDesign * body.designs.length;
}

/**
 * POST /generate/bulk: validates and expands the request (every item checked before anything is charged), records and
 * charges every item with the bulk in one transaction (402 with required and available when short: nothing charged),
 * starts workflow bulk-<id> and answers the bulk, running. A template target is one item per design: the design in
 * the smart object named (default: the largest), at the bulk's placement within it (the members left out take the
 * smart object's defaults, centered and as large as fits), as POST /generate with templateId renders it. Every item
 * waits in the compositing gate's background lane.
 */
export async function createBulk(
  deps: AppDeps,
  caller: Caller,
  body: BulkRequest,
  opts: StartOptions,
): Promise<{ row: BulkRow; balance: number }> {
  const max = deps.config.bulk.maxItems;
  const garments = new Map<string, GarmentRow>();
  const templates = new Map<string, TemplateRow>();
  const livemode = caller.livemode !== false;
  await Promise.all([
    ...[...new Set(body.targets.flatMap((t) => (isTemplate(t) ? [] : [t.garmentId])))].map(async (id) => {
      const g = await cachedGarment(deps, id);
      if (g) garments.set(id, g);
    }),
    ...[...new Set(body.targets.flatMap((t) => (isTemplate(t) ? [t.templateId] : [])))].map(async (id) => {
      const t = await getTemplate(deps.sql, caller.userId, id, livemode);
      if (t) templates.set(id, t);
    }),
  ]);
  body.targets.forEach((t, i) => {
    if (isTemplate(t)) {
      const template = templates.get(t.templateId);
      if (!template) throw at(`targets[${i}]`, notFound(`Template ${JSON.stringify(t.templateId)} not found`));
      // ready, and has the smart object named: else 409 / 400 before anything is charged
      try {
        templateDesigns(template, { designUrl: 'x', smartObjectId: t.smartObjectId, displace: 'auto' });
      } catch (err) {
        throw at(`targets[${i}]`, err);
      }
    } else if (!garments.has(t.garmentId))
      throw at(`targets[${i}]`, notFound(`Garment ${JSON.stringify(t.garmentId)} not found`));
  });
  const total = countItems(body, garments);
  if (total > max)
    throw badRequest(
      `The bulk expands to ${total} items (designs x colours x zones); at most ${max} (BULK_MAX_ITEMS) in one bulk`,
      { total, max },
    );
  if (total === 0) throw badRequest('The bulk expands to no item: the targets have no available colour');

  // Our uploads among the designs: their names (archive entries), a deleted one is a 400, their inks (warnings).
  const urls = body.designs.flatMap((d, i) => [
    { url: d.designUrl, field: `designs.${i}.designUrl` },
    ...(d.darkDesignUrl ? [{ url: d.darkDesignUrl, field: `designs.${i}.darkDesignUrl` }] : []),
  ]);
  const designs = await designsOf(deps, urls);
  // the shared placement, its missing members from each kind of target's defaults
  const given = body.placement ?? {};
  const onGarment = placementWith(GARMENT_PLACEMENT, given);
  const onTemplate = placementWith(TEMPLATE_PLACEMENT, given);

  const rows: NewGeneration[] = [];
  const named: NamedItem[] = [];
  const warned: { id: string; designUrl: string; garment: GarmentRow; color: string }[] = [];
  body.designs.forEach((d) => {
    const design = designNameOf(d.designUrl, designs.get(d.designUrl)?.name);
    body.targets.forEach((t, ti) => {
      if (isTemplate(t)) {
        // a template has no garment colour: the design as given (no dark variant, no contrast warning)
        const template = templates.get(t.templateId)!;
        let row: NewGeneration;
        try {
          row = newTemplateGeneration(caller, template, {
            designUrl: d.designUrl,
            smartObjectId: t.smartObjectId,
            placement: onTemplate,
            displace: 'auto',
            webhookUrl: body.itemWebhooks ? (body.webhookUrl ?? null) : null,
            // a bulk's renders wait in the compositing gate's background lane (lib/gate.ts)
            background: true,
          });
        } catch (err) {
          throw at(`targets[${ti}]`, err);
        }
        const so = (row.job as TemplateRenderJob).designs[0]!.smartObjectId;
        rows.push(row);
        named.push({
          design,
          template: template.name || template.id,
          smartObject: template.smartObjects.find((s) => s.id === so)?.name || so,
        });
        return;
      }
      const garment = garments.get(t.garmentId)!;
      const colors = t.colors ?? garment.colors.filter((c) => c.available).map((c) => c.name);
      for (const color of colors) {
        const hex = garment.colors.find((c) => c.name.toLowerCase() === color.toLowerCase())?.hex;
        // a dark colour takes the design's light-ink variant when there is one
        const designUrl = d.darkDesignUrl && hex && darkColor(hex) ? d.darkDesignUrl : d.designUrl;
        for (const zone of t.zones ?? ['front']) {
          let row: NewGarmentGeneration;
          try {
            row = newGeneration(deps, caller, garment, {
              designUrl,
              zone,
              color,
              placement: onGarment,
              applyTexture: body.applyTexture,
              webhookUrl: body.itemWebhooks ? (body.webhookUrl ?? null) : null,
            });
          } catch (err) {
            throw at(`targets[${ti}]`, err);
          }
          // a bulk's renders wait in the compositing gate's background lane (lib/gate.ts)
          row = { ...row, job: { ...row.job, background: true } };
          rows.push(row);
          named.push({ design, garmentId: garment.id, color: row.color, zone });
          warned.push({ id: row.id, designUrl, garment, color: row.color });
        }
      }
    });
  });
  const warnings = await itemWarnings(deps, designs, warned);
  const names = archiveEntryNames(named);

  const bulkId = timeId('blk');
  const webhookUrl = body.webhookUrl ?? null;
  const items: NewBulkItem[] = rows.map((r, i) => ({
    generationId: r.id,
    garmentId: r.garmentId,
    entryName: names[i]!,
    job: r.job,
  }));
  const charge = await insertAndChargeGenerations(deps.sql, {
    userId: caller.userId,
    apiKeyId: caller.apiKeyId,
    batchId: bulkWorkflowId(bulkId),
    rows,
    ...keyed(opts.idempotency),
    ...testMode(deps, caller),
    bulk: {
      id: bulkId,
      userId: caller.userId,
      apiKeyId: caller.apiKeyId,
      livemode,
      tokensCharged: livemode ? rows.length : 0,
      webhookUrl,
      itemWebhooks: body.itemWebhooks,
      items,
    },
  });
  if (!charge.ok) throw await refused(deps, caller.userId, charge, `this bulk of ${rows.length}`);
  await recordWarnings(deps, warnings);
  if (livemode) deps.metrics?.tokens('debit', rows.length);

  const row = (await getBulk(deps.sql, caller.userId, bulkId))!;
  await startBulk(deps, row);
  opts.log.info('bulk render started', { bulkId, items: rows.length });
  return { row, balance: charge.balance };
}

/** Starts the bulk's workflow (a second start of the same bulk finds it running). */
async function startBulk(deps: AppDeps, row: BulkRow): Promise<void> {
  const input: BulkWorkflowInput = {
    bulkId: row.id,
    accountId: row.userId,
    concurrency: deps.config.bulk.concurrency,
    itemWebhookUrl: row.itemWebhooks ? row.webhookUrl : null,
    ...(row.livemode ? {} : { livemode: false }),
  };
  await startCharged(
    deps.temporal,
    bulkRender,
    {
      workflowId: bulkWorkflowId(row.id),
      taskQueue: deps.config.temporal.taskQueue,
      args: [input],
      searchAttributes: { AccountId: [row.userId] },
    },
    async () => {
      // nothing will render them: every item failed and refunded, the bulk closed
      const page = await bulkGenerations(deps.sql, row.id, -1, deps.config.bulk.maxItems);
      await failAndRefund(
        deps.sql,
        page.map((g) => g.id),
        COULD_NOT_START,
      );
      await closeBulk(deps.sql, row.id, null);
    },
  );
}

/**
 * The answer of a POST /generate/bulk that charged under its Idempotency-Key but stored no answer (its API process
 * died): the bulk as it now stands, its workflow started if it was not.
 */
export async function recoveredBulk(deps: AppDeps, userId: string, point: RecoveryPoint, livemode: boolean) {
  const id = point.batchId?.startsWith('bulk-') ? point.batchId.slice('bulk-'.length) : undefined;
  const row = id ? await getBulk(deps.sql, userId, id, livemode) : undefined;
  if (!row) throw notFound('The bulk of this Idempotency-Key no longer exists');
  if (row.status === 'running') await startBulk(deps, row);
  return row;
}

/** In the order of the expansion: `{p: position}`. */
const byPosition: CursorCodec<{ position: number }, number> = {
  read: (v) => (typeof v.p === 'number' && Number.isInteger(v.p) && v.p >= 0 ? v.p : undefined),
  of: (row) => ({ p: row.position }),
};

/** GET /generate/bulk/<id>: the bulk and a page of its generations, in order. */
export async function readBulk(
  deps: AppDeps,
  caller: { userId: string; livemode: boolean },
  id: string,
  q: { limit?: number | undefined; cursor?: string | undefined },
): Promise<z.infer<typeof bulkPageResource>> {
  const row = await getBulk(deps.sql, caller.userId, id, caller.livemode);
  if (!row) throw notFound('Bulk not found');
  const { page, pagination } = await cursorPage(
    { secret: deps.config.appSecret, scope: `bulk:${id}`, codec: byPosition },
    { cursor: q.cursor, limit: q.limit ?? 50 },
    (after, limit) => bulkGenerations(deps.sql, id, after ?? -1, limit),
  );
  return {
    ...(await presentBulk(deps, row)),
    generations: page.map((g) => presentGeneration(deps, g)),
    pagination,
  };
}

/**
 * POST /generate/bulk/<id>/cancel: a running bulk is marked canceled and every item not yet begun is failed and
 * refunded at once (items in flight finish); its workflow is told to stop dispatching, then closes it with the
 * archive of what was rendered. A bulk that has ended is answered as it is.
 */
export async function cancelOwnBulk(deps: AppDeps, caller: { userId: string; livemode: boolean }, id: string) {
  const out = await cancelBulk(deps.sql, caller.userId, id, caller.livemode);
  if (!out) throw notFound('Bulk not found');
  if (out.refunded > 0 && out.row.livemode) deps.metrics?.tokens('refund', out.refunded);
  if (out.row.status === 'canceled' && !out.row.finishedAt) {
    try {
      await deps.temporal.workflow.getHandle(bulkWorkflowId(id)).signal(BULK_CANCEL_SIGNAL);
    } catch (err) {
      // a workflow that has closed in the meantime has nothing left to stop
      if (!(err instanceof WorkflowNotFoundError)) throw err;
    }
  }
  return out.row;
}
