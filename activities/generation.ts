// Activities of the generation workflow (run as local activities). Each is idempotent on the generation id: a
// retry, or a second run after a worker crash, finds the work done and returns the same result (one mockup, one
// completion, one refund).
import { ACCOUNT_DELETED } from '../lib/accounts/types';
import { Context } from '@temporalio/activity';
import { completeGeneration, failAndRefund, generationAccountGone, markGenerationProcessing } from '../db/generations';
import { touchUploadLevels } from '../db/uploads';
import { fileUrl } from '../lib/storage';
import type {
  CompletedFiles,
  GarmentRenderJob,
  GenerationFailureOutcome,
  PixelBox,
  PlacementBasis,
  RenderJob,
  RenderResult,
  TemplateRenderJob,
} from '../lib/generation/types';
import {
  choosePrintZone,
  composite,
  DesignImageError,
  designSource,
  JPEG_QUALITY,
  THUMB_QUALITY,
  watermarkTest,
  type TimedRead,
} from '../lib/compositing';
import { isBadInput } from '../lib/errors';
import type { GenerationWarning } from '../lib/generation/warnings';
import type { PreparedTemplateCache } from '../lib/template-import/prepared-store';
import { templateMockup } from '../lib/template-import/render';
import { nonRetryable as fail, type ImageActivityDeps } from './deps';

export interface GenerationDeps extends ImageActivityDeps {
  /** the worker's prepared templates (renders on a template read through it; the import puts what it made) */
  templates?: PreparedTemplateCache;
}

/** What a render made: the mockup and thumbnail JPEGs, where the design landed (garments only), the uploads it
 * used recorded as used (in parallel, never failing it). */
interface Made {
  out: { mockup: Buffer; thumbnail: Buffer };
  landed: { printArea: PixelBox; designBox: PixelBox; placementBasis: PlacementBasis } | undefined;
  /** the render's warnings (garment_not_found, zone_clipped on a client's photo) */
  warnings: GenerationWarning[];
  touched: Promise<unknown> | undefined;
}

export { ACCOUNT_DELETED };

export const mockupKeys = (generationId: string) => ({
  mockup: `mockups/${generationId}.jpg`,
  thumbnail: `mockups/${generationId}-thumb.jpg`,
});

