import { Context } from '@temporalio/activity';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { FREE_MONTHLY_TOKENS, grantFreeAllowancePage } from '../db/accounts';
import { failChatJob, staleRunningChatJobs } from '../db/chat';
import type { Sql } from '../db/client';
import { failAndRefund, staleUnfinishedGenerations } from '../db/generations';
import type { ChatConfig, Config } from '../lib/config';
import type { Logger } from '../lib/log';
import type { AppMetrics } from '../lib/metrics';
import { purgeExpiredIdempotencyKeys } from '../db/idempotency';
import { purgeExpiredSessions } from '../db/sessions';
import { expiredLevelsPage, reconcileStorageUsagePage, releaseExpiredLevels } from '../db/uploads';
import { preparedKey } from '../lib/images/design-levels';
import type { Storage } from '../lib/storage';

export interface MaintenanceDeps {
  sql: Sql;
  log: Logger;
  metrics?: AppMetrics;
  /** Needed only by recoverOrphanedGenerations and recoverStuckChatJobs. */
  temporal?: Client;
  /**
   * GENERATION_ORPHAN_AFTER (10 minutes), PREPARED_LEVELS_RETENTION (30 days) and CHAT_ORPHAN_AFTER (2 minutes) when
   * not given; read at each run
   */
  config?: Pick<Config, 'generationOrphanAfterMs'> &
    Partial<Pick<Config, 'uploads'>> & { chat?: Pick<ChatConfig, 'orphanAfterMs'> };
  /** Needed only by sweepStorage. */
  storage?: Storage;
}

/** Uploads per page of the prepared-levels retention, and accounts per page of the usage correction. */
export const STORAGE_SWEEP_PAGE = 500;
/** Prepared-level files deleted at once. */
const DELETE_CONCURRENCY = 8;
/** An account's storage total is corrected only when nothing changed it for this long (no upload in flight). */
export const STORAGE_USAGE_QUIET_MS = 3600_000;
const DEFAULT_LEVELS_RETENTION_MS = 30 * 86_400_000;

export interface StorageSweepResult {
  /** uploads whose prepared levels were deleted */
  levelsExpired: number;
  /** bytes given back to the accounts' quotas by that */
  bytesReleased: number;
  /** accounts whose stored-bytes total was corrected */
  usageCorrected: number;
}

/** Free accounts per statement of the allowance grant. */
export const FREE_ALLOWANCE_PAGE = 5000;

/** The activity's context when running as an activity (heartbeats); undefined when called directly (tests). */
function activityContext(): Context | undefined {
  try {
    return Context.current();
  } catch {
    return undefined;
  }
}

/** A generation still pending after this long without a workflow was orphaned by an API crash (GENERATION_ORPHAN_AFTER). */
const DEFAULT_ORPHAN_AFTER_MS = 10 * 60_000;
/** CHAT_ORPHAN_AFTER when not given. */
const DEFAULT_CHAT_ORPHAN_AFTER_MS = 2 * 60_000;
/** Chat jobs read per page by the chat-jobs sweep (a heartbeat after each). */
export const CHAT_SWEEP_PAGE = 100;

/**
 * How a workflow ended, lower case (`terminated`, `failed`, ...); `missing` when it never existed; null while it
 * still runs (the work is queued or slow, not orphaned).
 */
async function closedStatus(temporal: Client, workflowId: string): Promise<string | null> {
  try {
    const d = await temporal.workflow.getHandle(workflowId).describe();
    return d.status.name === 'RUNNING' ? null : d.status.name.toLowerCase();
  } catch (err) {
    if (!(err instanceof WorkflowNotFoundError)) throw err;
    return 'missing';
  }
}

