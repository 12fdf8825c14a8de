// Activities of the generation workflow. Each is idempotent on the generation id: a retry, or a second run after
// a worker crash, finds the work done and returns the same result (one debit, one mockup, one completion).
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Sql } from '../db/client';
import { debitTokens, refundDebit } from '../db/ledger';
import type { Config } from '../lib/config';
import type { Logger } from '../lib/log';
import { fileUrl, type Storage } from '../lib/storage';
import type { Placement } from '../lib/generation/types';
import { composite, DesignImageError, type PreparedBlankCache } from './compositing';

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

interface GenerationRow {
  id: string;
  userId: string;
  garmentId: string;
  zone: string;
  placement: Placement;
  applyTexture: boolean;
  designUrl: string;
  blankKey: string;
  status: string;
  mockupKey: string | null;
  thumbnailKey: string | null;
  completedAt: Date | null;
  error: string | null;
}

/** Errors that say the input is at fault (bad URL, not an image, refused address): failing again will not help. */
export function isPermanent(err: unknown): boolean {
  const e = err as { retryable?: boolean; name?: string };
  return err instanceof DesignImageError || err instanceof RangeError || e?.retryable === false || e?.name === 'DesignImageError';
}

export const mockupKeys = (generationId: string) => ({
  mockup: `mockups/${generationId}.jpg`,
  thumbnail: `mockups/${generationId}-thumb.jpg`,
});

export function createGenerationActivities(deps: GenerationDeps) {
  const { sql, storage, config, log } = deps;

  async function load(generationId: string): Promise<GenerationRow> {
    const [row] = await sql<GenerationRow[]>`
      select id, user_id as "userId", garment_id as "garmentId", zone, placement, apply_texture as "applyTexture",
             design_url as "designUrl", blank_key as "blankKey", status, mockup_key as "mockupKey",
             thumbnail_key as "thumbnailKey", completed_at as "completedAt", error
      from generations where id = ${generationId}`;
    if (!row) throw ApplicationFailure.nonRetryable(`generation ${generationId} does not exist`, 'BadInputError');
    return row;
  }

  return {
    /** Takes the generation's token (reference = generation id). The API already charged it; this is the
     * durable guarantee and normally finds the debit in place. */
    async chargeGeneration(generationId: string): Promise<{ duplicate: boolean }> {
      const g = await load(generationId);
      const r = await debitTokens(sql, { userId: g.userId, amount: 1, reference: generationId });
      if (!r.ok) throw ApplicationFailure.nonRetryable(`Insufficient tokens: 1 required, ${r.available} available`, 'InsufficientTokensError');
      return { duplicate: r.duplicate };
    },

    async markProcessing(generationId: string): Promise<void> {
      await sql`update generations set status = 'processing', started_at = coalesce(started_at, now())
                where id = ${generationId} and status = 'pending'`;
    },

    /** Loads the design and the prepared blank, composites, stores mockup and thumbnail under keys derived from
     * the generation id (a re-run overwrites the same files with the same bytes). */
    async renderMockup(generationId: string): Promise<{ mockupKey: string; thumbnailKey: string; ms: Record<string, number> }> {
      const g = await load(generationId);
      const keys = mockupKeys(generationId);
      if (g.mockupKey && (await storage.exists(g.mockupKey))) return { mockupKey: g.mockupKey, thumbnailKey: g.thumbnailKey!, ms: {} };
      const ms: Record<string, number> = {};
      let t = performance.now();
      const lap = (name: string) => {
        const now = performance.now();
        ms[name] = Math.round((now - t) * 10) / 10;
        t = now;
      };
      const [zone] = await sql<{ x: number; y: number; width: number; height: number }[]>`
        select rect_x as x, rect_y as y, rect_w as width, rect_h as height from print_zones
        where garment_id = ${g.garmentId} and zone_id = ${g.zone}`;
      if (!zone) throw ApplicationFailure.nonRetryable(`garment ${g.garmentId} has no ${g.zone} zone`, 'BadInputError');
      let design: Buffer;
      let blank;
      try {
        // The cancellation signal aborts a slow download when the worker shuts down or the activity times out.
        const signal = Context.current().cancellationSignal;
        [design, blank] = await Promise.all([deps.loadUserImage(g.designUrl, signal), deps.blanks.get(g.blankKey)]);
      } catch (err) {
        if (isPermanent(err)) throw ApplicationFailure.nonRetryable((err as Error).message, 'BadInputError');
        throw err;
      }
      lap('load');
      Context.current().heartbeat();
      let out;
      try {
        out = await composite({ blank, design, zone, placement: g.placement, applyTexture: g.applyTexture });
      } catch (err) {
        if (err instanceof DesignImageError) throw ApplicationFailure.nonRetryable(`Design image: ${err.message}`, 'DesignImageError');
        if (err instanceof RangeError) throw ApplicationFailure.nonRetryable(err.message, 'BadInputError');
        throw err;
      }
      lap('composite');
      await Promise.all([storage.put(keys.thumbnail, out.thumbnail, 'image/jpeg'), storage.put(keys.mockup, out.mockup, 'image/jpeg')]);
      lap('store');
      log.info('mockup rendered', { generationId, ms });
      return { mockupKey: keys.mockup, thumbnailKey: keys.thumbnail, ms };
    },

    /** Marks the generation completed once; returns what the completion callback carries. */
    async markCompleted(generationId: string, r: { mockupKey: string; thumbnailKey: string }): Promise<{ completedAt: string; mockupUrl: string }> {
      const [row] = await sql<{ completedAt: Date }[]>`
        update generations set status = 'completed', mockup_key = ${r.mockupKey}, thumbnail_key = ${r.thumbnailKey},
               completed_at = coalesce(completed_at, now()), error = null
        where id = ${generationId} and status <> 'failed'
        returning completed_at as "completedAt"`;
      if (!row) throw ApplicationFailure.nonRetryable(`generation ${generationId} already failed`, 'BadInputError');
      return { completedAt: row.completedAt.toISOString(), mockupUrl: fileUrl(config, r.mockupKey) };
    },

    /** Gives the token back once (reference refund:<generation id>); a no-op when nothing was charged. */
    async refundGeneration(generationId: string): Promise<boolean> {
      const refunded = await refundDebit(sql, generationId);
      if (refunded) log.info('generation refunded', { generationId });
      return refunded;
    },

    async markFailed(generationId: string, error: string): Promise<{ completedAt: string }> {
      const [row] = await sql<{ completedAt: Date }[]>`
        update generations set status = 'failed', error = coalesce(error, ${error.slice(0, 1000)}), tokens_used = 0,
               completed_at = coalesce(completed_at, now())
        where id = ${generationId} and status <> 'completed'
        returning completed_at as "completedAt"`;
      return { completedAt: (row?.completedAt ?? new Date()).toISOString() };
    },
  };
}