export function createGenerationActivities(deps: GenerationDeps) {
  const { sql, storage, config, log } = deps;

  /**
   * Marks the generation processing (if pending) and checks it may be completed, in one statement: a generation that
   * does not exist or already failed, or has no debit (the API charges in the transaction that records it), is never
   * rendered. Returns the files of an earlier run that completed it.
   */
  async function begin(generationId: string): Promise<CompletedFiles | null> {
    const row = await markGenerationProcessing(sql, generationId);
    if (!row) throw fail('BadInputError', `generation ${generationId} does not exist`);
    if (row.status === 'failed') throw fail('BadInputError', `generation ${generationId} already failed`);
    if (!row.charged) throw fail('BadInputError', `generation ${generationId} has no debit`);
    if (row.accountDeleted && !row.completed) throw fail('BadInputError', ACCOUNT_DELETED);
    return row.completed;
  }

  const activities = {
    /**
     * The render step (one local activity): renders the job from the workflow's input at once, while begin's
     * statement runs beside it; nothing is stored before it has answered, and its answer wins (a generation that
     * failed or has no debit is not completed; one an earlier run completed keeps that run's files). Loads the design
     * (a prepared one when the worker has it) and the prepared blank, composites, stores mockup and thumbnail under
     * keys derived from the generation id (a re-run writes the same files with the same bytes), then marks the
     * generation completed, once. Retried as a whole; idempotent on the generation id.
     */
    async renderGeneration(generationId: string, job: RenderJob | undefined): Promise<RenderResult> {
      // inputs carry the job since issue 34; one without it (started by an older release) cannot be rendered
      if (!job) throw fail('BadInputError', `generation ${generationId} was started without its render job`);
      const begun = begin(generationId);
      begun.catch(() => {}); // awaited before anything is stored, or when the render fails
      return render(generationId, job, begun);
    },

    /**
     * The failure path: fails the generation and refunds its token in one transaction, unless it completed after
     * all (a render that committed after its step timed out), in which case it stays completed. Returns where the
     * generation stands, so the workflow sends the callback that tells the truth.
     */
    async failGeneration(generationId: string, error: string): Promise<GenerationFailureOutcome> {
      const [outcome] = await failAndRefund(sql, [generationId], error);
      if (!outcome || outcome.status === 'missing')
        return { status: 'failed', error, completedAt: new Date().toISOString() };
      if (outcome.status === 'completed') {
        log.warn('generation completed before its failure was recorded; kept completed', { generationId, error });
        return {
          status: 'completed',
          completedAt: outcome.completedAt.toISOString(),
          mockupUrl: fileUrl(config, outcome.mockupKey),
        };
      }
      if (outcome.refunded) log.info('generation failed and refunded', { generationId });
      if (outcome.refunded) deps.metrics?.tokens('refund', 1);
      deps.metrics?.generationFinished(generationId, 'failed');
      return { status: 'failed', error: outcome.error, completedAt: outcome.completedAt.toISOString() };
    },
  };

  /**
   * The render of renderGeneration. `begun`: begin's answer, still coming. It is awaited before anything is stored,
   * and when the render fails, so that its error (the generation has failed, or has no debit) is reported first, as
   * a begin run before the render would have.
   */
  async function render(
    generationId: string,
    job: RenderJob,
    begun: Promise<CompletedFiles | null>,
  ): Promise<RenderResult> {
    const keys = mockupKeys(generationId);
    const ms: Record<string, number> = {};
    let t = performance.now();
    const lap = (name: string) => {
      const now = performance.now();
      ms[name] = Math.round((now - t) * 10) / 10;
      t = now;
    };
    const timed = async <T>(name: string, read: () => Promise<T>): Promise<T> => {
      const t0 = performance.now();
      try {
        return await read();
      } finally {
        ms[name] = Math.round((performance.now() - t0) * 10) / 10;
      }
    };
    const made =
      job.kind === 'template' ? makeOnTemplate(generationId, job, lap, timed) : make(generationId, job, lap, timed);
    const { out, landed, warnings, touched } = await made.catch(async (err: unknown) => {
      await begun;
      throw err;
    });
    const earlier = await begun;
    if (earlier) return done(earlier); // an earlier run completed it: its files and time stand
    await Promise.all([
      storage.put(keys.thumbnail, out.thumbnail, 'image/jpeg'),
      storage.put(keys.mockup, out.mockup, 'image/jpeg'),
    ]);
    await touched;
    lap('store');
    const row = await completeGeneration(
      sql,
      generationId,
      { mockupKey: keys.mockup, thumbnailKey: keys.thumbnail },
      landed,
      warnings,
    );
    if (!row) {
      // refused (failed, gone, or its account deleted meanwhile): nothing refers to the files just stored
      await Promise.all([storage.delete(keys.mockup), storage.delete(keys.thumbnail)]);
      if (await generationAccountGone(sql, generationId)) {
        log.info('generation of a deleted account: its files deleted, not completed', { generationId });
        throw fail('BadInputError', ACCOUNT_DELETED);
      }
      throw fail('BadInputError', `generation ${generationId} already failed`);
    }
    lap('complete');
    deps.metrics?.generationFinished(generationId, 'completed');
    log.info('mockup rendered', { generationId, ms });
    return {
      mockupKey: keys.mockup,
      thumbnailKey: keys.thumbnail,
      completedAt: row.completedAt.toISOString(),
      mockupUrl: fileUrl(config, keys.mockup),
      ...landed,
      ms,
    };
  }

  /** The mockup and thumbnail of a job, in memory (watermarked in test mode), with the zone they were placed in. */
  async function make(
    generationId: string,
    job: GarmentRenderJob,
    lap: (name: string) => void,
    timed: TimedRead,
  ): Promise<Made> {
    // The cancellation signal aborts a slow download when the worker shuts down or the activity times out.
    const signal = Context.current().cancellationSignal;
    const blank = await deps.blanks.get(job.blankKey).catch((err: unknown) => {
      throw isBadInput(err) ? fail('BadInputError', `Blank image: ${err.message}`) : err;
    });
    lap('blank');
    // lib/compositing/sources.ts: our own files are named by their key and come with prepared levels
    const { source: design, ownKey } = designSource({ ...deps, publicBaseUrl: config.publicBaseUrl }, job.designUrl, {
      signal,
      timed,
    });
    const touched = touch(generationId, ownKey);
    // the zone: the client's printArea, or fitted to the garment found in a client's photo, or the catalogue's
    const chosen = await choosePrintZone({
      blank,
      zone: job.zone,
      silhouette: job.silhouette,
      view: job.view,
      printArea: job.printArea,
    });
    if (chosen.fallback) log.info('print zone in fractions of the photo', { generationId, why: chosen.fallback });
    const { placement, applyTexture } = job;
    const background = job.background === true;
    let out = await composite({ blank, design, zone: chosen.zone, placement, applyTexture, background }).catch(
      (err: unknown) => {
        // input no retry can fix (bad URL, not an image, refused address, undecodable design) fails it at once
        if (err instanceof DesignImageError) throw fail('DesignImageError', `Design image: ${err.message}`);
        throw isBadInput(err) ? fail('BadInputError', err.message) : err;
      },
    );
    lap('composite');
    if (job.livemode === false) {
      // test mode: the TEST watermark on both images (docs/test-mode.md)
      const [mockup, thumbnail] = await Promise.all([
        watermarkTest(out.mockup, JPEG_QUALITY),
        watermarkTest(out.thumbnail, THUMB_QUALITY),
      ]);
      out = { ...out, mockup, thumbnail };
      lap('watermark');
    }
    const landed = { printArea: chosen.printArea, designBox: out.designBox, placementBasis: chosen.basis };
    return { out, landed, warnings: chosen.warning ? [chosen.warning] : [], touched };
  }

  /** An upload used by a generation keeps its prepared levels (their retention counts from the last use); in
   * parallel with the render, and never failing it. */
  function touch(generationId: string, ownKey: string | null) {
    return ownKey?.startsWith('uploads/')
      ? touchUploadLevels(sql, ownKey).catch((err: unknown) =>
          log.warn('could not record the use of an upload', { generationId, err }),
        )
      : undefined;
  }

  /** The mockup of a render on a template: its prepared layers from the worker's cache, each design at the size its
   * smart object needs, rendered as Photoshop would (lib/template-import/render.ts); watermarked in test mode. */
  async function makeOnTemplate(
    generationId: string,
    job: TemplateRenderJob,
    lap: (name: string) => void,
    timed: TimedRead,
  ): Promise<Made> {
    if (!deps.templates) throw new Error('this worker has no prepared-template cache');
    const signal = Context.current().cancellationSignal;
    // a template prepared by an older engine is prepared again here, once (docs/templates.md#the-import-durably)
    const prepared = await deps.templates.get(job.preparedKey).catch((err: unknown) => {
      // the template was deleted after the generation was charged: its prepared layers are gone for good
      if (err instanceof Error && /missing from storage/.test(err.message))
        throw fail('BadInputError', `Template ${job.templateId} was deleted`);
      // prepared by an older engine, and its source is gone (lib/template-import/prepared-store.ts prepareAgain)
      throw isBadInput(err) ? fail('BadInputError', err.message) : err;
    });
    lap('template');
    const sources = job.designs.map((d) => {
      const { source, ownKey } = designSource({ ...deps, publicBaseUrl: config.publicBaseUrl }, d.designUrl, {
        signal,
        timed,
      });
      return { smartObjectId: d.smartObjectId, source, placement: d.placement, ownKey };
    });
    const touched = Promise.all(sources.map((s) => touch(generationId, s.ownKey)));
    const enc = await templateMockup(prepared, sources, {
      displace: job.displace,
      background: job.background === true,
    }).catch((err: unknown) => {
      if (err instanceof DesignImageError) throw fail('DesignImageError', `Design image: ${err.message}`);
      throw isBadInput(err) ? fail('BadInputError', err.message) : err;
    });
    let out = { mockup: enc.mockup, thumbnail: enc.thumbnail! };
    lap('render');
    if (job.livemode === false) {
      const [mockup, thumbnail] = await Promise.all([
        watermarkTest(out.mockup, JPEG_QUALITY),
        watermarkTest(out.thumbnail, THUMB_QUALITY),
      ]);
      out = { mockup, thumbnail };
      lap('watermark');
    }
    return { out, landed: undefined, warnings: [], touched };
  }

  const done = (c: CompletedFiles): RenderResult => ({
    ...c,
    mockupUrl: fileUrl(config, c.mockupKey),
    ms: {},
  });

  return activities;
}
