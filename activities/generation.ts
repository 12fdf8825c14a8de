// Activities of the generation workflow (run as local activities). Each is idempotent on the generation id: a
// retry, or a second run after a worker crash, finds the work done and returns the same result (one debit, one
// mockup, one completion).
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Sql } from '../db/client';
import { debitTokens, refundDebit } from '../db/ledger';
import type { Config } from '../lib/config';
import type { Logger } from '../lib/log';
import { fileUrl, type Storage } from '../lib/storage';
import { GENERATION_FINISHED_CHANNEL, type Placement } from '../lib/generation/types';
import { ownFileKey } from '../lib/fetch';
import { decodePrepared, preparedKey } from '../lib/images/design-levels';
import { composite, DesignImageError, type DesignSource, type PreparedBlankCache } from '../lib/compositing';

export interface GenerationDeps {
  sql: Sql;
  storage: Storage;
  config: Config;
  log: Logger;
  blanks: PreparedBlankCache;
  /** Reads a user-supplied image URL: our own files from storage, anything else through the SSRF-guarded fetcher.
   * Throws `UserUrlError`-like errors with `retryable: false` for inputs no retry can fix. */
  loadUserImage: (url: string, signal?: AbortSignal) => Promise<Buffer>;
}

/** What the render step needs, read once by beginGeneration (no database reads while rendering). */
export interface RenderJob {
  generationId: string;
  userId: string;
  designUrl: string;
  blankKey: string;
  /** the print zone, fractions of the blank */
  zone: { x: number; y: number; width: number; height: number };
  placement: Placement;
  applyTexture: boolean;
  /** set when an earlier run already completed the generation (a re-run after a crash) */
  completed: { mockupKey: string; thumbnailKey: string; completedAt: string } | null;
}

export interface RenderResult {
  mockupKey: string;
  thumbnailKey: string;
  completedAt: string;
  mockupUrl: string;
  /** where the activity's time went (logged too); empty when an earlier run had done the work */
  ms: Record<string, number>;
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
      const [row] = await sql<
        {
          userId: string;
          designUrl: string;
          blankKey: string;
          status: string;
          placement: Placement;
          applyTexture: boolean;
          mockupKey: string | null;
          thumbnailKey: string | null;
          completedAt: Date | null;
          zx: number | null;
          zy: number | null;
          zw: number | null;
          zh: number | null;
          charged: boolean;
        }[]
      >`
        with started as (
          update generations set status = 'processing', started_at = coalesce(started_at, now())
          where id = ${generationId} and status = 'pending'
          returning id
        )
        select g.user_id as "userId", g.design_url as "designUrl", g.blank_key as "blankKey",
               case when g.status = 'pending' and exists (select 1 from started) then 'processing' else g.status end as status,
               g.placement, g.apply_texture as "applyTexture", g.mockup_key as "mockupKey",
               g.thumbnail_key as "thumbnailKey", g.completed_at as "completedAt",
               z.rect_x as zx, z.rect_y as zy, z.rect_w as zw, z.rect_h as zh,
               exists (select 1 from token_debits d where d.reference = g.id) as charged
        from generations g left join print_zones z on z.garment_id = g.garment_id and z.zone_id = g.zone
        where g.id = ${generationId}`;
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
      lap('store');
      // the notice goes out when this commits: a waiting synchronous request answers without waiting for the
      // workflow to close (api/generation-notices.ts)
      const [row] = await sql<{ completedAt: Date }[]>`
        with done as (
          update generations set status = 'completed', mockup_key = ${keys.mockup}, thumbnail_key = ${keys.thumbnail},
                 completed_at = coalesce(completed_at, now()), error = null
          where id = ${generationId} and status <> 'failed'
          returning completed_at
        )
        select completed_at as "completedAt", pg_notify(${GENERATION_FINISHED_CHANNEL}, ${generationId}) from done`;
      if (!row) throw ApplicationFailure.nonRetryable(`generation ${generationId} already failed`, 'BadInputError');
      lap('complete');
      log.info('mockup rendered', { generationId, ms });
      return {
        mockupKey: keys.mockup,
        thumbnailKey: keys.thumbnail,
        completedAt: row.completedAt.toISOString(),
        mockupUrl: fileUrl(config, keys.mockup),
        ms,
      };
    },

    /** Gives the token back once (reference refund:<generation id>); a no-op when nothing was charged. */
    async refundGeneration(generationId: string): Promise<boolean> {
      const refunded = await refundDebit(sql, generationId);
      if (refunded) log.info('generation refunded', { generationId });
      return refunded;
    },

    async markFailed(generationId: string, error: string): Promise<{ completedAt: string }> {
      const [row] = await sql<{ completedAt: Date }[]>`
        with done as (
          update generations set status = 'failed', error = coalesce(error, ${error.slice(0, 1000)}), tokens_used = 0,
                 completed_at = coalesce(completed_at, now())
          where id = ${generationId} and status <> 'completed'
          returning completed_at
        )
        select completed_at as "completedAt", pg_notify(${GENERATION_FINISHED_CHANNEL}, ${generationId}) from done`;
      return { completedAt: (row?.completedAt ?? new Date()).toISOString() };
    },
  };
}