/** Housekeeping run by the maintenance schedule. Each step is idempotent, so a retried or doubled run is harmless. */
export function createMaintenanceActivities({ sql, log, temporal, config, storage, metrics }: MaintenanceDeps) {
  const orphanAfterMs = config?.generationOrphanAfterMs ?? DEFAULT_ORPHAN_AFTER_MS;
  const retentionMs = config?.uploads?.preparedLevelsRetentionMs ?? DEFAULT_LEVELS_RETENTION_MS;
  return {
    /**
     * Storage housekeeping. (1) Prepared levels no generation used for PREPARED_LEVELS_RETENTION (30 days): their files
     * are deleted, then their bytes given back to the accounts' quotas, a page of STORAGE_SWEEP_PAGE uploads at a
     * time; a heartbeat carries the cursor, so a retried attempt resumes. Deleting a missing file is no error and a
     * released upload is not released twice, so a repeated run changes nothing. The worker decodes a design whose
     * levels are gone from its original, to the same pixels. (2) Each account's stored-bytes total is set to the
     * sum of its uploads' files when they differ and nothing changed the total for an hour (a crash between an
     * upload's reservation and its row leaves it too high).
     */
    async sweepStorage(): Promise<StorageSweepResult> {
      const result: StorageSweepResult = { levelsExpired: 0, bytesReleased: 0, usageCorrected: 0 };
      if (!storage) return result;
      const ctx = activityContext();
      const resumed = ctx?.info.heartbeatDetails as { levelsAfter?: string | null; usageAfter?: string } | undefined;
      let levelsAfter = resumed?.levelsAfter ?? null;
      let usageAfter: string | null = resumed?.usageAfter ?? null;
      // a resumed attempt whose retention step had finished goes straight to the correction
      let levelsDone = resumed?.usageAfter !== undefined;
      while (!levelsDone) {
        const page = await expiredLevelsPage(sql, {
          olderThanMs: retentionMs,
          after: levelsAfter,
          limit: STORAGE_SWEEP_PAGE,
        });
        const deleted: string[] = [];
        for (let i = 0; i < page.rows.length; i += DELETE_CONCURRENCY) {
          const batch = page.rows.slice(i, i + DELETE_CONCURRENCY);
          const outcomes = await Promise.allSettled(batch.map((r) => storage.delete(preparedKey(r.storageKey))));
          outcomes.forEach((o, j) => {
            if (o.status === 'fulfilled') deleted.push(batch[j]!.id);
            else log.warn('could not delete prepared levels', { uploadId: batch[j]!.id, err: o.reason });
          });
        }
        const released = await releaseExpiredLevels(sql, deleted);
        result.levelsExpired += released.uploads;
        result.bytesReleased += released.bytes;
        levelsAfter = page.next;
        levelsDone = page.next === null;
        ctx?.heartbeat(levelsDone ? { usageAfter: '' } : { levelsAfter });
      }
      for (;;) {
        const page = await reconcileStorageUsagePage(sql, {
          afterUserId: usageAfter || null,
          limit: STORAGE_SWEEP_PAGE,
          quietMs: STORAGE_USAGE_QUIET_MS,
        });
        result.usageCorrected += page.corrected;
        if (page.next === null) break;
        usageAfter = page.next;
        ctx?.heartbeat({ usageAfter });
      }
      if (result.levelsExpired > 0)
        log.info('deleted unused prepared levels', { uploads: result.levelsExpired, bytes: result.bytesReleased });
      if (result.usageCorrected > 0)
        log.warn("corrected accounts' stored-bytes totals", { count: result.usageCorrected });
      return result;
    },

    async purgeExpiredSessions(): Promise<number> {
      const n = await purgeExpiredSessions(sql);
      if (n > 0) log.info('purged expired sessions', { count: n });
      return n;
    },

    /** Deletes Idempotency-Keys past their lifetime (IDEMPOTENCY_KEY_TTL, 24 h), 5,000 rows per statement. */
    async purgeExpiredIdempotencyKeys(): Promise<number> {
      const n = await purgeExpiredIdempotencyKeys(sql);
      if (n > 0) log.info('purged expired idempotency keys', { count: n });
      return n;
    },

    /**
     * Gives every Free account its allowance for the current period (keyed by period, so at most once each), set
     * based: one statement per page of FREE_ALLOWANCE_PAGE accounts, a heartbeat after each page carrying the
     * last account id, so a retried attempt resumes where the last one stopped instead of starting over.
     */
    async grantFreeAllowances(): Promise<number> {
      const ctx = activityContext();
      let afterId = (ctx?.info.heartbeatDetails as { afterId?: string } | undefined)?.afterId ?? null;
      let granted = 0;
      for (;;) {
        const page = await grantFreeAllowancePage(sql, { afterId, limit: FREE_ALLOWANCE_PAGE });
        granted += page.granted;
        if (page.lastId === null) break;
        afterId = page.lastId;
        ctx?.heartbeat({ afterId });
      }
      if (granted > 0) log.info('granted free monthly allowances', { count: granted });
      metrics?.tokens('grant', granted * FREE_MONTHLY_TOKENS);
      return granted;
    },

    /**
     * Generations nothing will finish: still pending or processing GENERATION_ORPHAN_AFTER (10 minutes) on, and their
     * workflow does not exist (the API died between charging and starting it) or has closed without finishing them
     * (terminated, timed out, failed after the begin step). Each is failed and refunded in one transaction. A generation whose
     * workflow is still running is merely queued or slow, and is left alone.
     */
    async recoverOrphanedGenerations(): Promise<number> {
      if (!temporal) return 0;
      const stale = await staleUnfinishedGenerations(sql, orphanAfterMs);
      let recovered = 0;
      for (const { id, status, workflowId } of stale) {
        // A batch item runs in its batch's workflow; a single generation in its own.
        const closed = await closedStatus(temporal, workflowId);
        if (closed === null) continue;
        const reason =
          closed === 'missing'
            ? 'The generation could not be started; the token was refunded'
            : `The generation's workflow ended (${closed}) before it finished; the token was refunded`;
        const [outcome] = await failAndRefund(sql, [id], reason);
        if (outcome?.status === 'failed' && outcome.refunded) {
          recovered++;
          metrics?.tokens('refund', 1);
          metrics?.generationFinished(id, 'failed');
          log.warn('recovered an unfinished generation', { generationId: id, was: status, workflowId });
        }
      }
      if (recovered > 0) log.warn('recovered orphaned generations', { count: recovered });
      return recovered;
    },

    /**
     * Chat jobs nothing will finish: still `running` CHAT_ORPHAN_AFTER (2 minutes) after they were created, and
     * their chatDesign workflow (id = job id) has closed without finishing them (terminated, timed out, failed
     * because its own failure step ran out of attempts) or does not exist (the API died between inserting the job
     * and starting it). Each is failed (`generation_failed`: GET /api/chat/jobs/<id> answers 500) and its debit
     * refunded if one was taken, in one transaction (db/chat.ts failChatJob: refund reference refund:<job id>, so
     * a second sweep gives nothing back twice). A job whose workflow still runs is slow, and is left alone.
     */
    async recoverStuckChatJobs(): Promise<{ failed: number; refunded: number }> {
      if (!temporal) return { failed: 0, refunded: 0 };
      const olderThanMs = config?.chat?.orphanAfterMs ?? DEFAULT_CHAT_ORPHAN_AFTER_MS;
      const ctx = activityContext();
      let failed = 0;
      let refunded = 0;
      let after: { c: string; i: string } | undefined;
      for (;;) {
        const page = await staleRunningChatJobs(sql, { olderThanMs, after, limit: CHAT_SWEEP_PAGE });
        for (const job of page) {
          const closed = await closedStatus(temporal, job.id);
          if (closed === null) continue;
          const error =
            closed === 'missing'
              ? 'The job was never started'
              : `The job's workflow ended (${closed}) before it finished`;
          const out = await failChatJob(sql, { jobId: job.id, error, failure: 'generation_failed' });
          if (out.status !== 'failed' || out.duplicate) continue;
          failed++;
          metrics?.chatJobFinished(job.id, 'none', 'failed');
          if (out.refunded) refunded++;
          log.warn('failed a stuck chat job', { jobId: job.id, userId: job.userId, error, refunded: out.refunded });
        }
        if (page.length < CHAT_SWEEP_PAGE) break;
        const last = page[page.length - 1]!;
        after = { c: last.createdAt, i: last.id };
        ctx?.heartbeat();
      }
      return { failed, refunded };
    },
  };
}
