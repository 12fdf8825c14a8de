// Activities of the generation workflow (run as local activities). Each is idempotent on the generation id: a
// retry, or a second run after a worker crash, finds the work done and returns the same result (one debit, one
// mockup, one completion).
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Sql } from '../db/client';
import { beginGeneration, completeGeneration, failAndRefund } from '../db/generations';
import { debitTokens } from '../db/ledger';
import { touchUploadLevels } from '../db/uploads';
import type { Config } from '../lib/config';
import type { Logger } from '../lib/log';
import type { AppMetrics } from '../lib/metrics';
import { fileUrl, type Storage } from '../lib/storage';
import type { GenerationFailureOutcome, RenderJob, RenderResult } from '../lib/generation/types';
import { ownFileKey } from '../lib/fetch';
import { decodePrepared, preparedKey } from '../lib/images/design-levels';
import { composite, DesignImageError, type DesignSource, type PreparedBlankCache } from '../lib/compositing';

export interface GenerationDeps {
  sql: Sql;
  storage: Storage;
  config: Config;
  log: Logger;
  metrics?: AppMetrics;
  blanks: PreparedBlankCache;
  /** Reads a user-supplied image URL: our own files from storage, anything else through the SSRF-guarded fetcher.
   * Throws `UserUrlError`-like errors with `retryable: false` for inputs no retry can fix. */
  loadUserImage: (url: string, signal?: AbortSignal) => Promise<Buffer>;
}

/** Errors that say the input is at fault (bad URL, not an image, refused address): failing again will not help. */
export function isPermanent(err: unknown): boolean {
  const e = err as { retryable?: boolean; name?: string };
  return (
    err instanceof DesignImageError ||
    err instanceof RangeError ||
    e?.retryable === false ||
    e?.name === 'DesignImageError'
  );
}

export const mockupKeys = (generationId: string) => ({
  mockup: `mockups/${generationId}.jpg`,
  thumbnail: `mockups/${generationId}-thumb.jpg`,
});

export function createGenerationActivities(deps: GenerationDeps) {
  const { sql, storage, config, log } = deps;

  return {
    /**
     * Starts a generation in one round trip: marks it processing (if pending) and reads the row with its print zone
     * and whether its token is taken. The API charges in the transaction that inserts the row, so the debit is
     * normally there; if not (a row written by an older API), it is taken here, keyed by the generation id.
     */
    async beginGeneration(generationId: string): Promise<RenderJob> {
      const row = await beginGeneration(sql, generationId);
      if (!row) throw ApplicationFailure.nonRetryable(`generation ${generationId} does not exist`, 'BadInputError');
      if (row.status === 'failed')
        throw ApplicationFailure.nonRetryable(`generation ${generationId} already failed`, 'BadInputError');
      if (row.zx === null || row.zy === null || row.zw === null || row.zh === null) {
        throw ApplicationFailure.nonRetryable(
          `generation ${generationId}: its garment has no such print zone`,
          'BadInputError',
        );
      }
      if (!row.charged) {
        const r = await debitTokens(sql, { userId: row.userId, amount: 1, reference: generationId });
        if (!r.ok)
          throw ApplicationFailure.nonRetryable(
            `Insufficient tokens: 1 required, ${r.available} available`,
            'InsufficientTokensError',
          );
        if (!r.duplicate) deps.metrics?.tokens('debit', r.amount);
      }
      const done = row.status === 'completed' && row.mockupKey && row.thumbnailKey && row.completedAt;
      return {
        generationId,
        userId: row.userId,
        designUrl: row.designUrl,
        blankKey: row.blankKey,
        zone: { x: row.zx, y: row.zy, width: row.zw, height: row.zh },
        placement: row.placement,
        applyTexture: row.applyTexture,
        completed: done
          ? { mockupKey: row.mockupKey!, thumbnailKey: row.thumbnailKey!, completedAt: row.completedAt!.toISOString() }
          : null,
      };
    },

    /**
     * Loads the design (a prepared one when the worker has it) and the prepared blank, composites, stores mockup
     * and thumbnail under keys derived from the generation id (a re-run writes the same files with the same bytes),
     * then marks the generation completed, once. Runs as a local activity: no database read, one update.
     */
    async renderMockup(job: RenderJob): Promise<RenderResult> {
      const { generationId } = job;
      if (job.completed) return { ...job.completed, mockupUrl: fileUrl(config, job.completed.mockupKey), ms: {} };
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
      // input no retry can fix (bad URL, not an image, refused address) fails the generation at once
      const badInput = (err: unknown) =>
        isPermanent(err) ? ApplicationFailure.nonRetryable((err as Error).message, 'BadInputError') : err;
      // The cancellation signal aborts a slow download when the worker shuts down or the activity times out.
      const signal = Context.current().cancellationSignal;
      const blank = await deps.blanks.get(job.blankKey).catch((err) => {
        throw badInput(err);
      });
      lap('blank');
      // Our own files never change under a key (uploads get new keys), so the key names the content and a
      // prepared design is found without reading the file; anything else is read and identified by its hash.
      const ownKey = ownFileKey(config.publicBaseUrl, job.designUrl);
      // an upload used by a generation keeps its prepared levels (their retention counts from the last use); in
      // parallel with the render, and never failing it
      const touched = ownKey?.startsWith('uploads/')
        ? touchUploadLevels(sql, ownKey).catch((err: unknown) =>
            log.warn('could not record the use of an upload', { generationId, err }),
          )
        : undefined;
      const design: DesignSource = {
        id: ownKey ? `file:${ownKey}` : undefined,
        // an upload's levels prepared at upload time (absent for other files and for uploads made before them)
        loadPrepared: ownKey
          ? async () => {
              const obj = await timed('readPrepared', () => storage.get(preparedKey(ownKey)).catch(() => null));
              return obj ? decodePrepared(obj.body) : null;
            }
          : undefined,
        load: () =>
          timed('readDesign', () => deps.loadUserImage(job.designUrl, signal)).catch((err) => {
            throw badInput(err);
          }),
      };
      let out;
      try {
        out = await composite({
          blank,
          design,
          zone: job.zone,
          placement: job.placement,
          applyTexture: job.applyTexture,
        });
      } catch (err) {
        if (err instanceof DesignImageError)
          throw ApplicationFailure.nonRetryable(`Design image: ${err.message}`, 'DesignImageError');
        if (err instanceof RangeError) throw ApplicationFailure.nonRetryable(err.message, 'BadInputError');
        throw err;
      }
      lap('composite');
      await Promise.all([
        storage.put(keys.thumbnail, out.thumbnail, 'image/jpeg'),
        storage.put(keys.mockup, out.mockup, 'image/jpeg'),
      ]);
      await touched;
      lap('store');
      const row = await completeGeneration(sql, generationId, { mockupKey: keys.mockup, thumbnailKey: keys.thumbnail });
      if (!row) throw ApplicationFailure.nonRetryable(`generation ${generationId} already failed`, 'BadInputError');
      lap('complete');
      deps.metrics?.generationFinished(generationId, 'completed');
      log.info('mockup rendered', { generationId, ms });
      return {
        mockupKey: keys.mockup,
        thumbnailKey: keys.thumbnail,
        completedAt: row.completedAt.toISOString(),
        mockupUrl: fileUrl(config, keys.mockup),
        ms,
      };
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
}
